//! The line under a table that says where an explained case's operation
//! went (`iolab run --explain`): the measuring side's time components
//! (CPU time, then blocked, wake-up latency and preemption from the
//! scheduler tracer, or the run delay without it), its context switches,
//! the IPIs on the sides' CPUs, and what is left of the operation's time,
//! so the times add up.

use crate::format::{case_label, human};
use crate::model::{CaseResult, Component, Explain};
use crate::scenario::common::explain::{
    time_components, ComponentSpec, CALL_IPI, INVOLUNTARY_CSW, RESCHED_IPI, SYSCALLS, VOLUNTARY_CSW,
};

/// "  CASE explain (initiator): user 0.2 us, kernel 1.9 us, blocked 4.1 us,
/// wake-up 3.0 us (1.0/op), preempted 0 ns, 1.0 csw, 1.9 IPIs/op;
/// unattributed 0.6 us", or nothing without an explanation.
pub(crate) fn line(r: &CaseResult) -> Option<String> {
    let e = r.explain.as_ref()?;
    let side = e.unattributed.side.as_deref().unwrap_or("all sides");
    let mut parts: Vec<String> = time_components(e, side)
        .into_iter()
        .map(|c| time_part(c, e.ops))
        .collect();
    let csw = sum(e, &[&VOLUNTARY_CSW, &INVOLUNTARY_CSW]);
    parts.push(format!("{csw:.1} csw"));
    let counted = |c: &&Component| c.name == SYSCALLS.name && c.side.as_deref() == Some(side);
    if let Some(calls) = e.components.iter().find(counted) {
        parts.push(format!("{:.1} syscalls", calls.value));
    }
    parts.push(format!("{:.1} IPIs/op", sum(e, &[&RESCHED_IPI, &CALL_IPI])));
    Some(format!(
        "  {} explain ({side}): {}; unattributed {}",
        case_label(&r.case),
        parts.join(", "),
        human(e.unattributed.value, "ns")
    ))
}

/// "kernel 1.9 us", or for a traced component "wake-up 3.0 us (1.0/op,
/// 3.0 us each)": how many of its intervals an operation had, and their
/// mean. The count per operation is the time per operation over the mean:
/// the tracer saw a share of the operations, and the time is scaled to all.
fn time_part(c: &Component, ops: u64) -> String {
    let label = match c.name.as_str() {
        "user_cpu" => "user",
        "kernel_cpu" => "kernel",
        "run_queue" => "run-queue",
        "wakeup_latency" => "wake-up",
        other => other,
    };
    let value = human(c.value, "ns");
    match &c.intervals {
        Some(i) if i.count > 0 => format!(
            "{label} {value} ({:.1}/op, {} each)",
            match i.mean > 0.0 {
                true => c.value / i.mean,
                false => i.count as f64 / ops.max(1) as f64,
            },
            human(i.mean, "ns")
        ),
        _ => format!("{label} {value}"),
    }
}

/// The named components of the measuring side (the one `unattributed` is
/// computed for), plus those of no side (the CPUs' IPIs), added up.
fn sum(e: &Explain, specs: &[&ComponentSpec]) -> f64 {
    let measuring = e.unattributed.side.as_deref();
    e.components
        .iter()
        .filter(|c| specs.iter().any(|s| s.name == c.name))
        .filter(|c| c.side.is_none() || c.side.as_deref() == measuring)
        .fold(0.0, |total, c| total + c.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Component;

    fn component(name: &str, side: Option<&str>, value: f64) -> Component {
        Component {
            name: name.into(),
            side: side.map(str::to_string),
            unit: "ns".into(),
            value,
            ..Component::default()
        }
    }

    #[test]
    fn one_line_gives_the_measuring_side_so_the_times_add_up() {
        let mut r = CaseResult::new("pingpong", "pipe/same-cpu", Default::default());
        assert_eq!(line(&r), None);
        let (a, b) = (Some("initiator"), Some("echoer"));
        r.explain = Some(Explain {
            ops: 10,
            op_ns: 5000.0,
            components: vec![
                component("user_cpu", a, 1000.0),
                component("user_cpu", b, 700.0),
                component("kernel_cpu", a, 1500.0),
                component("kernel_cpu", b, 900.0),
                component("voluntary_csw", a, 1.0),
                component("voluntary_csw", b, 1.0),
                component("call_ipi", None, 2.0),
            ],
            missing: Vec::new(),
            unattributed: component("unattributed", a, 2500.0),
            ..Explain::default()
        });
        assert_eq!(
            line(&r).unwrap(),
            "  pipe/same-cpu explain (initiator): user 1.00 us, kernel 1.50 us, 1.0 csw, \
             2.0 IPIs/op; unattributed 2.50 us"
        );
    }

    #[test]
    fn a_traced_side_shows_blocked_wakeups_and_preemption_instead_of_run_delay() {
        use crate::model::{LatencyKind, LatencySummary};
        let a = Some("initiator");
        let traced = |name: &str, value: f64, count: u64, mean: f64| Component {
            intervals: Some(LatencySummary {
                kind: LatencyKind::PerCall,
                unit: "ns".into(),
                count,
                mean,
                p50: 0,
                p90: 0,
                p99: 0,
                p99_9: 0,
                max: 0,
            }),
            ..component(name, a, value)
        };
        let mut r = CaseResult::new("pingpong", "pipe/cross-cpu", Default::default());
        r.explain = Some(Explain {
            ops: 10,
            op_ns: 5000.0,
            components: vec![
                component("user_cpu", a, 100.0),
                component("kernel_cpu", a, 1500.0),
                component("run_queue", a, 800.0),
                // The tracer saw a tenth of the 10 operations; the times
                // are scaled to all of them, and so are the counts shown.
                traced("blocked", 2000.0, 1, 2000.0),
                traced("wakeup_latency", 1000.0, 2, 500.0),
                traced("preempted", 0.0, 0, 0.0),
                Component {
                    unit: "calls".into(),
                    ..component("syscalls", a, 2.0)
                },
            ],
            missing: Vec::new(),
            unattributed: component("unattributed", a, 400.0),
            ..Explain::default()
        });
        assert_eq!(
            line(&r).unwrap(),
            "  pipe/cross-cpu explain (initiator): user 100 ns, kernel 1.50 us, \
             blocked 2.00 us (1.0/op, 2.00 us each), wake-up 1.00 us (2.0/op, 500 ns each), \
             preempted 0 ns, 0.0 csw, 2.0 syscalls, 0.0 IPIs/op; unattributed 400 ns"
        );
    }
}
