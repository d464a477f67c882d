//! A case: one scenario at one mechanism, placement and parameter point,
//! and the context the runner gives it.

pub(crate) use crate::exec::Mode;
use crate::measure::pin::Placement;
use crate::mechanism::Mechanism;
use crate::scenario::{ParamSpec, Scenario, Value};
use anyhow::Context;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// A deliberate fault, only for tests that prove verification bites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// One message arrives with a damaged payload.
    Corrupt,
    /// The side that answers sleeps once for `STALL`, half-way through
    /// the first repetition (pingpong's echoer).
    Stall,
    /// One sender of fan-in or hackbench quits with an error after the
    /// start, its messages unsent; other scenarios ignore it.
    DieSender,
    /// A stream's receiver reports every repetition as 1 ns long: its
    /// messages all arrive, verified, but outside the timed window.
    Phantom,
    /// The run's first measurement of its physical bounds reads ten times
    /// too tight (`runner::plausible`), as at a host's slowest moment.
    SlowBound,
}

/// How long the test-only stall lasts.
pub(crate) const STALL: Duration = Duration::from_millis(50);

/// See `CaseSpec::identity`.
pub(crate) type CaseIdentity = (
    &'static str,
    String,
    BTreeMap<&'static str, Value>,
    u64,
    Option<u64>,
);

#[derive(Clone)]
pub struct CaseSpec {
    pub(crate) scenario: &'static dyn Scenario,
    pub(crate) mech: Option<&'static dyn Mechanism>,
    pub(crate) placement: Option<Placement>,
    pub(crate) mode: Mode,
    pub(crate) values: BTreeMap<&'static str, Value>,
    pub(crate) repeat: u64,
    /// Untimed operations before the repetitions; None: the scenario's default.
    pub(crate) warmup: Option<u64>,
    /// Known before running that this case cannot run here, and why.
    pub(crate) unsupported: Option<String>,
    /// The agent that runs the far side (`--peer`); None: both sides here.
    pub(crate) peer: Option<crate::exec::remote::Peer>,
    /// Explained in rounds (`iolab ab` with `--explain` on one side), where
    /// the plan's `--explain` does not reach.
    pub(crate) explain: bool,
    /// Parameters named beyond those marked `in_name`, because they tell
    /// this case apart from another of the same run (`plan::distinct`);
    /// `reps` and `warmup` name the repetitions and the warm-up.
    pub(crate) also_named: Vec<&'static str>,
    /// The user fixed the scenario's `batch_work` (`iolab ab` with `-p
    /// count=N`): interleaved rounds keep it instead of sizing it by time.
    pub(crate) work_fixed: bool,
}

impl CaseSpec {
    /// The number the case carries for `spec`, a parameter of its scenario
    /// or mechanism (the plan fills every one in).
    pub(crate) fn int(&self, spec: &ParamSpec) -> u64 {
        debug_assert!(self.declares(spec), "{} is not declared", spec.name);
        spec.int(&self.values)
            .unwrap_or_else(|| panic!("scenario parameter {} is not an integer", spec.name))
    }

    /// The text the case carries for `spec`, as `int`.
    pub(crate) fn text(&self, spec: &ParamSpec) -> &str {
        debug_assert!(self.declares(spec), "{} is not declared", spec.name);
        spec.text(&self.values)
            .unwrap_or_else(|| panic!("scenario parameter {} is not text", spec.name))
    }

    /// True when the scenario or the mechanism declares `spec`.
    pub(crate) fn declares(&self, spec: &ParamSpec) -> bool {
        let mech = self.mech.map(|m| m.params()).unwrap_or_default();
        self.scenario
            .params()
            .iter()
            .chain(mech)
            .any(|p| p.same(spec))
    }

    /// `pipe/same-cpu/processes/1B`: mechanism, placement, mode, then the
    /// parameters marked `in_name` and those `also_named`; a case across
    /// hosts says `tcp@peer` (or, without a mechanism, ends in `@peer`
    /// instead of its `link`).
    pub(crate) fn name(&self) -> String {
        let mut name = self.base_name();
        for (key, value) in [("reps", Some(self.repeat)), ("warmup", self.warmup)] {
            if let (true, Some(v)) = (self.also_named.contains(&key), value) {
                name.push_str(&format!("/{key}={v}"));
            }
        }
        name
    }

