//! The line under a table that says where an explained case's operation
//! went (`iolab run --explain`): both sides' CPU time and run-queue wait,
//! context switches and IPIs per operation, and what is left.

use crate::format::{case_label, human};
use crate::model::{CaseResult, Explain};
use crate::scenario::common::explain::{
    ComponentSpec, CALL_IPI, INVOLUNTARY_CSW, KERNEL, RESCHED_IPI, RUN_QUEUE, USER, VOLUNTARY_CSW,
};

/// "  CASE explain: user 0.2 us, kernel 1.9 us, run-queue 0.3 us, 2.0 csw,
/// 1.1 IPIs/op; unattributed 8.7 us", or nothing without an explanation.
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
    Some(format!(
        "  {} explain: {}; unattributed {}",
        case_label(&r.case),
        parts.join(", "),
        human(e.unattributed.value, "ns")
    ))
}

/// The named components added up over both sides.
fn sum(e: &Explain, specs: &[&ComponentSpec]) -> f64 {
    e.components
        .iter()
        .filter(|c| specs.iter().any(|s| s.name == c.name))
        .map(|c| c.value)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Component;

    fn component(name: &str, value: f64) -> Component {
        Component {
            name: name.into(),
            side: None,
            unit: "ns".into(),
            value,
        }
    }

    #[test]
    fn one_line_adds_both_sides_up() {
        let mut r = CaseResult::new("pingpong", "pipe/same-cpu", Default::default());
        assert_eq!(line(&r), None);
        r.explain = Some(Explain {
            ops: 10,
            op_ns: 5000.0,
            components: [
                "user_cpu",
                "user_cpu",
                "kernel_cpu",
                "voluntary_csw",
                "call_ipi",
            ]
            .iter()
            .map(|n| component(n, 1000.0))
            .collect(),
            missing: Vec::new(),
            unattributed: component("unattributed", 2000.0),
        });
        assert_eq!(
            line(&r).unwrap(),
            "  pipe/same-cpu explain: user 2.00 us, kernel 1.00 us, 1000.0 csw, \
             1000.0 IPIs/op; unattributed 2.00 us"
        );
    }
}
