//! `iolab run --explain`: where one operation's time went, from what the
//! sides measured over the timed repetitions (CPU time, run-queue wait,
//! context switches), what the scheduler tracer saw of their threads
//! (`sched`: blocked, wake-up latency, preemptions) and what the runner
//! read around the case (IPIs and idle entries on the sides' CPUs).
//! Components declared once below.

mod sched;

pub(crate) use sched::{syscall_counter, Tracing};

use crate::measure::kcounters::Snapshot;
use crate::measure::sched::SchedLog;
use crate::model::{Component, Explain, Missing};
use crate::scenario::common::side::SideOut;

/// One component of an explanation: its name, unit and source, declared
/// once.
pub(crate) struct ComponentSpec {
    pub(crate) name: &'static str,
    pub(crate) unit: &'static str,
    pub(crate) source: &'static str,
}

pub(crate) const USER: ComponentSpec = ComponentSpec {
    name: "user_cpu",
    unit: "ns",
    source: "getrusage(RUSAGE_THREAD) user time over the timed repetitions",
};
pub(crate) const KERNEL: ComponentSpec = ComponentSpec {
    name: "kernel_cpu",
    unit: "ns",
    source: "getrusage(RUSAGE_THREAD) system time over the timed repetitions",
};
pub(crate) const RUN_QUEUE: ComponentSpec = ComponentSpec {
    name: "run_queue",
    unit: "ns",
    source: "/proc/thread-self/schedstat run delay (runnable, not running; includes the wait after each wake-up)",
};
pub(crate) const VOLUNTARY_CSW: ComponentSpec = ComponentSpec {
    name: "voluntary_csw",
    unit: "csw",
    source: "getrusage(RUSAGE_THREAD) ru_nvcsw",
};
pub(crate) const INVOLUNTARY_CSW: ComponentSpec = ComponentSpec {
    name: "involuntary_csw",
    unit: "csw",
    source: "getrusage(RUSAGE_THREAD) ru_nivcsw",
};
pub(crate) const RESCHED_IPI: ComponentSpec = ComponentSpec {
    name: "resched_ipi",
    unit: "ipi",
    source: "/proc/interrupts RES on the sides' CPUs",
};
pub(crate) const CALL_IPI: ComponentSpec = ComponentSpec {
    name: "call_ipi",
    unit: "ipi",
    source: "/proc/interrupts CAL on the sides' CPUs",
};
pub(crate) const IDLE_ENTRIES: ComponentSpec = ComponentSpec {
    name: "cpuidle_entries",
    unit: "entries",
    source: "/sys/devices/system/cpu/cpu*/cpuidle/state*/usage on the sides' CPUs",
};
pub(crate) const BLOCKED: ComponentSpec = ComponentSpec {
    name: "blocked",
    unit: "ns",
    source: "sched:sched_switch out asleep until sched:sched_waking",
};
pub(crate) const WAKEUP: ComponentSpec = ComponentSpec {
    name: "wakeup_latency",
    unit: "ns",
    source: "sched:sched_waking until sched:sched_switch in",
};
pub(crate) const UNATTRIBUTED: ComponentSpec = ComponentSpec {
    name: "unattributed",
    unit: "ns",
    source: "the measured time minus the measuring side's time components",
};

pub(crate) const PREEMPTED: ComponentSpec = ComponentSpec {
    name: "preempted",
    unit: "ns",
    source: "sched:sched_switch out runnable until switched in",
};
pub(crate) const MIGRATIONS: ComponentSpec = ComponentSpec {
    name: "migrations",
    unit: "migrations",
    source: "sched:sched_switch out on another CPU than the time before",
};

pub(crate) const SYSCALLS: ComponentSpec = ComponentSpec {
    name: "syscalls",
    unit: "calls",
    source: "raw_syscalls:sys_enter counted on the side's thread over its warm-up (its first timed repetition without one)",
};

/// The disjoint time components `unattributed` is what is left of: with
/// the tracer's wake-up latency and preemptions in place of the schedstat
/// run delay, which overlaps both.
const TRACED_TIMES: [&ComponentSpec; 5] = [&USER, &KERNEL, &BLOCKED, &WAKEUP, &PREEMPTED];
const UNTRACED_TIMES: [&ComponentSpec; 4] = [&USER, &KERNEL, &RUN_QUEUE, &BLOCKED];

