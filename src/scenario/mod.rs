//! Scenarios: one experiment each, with typed parameters and defaults,
//! behind `trait Scenario`; `ALL` lists them. A scenario expands into cases
//! (mechanism x placement x parameter point) and runs one case at a time.

pub(crate) mod c2c;
pub mod classic;
pub(crate) mod common;
pub(crate) mod contention;
pub(crate) mod devnull;
#[cfg(test)]
pub(crate) mod entry_params;
pub(crate) mod event_bench;
pub(crate) mod fan_in;
pub(crate) mod far;
pub(crate) mod file_transfer;
pub(crate) mod hackbench;
pub(crate) mod limits;
pub(crate) mod pingpong;
pub(crate) mod pipe_atime;
pub(crate) mod poll_scale;
pub(crate) mod port_ring;
pub(crate) mod probe;
pub(crate) mod stream;
pub(crate) mod suite;

pub(crate) use crate::error::Unsupported;
pub use crate::params::{ParamKind, ParamSpec, Value};
pub(crate) use common::case::{CaseCtx, CaseSpec, Fault, Mode, STALL};
pub use limits::{bounce, cacheline_rtt};

/// Repetitions when neither the command line nor the suite says.
pub(crate) const DEFAULT_REPEAT: u64 = 5;

use crate::measure::pin::Placement;
use crate::model::{CaseResult, Finding, Metric};
pub(crate) use limits::LimitRef;
use std::collections::BTreeMap;

/// A metric a scenario reports, declared once as a const: results store it
/// under `name` in `unit`, and everything that reads it goes through the
/// declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricSpec {
    pub name: &'static str,
    pub unit: &'static str,
    pub(crate) about: &'static str,
}

impl MetricSpec {
    /// Records this metric's repetitions in `out`, in the declared unit.
    pub(crate) fn set(&self, out: &mut CaseResult, reps: Vec<f64>) {
        debug_assert!(
            self.declared_for(out),
            "{} is not a metric of {}",
            self.name,
            out.scenario
        );
        out.metrics.insert(
            self.name.to_string(),
            crate::measure::metric::metric(reps, self.unit),
        );
    }

    /// Makes this metric the one `out` leads with.
    pub(crate) fn set_headline(&self, out: &mut CaseResult) {
        debug_assert!(
            self.declared_for(out),
            "{} is not a metric of {}",
            self.name,
            out.scenario
        );
        out.headline = Some(self.name.to_string());
    }

    /// This metric in result `r`, if it has it.
    pub(crate) fn of<'a>(&self, r: &'a CaseResult) -> Option<&'a Metric> {
        r.metrics.get(self.name)
    }

    /// This metric's headline value (the median) in `r`.
    pub(crate) fn value(&self, r: &CaseResult) -> Option<f64> {
        self.of(r).map(|m| m.value)
    }

    /// True unless `out` belongs to a known scenario that does not
    /// declare this metric.
    fn declared_for(&self, out: &CaseResult) -> bool {
        find(&out.scenario).is_none_or(|s| s.metrics().contains(self))
    }
}