    /// The name from the case's mechanism, placement and parameters alone.
    fn base_name(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        match (self.mech, &self.peer) {
            (Some(mech), None) => parts.push(mech.name().to_string()),
            (Some(mech), Some(_)) => parts.push(format!("{}@peer", mech.name())),
            _ => {}
        }
        if let Some(placement) = self.placement {
            parts.push(placement.name().to_string());
            parts.push(self.mode.name().to_string());
        }
        // Across hosts the link is the real one, not a `link=` value.
        let crossed = |p: &&ParamSpec| !(self.peer.is_some() && p.name == "link");
        let named = |p: &&ParamSpec| {
            (p.in_name && !self.at_quiet_default(p)) || self.also_named.contains(&p.name)
        };
        for spec in self.scenario.params().iter().filter(named).filter(crossed) {
            match (self.values.get(spec.name), spec.kind) {
                (Some(v), crate::scenario::ParamKind::Bytes) => parts.push(format!("{v}B")),
                (
                    Some(v),
                    crate::scenario::ParamKind::Count
                    | crate::scenario::ParamKind::CountOrMax
                    | crate::scenario::ParamKind::Text
                    | crate::scenario::ParamKind::Number,
                ) => parts.push(format!("{}={v}", spec.name)),
                (Some(v), _) => parts.push(v.to_string()),
                (None, _) => {}
            }
        }
        let mech_params = self.mech.map(|m| m.params()).unwrap_or_default();
        for spec in mech_params.iter().filter(named) {
            if let Some(v) = self.values.get(spec.name) {
                parts.push(format!("{}={v}", spec.name));
            }
        }
        if self.mech.is_none() && self.peer.is_some() {
            parts.push("@peer".into());
        }
        parts.join("/")
    }

    /// True for `pairs=1` and `rate=max`: how every case ran before those
    /// parameters existed, so the name stays the one it always had.
    fn at_quiet_default(&self, spec: &ParamSpec) -> bool {
        let quiet = [super::pairs::PAIRS, super::open_loop::RATE];
        quiet.iter().any(|q| q.same(spec))
            && self.values.get(spec.name).map(Value::to_string).as_deref() == Some(spec.default)
    }

    /// Every parameter of the case, for the result's `params`.
    pub(crate) fn params_json(&self) -> BTreeMap<String, serde_json::Value> {
        let mut map: BTreeMap<String, serde_json::Value> = self
            .values
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_json()))
            .collect();
        if let Some(mech) = self.mech {
            map.insert("mech".into(), mech.name().into());
        }
        if let Some(placement) = self.placement {
            map.insert("placement".into(), placement.name().into());
            map.insert("mode".into(), self.mode.name().into());
        }
        map.insert("repeat".into(), self.repeat.into());
        if let Some(peer) = &self.peer {
            map.insert("peer".into(), peer.addr.clone().into());
            map.insert("peer_cpu".into(), peer.cpu.into());
            // Across hosts the link is the real one to the peer, not loopback.
            if map.contains_key("link") {
                map.insert("link".into(), "peer".into());
            }
        }
        map
    }

    /// What makes two cases the same: scenario, name (mechanism, placement,
    /// mode), every parameter value, repetitions and warm-up.
    pub(crate) fn identity(&self) -> CaseIdentity {
        (
            self.scenario.name(),
            self.base_name(),
            self.values.clone(),
            self.repeat,
            self.warmup,
        )
    }

    pub(crate) fn warmup_or(&self, default: u64) -> u64 {
        self.warmup.unwrap_or(default)
    }
}

/// What the runner gives a running case.
pub struct CaseCtx<'a> {
    /// A private directory for this case's filesystem objects.
    pub(crate) dir: &'a Path,
    pub(crate) fault: Option<Fault>,
    /// How long a case may run before its sides are stopped.
    pub(crate) timeout: Duration,
    /// Measure where each operation's time went (`--explain`).
    pub(crate) explain: bool,
    /// Record the kernel call chains of the sides' switches too, for the
    /// off-CPU flame graph (`--explain --profile`).
    pub(crate) offcpu_stacks: bool,
}

impl CaseCtx<'_> {
    /// Runs `f` with a fresh subdirectory `name` of the case's directory, so
    /// a case can connect its mechanism more than once (a probe run, then
    /// the measured one) without their FIFOs meeting; removed afterwards.
    pub(crate) fn in_subdir<T>(
        &self,
        name: &str,
        f: impl FnOnce(&CaseCtx) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let dir = self.dir.join(name);
        std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let sub = CaseCtx { dir: &dir, ..*self };
        let result = f(&sub);
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        result
    }
}