pub(crate) const NO_SCHEDSTAT: &str =
    "no scheduler statistics in /proc/thread-self/schedstat (kernel keeps none)";
pub(crate) const NO_CPUIDLE: &str = "no cpuidle in sysfs";

impl ComponentSpec {
    fn per_op(&self, side: Option<&str>, total: f64, ops: u64) -> Component {
        Component {
            name: self.name.into(),
            side: side.map(Into::into),
            unit: self.unit.into(),
            value: total / ops.max(1) as f64,
            source: self.source.into(),
            intervals: None,
        }
    }

    fn missing(&self, side: Option<&str>, reason: &str) -> Missing {
        Missing {
            name: self.name.into(),
            side: side.map(Into::into),
            reason: reason.into(),
        }
    }
}

/// The explanation of `ops` operations of `op_ns` each, as side `sides[0]`
/// measured them, from both sides' reports and the scheduler trace (or
/// why there is none).
pub(crate) fn from_sides(
    sides: [(&SideOut, &str); 2],
    ops: u64,
    op_ns: f64,
    trace: &Result<SchedLog, String>,
) -> Explain {
    let mut e = Explain {
        ops,
        op_ns,
        ..Explain::default()
    };
    let mut offcpu = Vec::new();
    for (out, role) in sides {
        add_side(&mut e, out, role);
        offcpu.push((role, sched::add_side(&mut e, trace, out, role)));
    }
    sched::add_offcpu(&mut e, trace, &offcpu);
    sched::add_notes(&mut e, trace);
    let measuring = sides[0].1;
    let attributed: f64 = time_components(&e, measuring).iter().map(|c| c.value).sum();
    e.unattributed = UNATTRIBUTED.per_op(Some(measuring), (op_ns - attributed) * ops as f64, ops);
    e
}

/// The explanation of a case whose `sides[0]` timed `count` operations
/// per repetition: one operation is the mean of its repetitions' time.
pub(crate) fn from_reps(
    sides: [(&SideOut, &str); 2],
    count: u64,
    trace: &Result<SchedLog, String>,
) -> Explain {
    let rep_ns = &sides[0].0.rep_ns;
    let ops = rep_ns.len() as u64 * count;
    let op_ns = rep_ns.iter().sum::<u64>() as f64 / ops.max(1) as f64;
    from_sides(sides, ops, op_ns, trace)
}

/// One side's CPU time, run-queue delay and context switches.
fn add_side(e: &mut Explain, out: &SideOut, role: &str) {
    let (usage, side, ops) = (out.total_usage(), Some(role), e.ops);
    e.components
        .push(USER.per_op(side, usage.user_ns as f64, ops));
    e.components
        .push(KERNEL.per_op(side, usage.sys_ns as f64, ops));
    match out.run_queue_ns {
        Some(ns) => e.components.push(RUN_QUEUE.per_op(side, ns as f64, ops)),
        None => e.missing.push(RUN_QUEUE.missing(side, NO_SCHEDSTAT)),
    }
    e.components
        .push(VOLUNTARY_CSW.per_op(side, usage.voluntary_csw as f64, ops));
    e.components
        .push(INVOLUNTARY_CSW.per_op(side, usage.involuntary_csw as f64, ops));
}

/// The side's disjoint time components: the traced set when the tracer
/// measured its wake-up latency, else CPU time, run delay and blocked.
pub(crate) fn time_components<'a>(e: &'a Explain, side: &str) -> Vec<&'a Component> {
    let of_side = |c: &&Component| c.side.as_deref() == Some(side);
    let traced = e
        .components
        .iter()
        .filter(of_side)
        .any(|c| c.name == WAKEUP.name);
    let names: &[&ComponentSpec] = if traced {
        &TRACED_TIMES
    } else {
        &UNTRACED_TIMES
    };
    e.components
        .iter()
        .filter(of_side)
        .filter(|c| names.iter().any(|t| t.name == c.name))
        .collect()
}