pub trait Scenario: Sync {
    fn name(&self) -> &'static str;
    /// One line for `iolab list`.
    fn about(&self) -> &'static str;
    fn params(&self) -> &'static [ParamSpec];
    /// The metrics this scenario reports; the first is the usual headline.
    fn metrics(&self) -> &'static [MetricSpec];
    /// True when the scenario runs over mechanisms and placements.
    fn uses_mechanisms(&self) -> bool {
        false
    }
    /// Runs one case, filling `out` (status, metrics, latency, cpu, sides).
    /// An error makes the case `failed` with the error chain as the reason.
    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()>;
    /// The findings over this scenario's results of a run, as data. A
    /// seed whose experiment owns the scenario may conclude more
    /// (`claims::seeds`); `contention`'s findings are all E3's.
    fn findings(&self, _results: &[&CaseResult]) -> Vec<Finding> {
        Vec::new()
    }
    /// Whether the runner holds this scenario's figures to the machine's
    /// bounds (`runner::plausible`); false for the ones that measure the
    /// bounds (`limits`) or that report an impossible rate as their lesson
    /// (`devnull`, flagged `not_really_moved` instead).
    fn bound_by_physics(&self) -> bool {
        true
    }
    /// The parameter that sets one repetition's work (a count of
    /// operations, a byte size or a duration), by which interleaved rounds
    /// size their batches by time (`runner::sizing`); None where a
    /// repetition's work is what is measured (a file's size, a stall
    /// window). A figure that is a total of that work (not a rate or a
    /// cost per operation) stays comparable: the cases of one scenario
    /// shrink by one factor.
    fn batch_work(&self) -> Option<&'static ParamSpec> {
        None
    }
    /// Repetitions a batch of interleaved rounds runs of `case` where a
    /// repetition is one short operation that cannot be sized
    /// (`event-bench`'s loop): their median is the round's value. None: as
    /// planned.
    fn round_reps(&self, _case: &CaseSpec) -> Option<u64> {
        None
    }
    /// Where `batch_work` is chosen by the scenario itself (`auto`): the
    /// work a repetition of `per_rep` takes, read off a pilot's result.
    fn work_from_pilot(&self, _pilot: &CaseResult, _per_rep: std::time::Duration) -> Option<u64> {
        None
    }
    /// One round's value of a batch in interleaved rounds: robust to a
    /// single preemption. By default the headline, the median of the
    /// batch's repetitions; a scenario that times every operation gives
    /// their median instead.
    fn round_value(&self, batch: &CaseResult) -> Option<f64> {
        batch.headline_metric().map(|(_, m)| m.value)
    }
    /// The `limits` reference point this result is compared against.
    fn limit_for(&self, _result: &CaseResult) -> Option<LimitRef> {
        None
    }
    /// Checks one parameter point before anything runs (e.g. that a named
    /// program exists); the message becomes a usage error (exit 2).
    fn check_point(&self, _values: &BTreeMap<&'static str, Value>) -> Result<(), String> {
        Ok(())
    }

    /// Adjusts one point of the parameter sweep before it becomes a case,
    /// e.g. drops a parameter that does not apply to it; cases that end up
    /// with the same name run once.
    fn fit_point(&self, _values: &mut std::collections::BTreeMap<&'static str, Value>) {}
    /// `fit_point` for one mechanism: e.g. drops a parameter that
    /// mechanism's cases do not use, so they run once.
    fn fit_mech_point(
        &self,
        _mech: &dyn crate::mechanism::Mechanism,
        _values: &mut BTreeMap<&'static str, Value>,
    ) {
    }
    /// The mechanisms to run when `--mech` is not given (None: all).
    fn default_mechs(&self) -> Option<&'static [&'static str]> {
        None
    }
    /// The placements to run when `--placement` is not given (None: the
    /// plan's default, same-cpu and cross-cpu).
    fn default_placements(&self) -> Option<&'static [Placement]> {
        None
    }

    /// The graphs the original drew from this experiment, with its figures
    /// (`classic.rs`); the report draws them first.
    fn classic_charts(&self) -> &'static [classic::ClassicChart] {
        &[]
    }

    fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params().iter().find(|p| p.name == name)
    }

    fn headline(&self) -> &'static MetricSpec {
        &self.metrics()[0]
    }
}

pub(crate) static ALL: &[&dyn Scenario] = &[
    &limits::Limits,
    &pingpong::PingPong,
    &stream::Stream,
    &file_transfer::FileTransfer,
    &devnull::DevNull,
    &pipe_atime::PipeAtime,
    &port_ring::PortRing,
    &contention::Contention,
    &poll_scale::PollScale,
    &event_bench::EventBench,
    &fan_in::FanIn,
    &hackbench::Hackbench,
    &c2c::C2c,
    &probe::Probe,
];

pub fn find(name: &str) -> Option<&'static dyn Scenario> {
    ALL.iter().copied().find(|s| s.name() == name)
}

pub(crate) fn names() -> Vec<&'static str> {
    ALL.iter().map(|s| s.name()).collect()
}

/// The metric names in `r`, its headline included, that its scenario does
/// not declare; the runner checks every result with it in debug builds.
pub(crate) fn undeclared(r: &CaseResult) -> Vec<String> {
    let Some(scenario) = find(&r.scenario) else {
        return Vec::new();
    };
    let declared = |name: &String| scenario.metrics().iter().any(|m| m.name == name);
    r.metrics
        .keys()
        .chain(r.headline.as_ref())
        .filter(|name| !declared(name))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
