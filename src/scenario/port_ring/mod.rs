//! `port-ring` (E2): `rings` rings of `relays` relays; each relay owns one
//! external echo program (default /bin/cat) connected by pipes and speaks
//! the original's line protocol. A number K travels round the ring, each
//! relay echoing it through its program and passing K-1 on, until 0 shuts
//! the ring down. Measures the cost of the external hop: setup per port,
//! messages per second, and the context switches and CPU split it causes.

mod budget;
mod echo;
mod relay;
mod rings;
#[cfg(test)]
mod tests;

use super::{CaseCtx, CaseSpec, MetricSpec, ParamKind, ParamSpec, Scenario, Value};
use crate::measure::procstat::ProcStat;
use crate::model::{CaseResult, Finding, Status, Verified};
use crate::scenario::common::fd_budget::restore_nofile;
use crate::sys::rusage::{usage, Usage, Who};
use anyhow::Context;
use echo::EchoCmd;
use relay::{RelayError, RelayReport};
use rings::Shape;
use std::collections::BTreeMap;

pub(crate) struct PortRing;

const RELAYS: ParamSpec = ParamSpec {
    name: "relays",
    kind: ParamKind::Count,
    default: "10",
    about: "relays per ring (N), each with its own echo program",
    in_name: true,
};

const MESSAGES: ParamSpec = ParamSpec {
    name: "messages",
    kind: ParamKind::Count,
    default: "100000",
    about: "messages each ring passes round (K)",
    in_name: true,
};

const RINGS: ParamSpec = ParamSpec {
    name: "rings",
    kind: ParamKind::Count,
    default: "8",
    about: "rings running at once (Par)",
    in_name: true,
};

const ECHO: ParamSpec = ParamSpec {
    name: "echo",
    kind: ParamKind::Text,
    default: "/bin/cat",
    about: "the echo program and its arguments, run without a shell; none: relay in-process",
    in_name: true,
};

const RELAY: ParamSpec = ParamSpec {
    name: "relay",
    kind: ParamKind::Choice(&["threads", "processes"]),
    default: "threads",
    about: "relays as threads of iolab or as forked processes",
    in_name: true,
};

const PARAMS: &[ParamSpec] = &[RELAYS, MESSAGES, RINGS, ECHO, RELAY];

pub(crate) const MSGS_PER_S: MetricSpec = MetricSpec {
    name: "msgs_per_s",
    unit: "1/s",
    about: "messages of all rings per second (K x Par / run time)",
};

pub(crate) const US_PER_MSG: MetricSpec = MetricSpec {
    name: "us_per_msg",
    unit: "us",
    about: "run time per message, all rings together",
};

const SETUP_MS_PER_PORT: MetricSpec = MetricSpec {
    name: "setup_ms_per_port",
    unit: "ms",
    about: "time to start one echo program and its pipes",
};

pub(crate) const CSW_PER_S: MetricSpec = MetricSpec {
    name: "csw_per_s",
    unit: "1/s",
    about: "context switches per second, whole system (/proc/stat ctxt)",
};

const CSW_PER_S_IOLAB: MetricSpec = MetricSpec {
    name: "csw_per_s_iolab",
    unit: "1/s",
    about: "context switches per second of iolab and its reaped children (getrusage)",
};

const CPU_USER_PCT: MetricSpec = MetricSpec {
    name: "cpu_user_pct",
    unit: "%",
    about: "user CPU time, % of all CPUs, whole system (/proc/stat)",
};

const CPU_SYS_PCT: MetricSpec = MetricSpec {
    name: "cpu_sys_pct",
    unit: "%",
    about: "system CPU time (with irq and softirq), % of all CPUs, whole system",
};

const METRICS: &[MetricSpec] = &[
    MSGS_PER_S,
    US_PER_MSG,
    SETUP_MS_PER_PORT,
    CSW_PER_S,
    CSW_PER_S_IOLAB,
    CPU_USER_PCT,
    CPU_SYS_PCT,
];