/// Adds the IPIs and idle entries on `cpus` between two readings.
pub(crate) fn add_cpu_counters(
    e: &mut Explain,
    before: &Snapshot,
    after: &Snapshot,
    cpus: &[usize],
) {
    let (res, cal, idle) = before.delta(after, cpus);
    e.components
        .push(RESCHED_IPI.per_op(None, res as f64, e.ops));
    e.components.push(CALL_IPI.per_op(None, cal as f64, e.ops));
    match idle {
        Some(n) => e
            .components
            .push(IDLE_ENTRIES.per_op(None, n as f64, e.ops)),
        None => e.missing.push(IDLE_ENTRIES.missing(None, NO_CPUIDLE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::rusage::Usage;

    fn side(user_ns: u64, sys_ns: u64, run_queue_ns: Option<u64>) -> SideOut {
        SideOut {
            rep_usage: vec![Usage {
                user_ns,
                sys_ns,
                voluntary_csw: 10,
                ..Usage::default()
            }],
            run_queue_ns,
            ..SideOut::default()
        }
    }

    #[test]
    fn unattributed_is_what_the_measuring_sides_times_leave() {
        let (a, b) = (side(1000, 3000, Some(2000)), side(9000, 9000, None));
        let untraced = Err("no tracer here".to_string());
        let e = from_sides([(&a, "a"), (&b, "b")], 10, 1000.0, &untraced);
        assert_eq!(e.unattributed.value, 1000.0 - 100.0 - 300.0 - 200.0);
        assert_eq!(e.unattributed.side.as_deref(), Some("a"));
        let csw = e
            .components
            .iter()
            .find(|c| c.name == "voluntary_csw")
            .unwrap();
        assert_eq!(csw.value, 1.0);
        let rq: Vec<_> = e.missing.iter().filter(|m| m.name == "run_queue").collect();
        assert_eq!(rq.len(), 1);
        assert_eq!(
            (rq[0].side.as_deref(), rq[0].reason.as_str()),
            (Some("b"), NO_SCHEDSTAT)
        );
        let traced: Vec<_> = e
            .missing
            .iter()
            .filter(|m| m.reason == "no tracer here")
            .collect();
        assert_eq!(traced.len(), 10, "{:?}", e.missing);
        assert_eq!(e.missing.len(), 11, "{:?}", e.missing);
    }

    #[test]
    fn a_traced_side_adds_up_blocked_wakeup_and_preemption_instead_of_run_delay() {
        use crate::measure::sched::{Event, SchedLog, Traced};
        let mut a = side(1000, 3000, Some(2000));
        a.syscalls_counted = Some(20);
        a.threads = vec![Traced {
            tid: 5,
            windows: vec![(0, 10_000)],
        }];
        let switch = |time, prev_pid, prev_state, next_pid| Event::Switch {
            time,
            cpu: 0,
            prev_pid,
            prev_state,
            next_pid,
            stack: 0,
        };
        let log = SchedLog::new(
            vec![
                switch(100, 5, 1, 0),
                Event::Waking { time: 2100, pid: 5 },
                switch(2600, 0, 0, 5),
                switch(3000, 5, 0, 9),
                switch(3400, 9, 0, 5),
            ],
            0,
        );
        let e = from_sides([(&a, "a"), (&a, "b")], 10, 1000.0, &Ok(log));
        let value = |name: &str| {
            let c = e.components.iter().find(|c| c.name == name).unwrap();
            (c.value, c.intervals.as_ref().map(|i| i.count))
        };
        assert_eq!(value("blocked"), (200.0, Some(1)));
        assert_eq!(value("wakeup_latency"), (50.0, Some(1)));
        assert_eq!(value("preempted"), (40.0, Some(1)));
        assert_eq!(value("syscalls"), (2.0, None));
        // user 100 + kernel 300 + blocked 200 + wake-up 50 + preempted 40;
        // the run delay (200) overlaps the last two and is left out.
        assert_eq!(e.unattributed.value, 1000.0 - 690.0);
        assert!(e.missing.is_empty(), "{:?}", e.missing);
        // Counted over a warm-up of 4 operations: 3 calls each.
        a.syscalls_counted = Some(12);
        a.syscalls_ops = 4;
        let log = SchedLog::new(Vec::new(), 0);
        let e = from_sides([(&a, "a"), (&a, "b")], 10, 1000.0, &Ok(log));
        let calls = e.components.iter().find(|c| c.name == "syscalls").unwrap();
        assert_eq!(calls.value, 3.0);
    }
}
