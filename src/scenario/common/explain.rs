//! `iolab run --explain`: where one operation's time went, from what the
//! sides measured over the timed repetitions (CPU time, run-queue wait,
//! context switches) and what the runner read around the case (IPIs and
//! idle entries on the sides' CPUs). Components declared once below.

use crate::measure::kcounters::Snapshot;
use crate::model::{Component, Explain, Missing};
use crate::scenario::common::side::SideOut;

/// One component of an explanation: its name and unit, declared once.
pub(crate) struct ComponentSpec {
    pub(crate) name: &'static str,
    pub(crate) unit: &'static str,
}

pub(crate) const USER: ComponentSpec = ComponentSpec {
    name: "user_cpu",
    unit: "ns",
};
pub(crate) const KERNEL: ComponentSpec = ComponentSpec {
    name: "kernel_cpu",
    unit: "ns",
};
pub(crate) const RUN_QUEUE: ComponentSpec = ComponentSpec {
    name: "run_queue",
    unit: "ns",
};
pub(crate) const VOLUNTARY_CSW: ComponentSpec = ComponentSpec {
    name: "voluntary_csw",
    unit: "csw",
};
pub(crate) const INVOLUNTARY_CSW: ComponentSpec = ComponentSpec {
    name: "involuntary_csw",
    unit: "csw",
};
pub(crate) const RESCHED_IPI: ComponentSpec = ComponentSpec {
    name: "resched_ipi",
    unit: "ipi",
};
pub(crate) const CALL_IPI: ComponentSpec = ComponentSpec {
    name: "call_ipi",
    unit: "ipi",
};
pub(crate) const IDLE_ENTRIES: ComponentSpec = ComponentSpec {
    name: "cpuidle_entries",
    unit: "entries",
};
const BLOCKED: ComponentSpec = ComponentSpec {
    name: "blocked",
    unit: "ns",
};
const WAKEUP: ComponentSpec = ComponentSpec {
    name: "wakeup_latency",
    unit: "ns",
};
pub(crate) const UNATTRIBUTED: ComponentSpec = ComponentSpec {
    name: "unattributed",
    unit: "ns",
};

/// The time components: those `unattributed` is what is left of.
const TIMES: [&ComponentSpec; 3] = [&USER, &KERNEL, &RUN_QUEUE];

pub(crate) const NEEDS_TRACEPOINTS: &str = "needs scheduler tracepoints (not measured yet)";
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
/// measured them, from both sides' reports.
pub(crate) fn from_sides(sides: [(&SideOut, &str); 2], ops: u64, op_ns: f64) -> Explain {
    let mut e = Explain {
        ops,
        op_ns,
        ..Explain::default()
    };
    for (out, role) in sides {
        let usage = out.total_usage();
        let side = Some(role);
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
        for spec in [&BLOCKED, &WAKEUP] {
            e.missing.push(spec.missing(side, NEEDS_TRACEPOINTS));
        }
    }
    let measuring = sides[0].1;
    let attributed: f64 = e
        .components
        .iter()
        .filter(|c| c.side.as_deref() == Some(measuring))
        .filter(|c| TIMES.iter().any(|t| t.name == c.name))
        .map(|c| c.value)
        .sum();
    e.unattributed = UNATTRIBUTED.per_op(Some(measuring), (op_ns - attributed) * ops as f64, ops);
    e
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
        let e = from_sides([(&a, "a"), (&b, "b")], 10, 1000.0);
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
        assert_eq!(e.missing.len(), 5, "{:?}", e.missing);
    }
}