impl Scenario for PortRing {
    fn name(&self) -> &'static str {
        "port-ring"
    }
    fn about(&self) -> &'static str {
        "rings of relays, each echoing through an external program over pipes (E2)"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn batch_work(&self) -> Option<&'static ParamSpec> {
        Some(&MESSAGES)
    }
    fn check_point(&self, values: &BTreeMap<&'static str, Value>) -> Result<(), String> {
        match ECHO.text(values) {
            Some(text) => echo::parse(text).map(|_| ()),
            None => Ok(()),
        }
    }

    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let echo = echo::parse(case.text(&ECHO)).map_err(anyhow::Error::msg)?;
        let shape = Shape {
            relays: case.int(&RELAYS) as usize,
            messages: case.int(&MESSAGES),
            rings: case.int(&RINGS) as usize,
            processes: case.text(&RELAY) == "processes",
        };
        let raised = budget::fit(shape, echo.is_some())?;
        let result = repeat(shape, echo.as_ref(), case.repeat, ctx, out);
        if let Some(old) = raised {
            restore_nofile(old);
        }
        result
    }

    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        results
            .iter()
            .filter(|r| r.status == Status::Ok)
            .filter_map(|r| verdict_line(r))
            .collect()
    }
}

/// Runs the case's repetitions; the first that fails ends the case.
fn repeat(
    shape: Shape,
    echo: Option<&EchoCmd>,
    count: u64,
    ctx: &CaseCtx,
    out: &mut CaseResult,
) -> anyhow::Result<()> {
    let mut reps = Reps::default();
    for _ in 0..count {
        let mut meter = SystemMeter::default();
        let run = rings::run(shape, echo, ctx.timeout, &mut |b| meter.mark(b))?;
        let ok = settle(out, shape, &run.outcomes);
        reps.messages += out.verified.as_ref().map_or(0, |v| v.messages);
        reps.bytes += out.verified.as_ref().map_or(0, |v| v.bytes);
        if !ok {
            return Ok(());
        }
        let run_ns = run
            .run_ns()
            .context("a ring ended without stamping its first send and last receive")?;
        reps.add(shape, run.setup_ns, run_ns, meter.finish()?);
    }
    out.verified = Some(Verified {
        ok: true,
        messages: reps.messages,
        bytes: reps.bytes,
    });
    reps.fill(out);
    Ok(())
}

/// Checks one repetition's relay outcomes; marks `out` failed with the most
/// telling reason (a mismatch beats the broken pipes that follow it).
fn settle(out: &mut CaseResult, shape: Shape, outcomes: &[relay::RelayOutcome]) -> bool {
    let reports: Vec<&RelayReport> = outcomes.iter().filter_map(|o| o.as_ref().ok()).collect();
    let messages = reports.iter().map(|r| r.echoed).sum();
    let bytes = reports.iter().map(|r| r.bytes).sum();
    let worst: Option<&RelayError> = outcomes.iter().filter_map(|o| o.as_ref().err()).min();
    let mut reason = worst.map(|e| e.text().to_string());
    if reason.is_none() {
        reason = check_rings(shape, outcomes);
    }
    out.verified = Some(Verified {
        ok: reason.is_none(),
        messages,
        bytes,
    });
    if let Some(reason) = reason {
        out.status = Status::Failed;
        out.reason = Some(reason);
        return false;
    }
    true
}

/// Every ring echoed exactly K numbers and every relay saw the 0.
fn check_rings(shape: Shape, outcomes: &[relay::RelayOutcome]) -> Option<String> {
    for (ring, chunk) in outcomes.chunks(shape.relays).enumerate() {
        let reports: Vec<&RelayReport> = chunk.iter().filter_map(|o| o.as_ref().ok()).collect();
        let echoed: u64 = reports.iter().map(|r| r.echoed).sum();
        if echoed != shape.messages || !reports.iter().all(|r| r.saw_zero) {
            return Some(format!(
                "verification failed: ring {ring} echoed {echoed} of {} numbers or did not reach 0",
                shape.messages
            ));
        }
    }
    None
}

/// /proc/stat and getrusage around one repetition.
#[derive(Default)]
struct SystemMeter {
    before: Option<(ProcStat, Usage, u64)>,
    after: Option<(ProcStat, u64)>,
}

