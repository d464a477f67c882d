//! The E3 stall test on `contention` results: with reader and writer
//! contending, is the slowest call over 1 ms and the reader's mean several
//! times what it is alone? Both signs make a stall, neither makes none, one
//! alone is inconclusive; either sign within its uncertainty of its
//! threshold makes the verdict inconclusive near the boundary.

use super::margin::{self, Bands, Estimate, Margin, Precision};
use super::pick::{Found, Quantity, Select, Value};
use super::rules::Outcome;
use crate::format::{human, ratio};
use crate::model::{CaseResult, ClaimStatus};
use crate::scenario::contention::{READER, TEST, WRITER};
use crate::scenario::MetricSpec;

/// The original's "frequent calls over 1 ms".
const SLOW_NS: f64 = 1e6;
/// "Several times the uncontended mean".
const MEAN_FACTOR: f64 = 3.0;

/// The ok `contention` result of `mech` in `test`, or why there is none.
fn case<'a>(results: &'a [CaseResult], mech: &str, test: &str) -> Found<&'a CaseResult> {
    let params: &'static [(&'static str, &'static str)] = match test {
        "both" => &[(TEST.name, "both")],
        _ => &[(TEST.name, "reader-only")],
    };
    let sel = Select {
        label: "",
        scenario: "contention",
        params,
        nearest: None,
    };
    sel.all(results)?
        .into_iter()
        .find(|r| r.param_str("mech").as_deref() == Some(mech))
        .ok_or_else(|| format!("no ok contention result mech={mech} test={test} in this run"))
}

/// The case whose reader the stall test weighs against the reader alone.
pub(super) fn contended<'a>(results: &'a [CaseResult], mech: &str) -> Found<&'a CaseResult> {
    case(results, mech, "both")
}

fn value(
    results: &[CaseResult],
    mech: &str,
    test: &str,
    metric: &'static MetricSpec,
) -> Found<Value> {
    Quantity::Metric(metric).of(case(results, mech, test)?)
}

/// Whether a sign is present in `e` (at or above `edge`), with its margin.
fn sign(e: Estimate, edge: f64, inputs: Vec<Precision>) -> (bool, Margin) {
    let bands = Bands {
        edges: &[edge],
        verdicts: &[ClaimStatus::DoesNotHold, ClaimStatus::Holds],
    };
    let (_, m) = margin::judge(e, &bands, inputs);
    (e.value >= edge, m)
}

pub(crate) fn stalls(results: &[CaseResult], mech: &str, expect: bool) -> Found<Outcome> {
    let alone = value(results, mech, "reader-only", &READER.mean_ns)?;
    let both = value(results, mech, "both", &READER.mean_ns)?;
    let max_r = value(results, mech, "both", &READER.max_ns)?;
    let max_w = value(results, mech, "both", &WRITER.max_ns)?;
    let max = if max_r.value >= max_w.value {
        max_r
    } else {
        max_w
    };
    let factor = both.over(&alone);
    let (slow, slow_margin) = sign(max.estimate(), SLOW_NS, vec![max.precision("slowest call")]);
    let inputs = vec![both.precision("contended"), alone.precision("alone")];
    let (mean, mean_margin) = sign(factor, MEAN_FACTOR, inputs);
    let figure = format!(
        "{mech} both sides: reader mean {} = {} the reader alone ({}), slowest call {} (stall: over 1 ms and at least {})",
        human(both.value, "ns"),
        ratio(factor.value),
        human(alone.value, "ns"),
        human(max.value, "ns"),
        ratio(MEAN_FACTOR)
    );
    let margin = margin::weakest(slow_margin, mean_margin);
    let count = [slow, mean].iter().filter(|s| **s).count();
    let status = match (count, expect) {
        _ if margin.near => ClaimStatus::Inconclusive,
        (2, true) | (0, false) => ClaimStatus::Holds,
        (0, true) | (2, false) => ClaimStatus::DoesNotHold,
        _ => ClaimStatus::Inconclusive,
    };
    Ok(Outcome {
        status,
        figure,
        margin: Some(margin),
    })
}
