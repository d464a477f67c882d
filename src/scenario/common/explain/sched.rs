//! The scheduler's part of an explanation: a tracer on every CPU while a
//! case runs, and each side's thread followed through it over its timed
//! repetitions (blocked until woken, woken until running, preempted until
//! running again, migrations). Without tracepoints each of those is named
//! as missing with the reason, and the rest of the explanation stands.

use super::{ComponentSpec, BLOCKED, MIGRATIONS, PREEMPTED, SYSCALLS, WAKEUP};
use crate::measure::sched::{online_cpus, Duty, Points, SchedLog, SyscallCounter, Tracer};
use crate::model::{Component, Explain, LatencyKind};
use crate::scenario::common::case::CaseCtx;
use crate::scenario::common::side::SideOut;
use crate::stats::histogram::Latencies;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Share of a side's wake-ups whose switch-in may go untraced before its
/// wake-up latency is called unmeasured rather than slightly short.
const UNTRACED_TOLERANCE: f64 = 0.01;

/// A tracer running around one case, or why there is none.
pub(crate) struct Tracing(Result<Tracer, String>);

impl Tracing {
    /// The tracer for a case run with `--explain` (with the switches' call
    /// chains under `--profile` too), or None without `--explain`.
    pub(crate) fn for_case(ctx: &CaseCtx) -> Option<Tracing> {
        ctx.explain.then(|| Tracing::start(ctx.offcpu_stacks))
    }

    /// Starts tracing every online CPU, with the switches' kernel call
    /// chains when `stacks` (for the off-CPU flame graph).
    fn start(stacks: bool) -> Tracing {
        Tracing(points().and_then(|p| Tracer::start(p, &online_cpus()?, stacks, Duty::WINDOWS)))
    }

    /// Stops the tracer: the log of the case, or why there is none.
    pub(crate) fn finish(self) -> Result<SchedLog, String> {
        self.0.map(Tracer::finish)
    }
}

/// A counter of the calling thread's system calls, for a side to read at
/// its repetition boundaries.
pub(crate) fn syscall_counter() -> Result<SyscallCounter, String> {
    points().and_then(SyscallCounter::start)
}

/// The tracepoints' formats, read once per process (a forked side inherits
/// them from the runner, which read them to start its tracer).
fn points() -> Result<&'static Points, String> {
    static POINTS: OnceLock<Result<Points, String>> = OnceLock::new();
    POINTS
        .get_or_init(Points::load)
        .as_ref()
        .map_err(Clone::clone)
}

/// Time off CPU by call chain id, of one side.
pub(super) type OffCpu = HashMap<u32, u64>;

/// Adds side `role`'s scheduler components, or names them missing; its
/// time off CPU by call chain when traced.
pub(super) fn add_side(
    e: &mut Explain,
    trace: &Result<SchedLog, String>,
    out: &SideOut,
    role: &str,
) -> OffCpu {
    let side = Some(role);
    let specs = [&BLOCKED, &WAKEUP, &PREEMPTED, &MIGRATIONS, &SYSCALLS];
    let log = match trace {
        Ok(log) if out.threads.iter().any(|t| !t.windows.is_empty()) => log,
        other => {
            let why = other.as_ref().err().map(String::as_str);
            missing(
                e,
                &specs,
                role,
                why.unwrap_or("the side reported no timed repetition"),
            );
            return OffCpu::new();
        }
    };
    let t = log.of_threads(&out.threads);
    if t.traced_ns == 0 {
        let why = "no window of the scheduler tracer fell within its timed repetitions";
        missing(e, &specs[..4], role, why);
        add_syscalls(e, out, role);
        return OffCpu::new();
    }
    // The windows recorded part of the repetitions: their figures, scaled.
    let whole = t.window_ns as f64 / t.traced_ns as f64;
    let ops = e.ops;
    e.components.push(with_intervals(
        BLOCKED.per_op(side, t.blocked_ns as f64 * whole, ops),
        &t.blocked,
    ));
    let untraced = t.untraced_switch_ins as f64;
    if untraced > UNTRACED_TOLERANCE * t.wakeups.max(1) as f64 {
        let why = format!(
            "{} of {} switch-ins not traced (this kernel does not report some switches \
             out of the idle task), so the time from wake-up to running is unknown",
            t.untraced_switch_ins,
            t.wakeups + t.preemptions
        );
        missing(e, &[&WAKEUP, &PREEMPTED], role, &why);
    } else {
        e.components.push(with_intervals(
            WAKEUP.per_op(side, t.wakeup_ns as f64 * whole, ops),
            &t.wakeup,
        ));
        e.components.push(with_intervals(
            PREEMPTED.per_op(side, t.runqueue_ns as f64 * whole, ops),
            &t.runqueue,
        ));
    }
    e.components
        .push(MIGRATIONS.per_op(side, t.migrations as f64 * whole, ops));
    add_syscalls(e, out, role);
    e.traced_share = Some(t.traced_ns as f64 / t.window_ns as f64);
    t.offcpu
}

/// The sides' time off CPU folded by the kernel call chain they switched
/// out with, each side its own root frame.
pub(super) fn add_offcpu(
    e: &mut Explain,
    trace: &Result<SchedLog, String>,
    sides: &[(&str, OffCpu)],
) {
    let Ok(log) = trace else {
        return;
    };
    let chains = sides.iter().flat_map(|(role, offcpu)| {
        offcpu
            .iter()
            .map(move |(stack, ns)| (*role, log.stack(*stack), *ns))
    });
    e.offcpu_folded = crate::measure::profile::fold_kernel_chains(chains);
}

/// The tracer's own cost, and records it lost.
pub(super) fn add_notes(e: &mut Explain, trace: &Result<SchedLog, String>) {
    if let Ok(log) = trace {
        let share = e.traced_share.map_or(String::new(), |s| {
            format!(" ({:.0}% of the timed repetitions)", s * 100.0)
        });
        let duty = Duty::WINDOWS;
        e.notes.push(format!(
            "the scheduler tracer recorded {} ms of every {} ms{share}: blocked, wake-up, \
             preemption and migration figures are what it saw there, scaled to the whole; \
             system calls were counted over the first half of the warm-up (the first timed \
             repetition without one), so the timed repetitions ran at their own pace",
            duty.on.as_millis(),
            duty.period.as_millis()
        ));
        if log.lost > 0 {
            e.notes.push(format!(
                "the scheduler tracer lost {} records: blocked, wake-up and preemption \
                 figures undercount",
                log.lost
            ));
        }
    }
}

/// The side's system calls per operation, counted over its warm-up (or
/// its first timed repetition).
fn add_syscalls(e: &mut Explain, out: &SideOut, role: &str) {
    let reps = out.rep_ns.len().max(1) as f64;
    let all = |calls: u64| match out.syscalls_ops {
        0 => calls as f64 * reps,
        ops => calls as f64 / ops as f64 * e.ops as f64,
    };
    match out.syscalls_counted {
        Some(calls) => e
            .components
            .push(SYSCALLS.per_op(Some(role), all(calls), e.ops)),
        None => missing(
            e,
            &[&SYSCALLS],
            role,
            "not counted: this scenario's side does not count them, or perf refused its counter",
        ),
    }
}

fn missing(e: &mut Explain, specs: &[&ComponentSpec], role: &str, why: &str) {
    for spec in specs {
        e.missing.push(spec.missing(Some(role), why));
    }
}

fn with_intervals(mut c: Component, intervals: &Latencies) -> Component {
    c.intervals = Some(intervals.summary(LatencyKind::PerCall));
    c
}
