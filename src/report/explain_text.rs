//! The line under a table that says where an explained case's operation
//! went (`iolab run --explain`): the measuring side's CPU time, run-queue
//! wait and context switches per operation, the IPIs on the sides' CPUs,
//! and what is left of the operation's time, so the times add up.

use crate::format::{case_label, human};
use crate::model::{CaseResult, Explain};
use crate::scenario::common::explain::{
    ComponentSpec, CALL_IPI, INVOLUNTARY_CSW, KERNEL, RESCHED_IPI, RUN_QUEUE, USER, VOLUNTARY_CSW,
};

/// "  CASE explain (initiator): user 0.2 us, kernel 1.9 us, run-queue 0.3 us,
/// 1.0 csw, 1.1 IPIs/op; unattributed 8.7 us", or nothing without an
/// explanation.
pub(crate) fn line(r: &CaseResult) -> Option<String> {
    let e = r.explain.as_ref()?;
    let ns = |specs: &[&ComponentSpec]| human(sum(e, specs), "ns");
    let mut parts = vec![
        format!("user {}", ns(&[&USER])),
        format!("kernel {}", ns(&[&KERNEL])),
    ];
    if e.components.iter().any(|c| c.name == RUN_QUEUE.name) {
        parts.push(format!("run-queue {}", ns(&[&RUN_QUEUE])));
    }
    let csw = sum(e, &[&VOLUNTARY_CSW, &INVOLUNTARY_CSW]);
    parts.push(format!("{csw:.1} csw"));
    parts.push(format!("{:.1} IPIs/op", sum(e, &[&RESCHED_IPI, &CALL_IPI])));
    let side = e.unattributed.side.as_deref().unwrap_or("all sides");
    Some(format!(
        "  {} explain ({side}): {}; unattributed {}",
        case_label(&r.case),
        parts.join(", "),
        human(e.unattributed.value, "ns")
    ))
}

/// The named components of the measuring side (the one `unattributed` is
/// computed for), plus those of no side (the CPUs' IPIs), added up.
fn sum(e: &Explain, specs: &[&ComponentSpec]) -> f64 {
    let measuring = e.unattributed.side.as_deref();
    e.components
        .iter()
        .filter(|c| specs.iter().any(|s| s.name == c.name))
        .filter(|c| c.side.is_none() || c.side.as_deref() == measuring)
        .map(|c| c.value)
        .sum()
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
        });
        assert_eq!(
            line(&r).unwrap(),
            "  pipe/same-cpu explain (initiator): user 1.00 us, kernel 1.50 us, 1.0 csw, \
             2.0 IPIs/op; unattributed 2.50 us"
        );
    }
}