struct SystemDelta {
    /// How long the meter counted: from before the first number was sent
    /// until the watcher saw the last relay end.
    window_ns: u64,
    csw: u64,
    user_pct: f64,
    sys_pct: f64,
    iolab_csw: u64,
}

impl SystemMeter {
    fn mark(&mut self, before: bool) {
        let stat = ProcStat::read().unwrap_or_default();
        let now = crate::measure::clock::now_ns();
        if before {
            self.before = Some((stat, own_usage(), now));
        } else {
            self.after = Some((stat, now));
        }
    }

    /// Called after the echo programs were reaped, so their counters are
    /// in RUSAGE_CHILDREN.
    fn finish(self) -> anyhow::Result<SystemDelta> {
        let (Some((s0, u0, t0)), Some((s1, t1))) = (self.before, self.after) else {
            anyhow::bail!("the run ended before it was measured");
        };
        let (csw, user_pct, sys_pct) = s0.delta(&s1);
        Ok(SystemDelta {
            window_ns: t1.saturating_sub(t0),
            csw,
            user_pct,
            sys_pct,
            iolab_csw: own_usage().since(u0).csw(),
        })
    }
}

fn own_usage() -> Usage {
    let own = usage(Who::Process).unwrap_or_default();
    own.plus(usage(Who::Children).unwrap_or_default())
}

/// Per-repetition figures.
#[derive(Default)]
struct Reps {
    setup_ms: Vec<f64>,
    rate: Vec<f64>,
    us: Vec<f64>,
    csw: Vec<f64>,
    iolab_csw: Vec<f64>,
    user: Vec<f64>,
    sys: Vec<f64>,
    messages: u64,
    bytes: u64,
}

impl Reps {
    /// `run_ns` is the rings' own time; the switches are a rate over the
    /// window they were counted in.
    fn add(&mut self, shape: Shape, setup_ns: u64, run_ns: u64, d: SystemDelta) {
        let total = shape.messages as f64 * shape.rings as f64;
        let secs = run_ns.max(1) as f64 / 1e9;
        let window = d.window_ns.max(1) as f64 / 1e9;
        let ports = (shape.relays * shape.rings) as f64;
        self.setup_ms.push(setup_ns as f64 / 1e6 / ports);
        self.rate.push(total / secs);
        self.us.push(secs * 1e6 / total);
        self.csw.push(d.csw as f64 / window);
        self.iolab_csw.push(d.iolab_csw as f64 / window);
        self.user.push(d.user_pct);
        self.sys.push(d.sys_pct);
    }

    fn fill(self, out: &mut CaseResult) {
        let all = [
            (MSGS_PER_S, self.rate),
            (US_PER_MSG, self.us),
            (SETUP_MS_PER_PORT, self.setup_ms),
            (CSW_PER_S, self.csw),
            (CSW_PER_S_IOLAB, self.iolab_csw),
            (CPU_USER_PCT, self.user),
            (CPU_SYS_PCT, self.sys),
        ];
        for (spec, values) in all {
            spec.set(out, values);
        }
        MSGS_PER_S.set_headline(out);
    }
}

/// "threads, /bin/cat: 34,500 msgs/s (29 us each), 61,000 csw/s, 1.0 ms
/// per port; the original: 34,500/s, 30 us, 60,000 csw/s, 1 ms".
fn verdict_line(r: &CaseResult) -> Option<Finding> {
    let m = |spec: &MetricSpec| spec.value(r);
    let text = format!(
        "{}: {:.0} msgs/s ({:.1} us each), {:.0} context switches/s, {:.2} ms setup per port, CPU {:.0}% user {:.0}% sys (the original, 2009, 2 cores: 34,500/s, 30 us, 60,000 csw/s, 1 ms)",
        r.case,
        m(&MSGS_PER_S)?,
        m(&US_PER_MSG)?,
        m(&CSW_PER_S)?,
        m(&SETUP_MS_PER_PORT)?,
        m(&CPU_USER_PCT)?,
        m(&CPU_SYS_PCT)?,
    );
    let finding = Finding::new(r.case.clone(), text);
    Some(
        finding
            .with(MSGS_PER_S.name, m(&MSGS_PER_S)?, "msgs/s")
            .with(US_PER_MSG.name, m(&US_PER_MSG)?, "us"),
    )
}
