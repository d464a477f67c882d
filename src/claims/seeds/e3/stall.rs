//! The E3 stall test, the one place that decides whether the original's
//! FIFO stalls appear: with reader and writer contending, is the slowest
//! call over 1 ms and the reader's mean several times what it is alone?
//! Both signs make a stall, neither makes none, one alone is unclear;
//! either sign within its uncertainty of its threshold makes the answer
//! unclear near the boundary. E3-fifo-stalls, E3-udp-no-stall and
//! E3-eventfd-no-stall are judged by it, and so is the `contention`
//! finding (`contention.rs`), so the two never disagree about one run.

use crate::claims::engine::estimate::Estimate;
use crate::claims::engine::margin::{self, Bands, Margin, Uncertainty};
use crate::claims::engine::outcome::{Found, Outcome};
use crate::claims::engine::select::Select;
use crate::claims::engine::value::{Quantity, Value};
use crate::format::{human, ratio};
use crate::model::{CaseResult, ClaimStatus};
use crate::scenario::contention::{READER, WRITER};
use crate::scenario::MetricSpec;

/// The original's "frequent calls over 1 ms".
const SLOW_NS: f64 = 1e6;
/// "Several times the uncontended mean".
const MEAN_FACTOR: f64 = 3.0;

/// The test's answer on one mechanism.
pub(crate) struct StallTest {
    /// Both signs (true), neither (false), or unclear (None).
    pub(crate) stalls: Option<bool>,
    pub(crate) margin: Margin,
    /// "fifo both sides: reader mean 5.1 us = 9.8x the reader alone ...".
    pub(crate) figure: String,
}

fn value(r: &CaseResult, metric: &'static MetricSpec) -> Found<Value> {
    Quantity::Metric(metric).of(r)
}

/// Whether a sign is present in `e` (at or above `edge`), with its margin.
fn sign(e: Estimate, edge: f64, inputs: Vec<Uncertainty>) -> (bool, Margin) {
    let bands = Bands {
        edges: &[edge],
        verdicts: &[ClaimStatus::DoesNotHold, ClaimStatus::Holds],
    };
    let (_, m) = margin::judge(e, &bands, inputs);
    (e.value >= edge, m)
}

/// The stall test of the contended case `both` against the reader alone.
pub(crate) fn test(both: &CaseResult, alone: &CaseResult) -> Found<StallTest> {
    let mech = both.param_str("mech").unwrap_or_default();
    let alone_mean = value(alone, &READER.mean_ns)?;
    let both_mean = value(both, &READER.mean_ns)?;
    let max_r = value(both, &READER.max_ns)?;
    let max_w = value(both, &WRITER.max_ns)?;
    let max = if max_r.value >= max_w.value {
        max_r
    } else {
        max_w
    };
    let factor = both_mean.over(&alone_mean);
    let (slow, slow_margin) = sign(
        max.estimate(),
        SLOW_NS,
        vec![max.uncertainty("slowest call")],
    );
    let inputs = vec![
        both_mean.uncertainty("contended"),
        alone_mean.uncertainty("alone"),
    ];
    let (mean, mean_margin) = sign(factor, MEAN_FACTOR, inputs);
    let figure = format!(
        "{mech} both sides: reader mean {} = {} the reader alone ({}), slowest call {} (stall: over 1 ms and at least {})",
        human(both_mean.value, "ns"),
        ratio(factor.value),
        human(alone_mean.value, "ns"),
        human(max.value, "ns"),
        ratio(MEAN_FACTOR)
    );
    let margin = margin::weakest(slow_margin, mean_margin);
    let stalls = match (slow, mean) {
        _ if margin.near => None,
        (true, true) => Some(true),
        (false, false) => Some(false),
        _ => None,
    };
    Ok(StallTest {
        stalls,
        margin,
        figure,
    })
}

/// The claim's verdict when it expects stalls (`expect`) or none, over the
/// contended case and the reader alone (`of`, in that order).
fn judge(results: &[CaseResult], of: &[Select], expect: bool) -> Found<Outcome> {
    let t = test(of[0].one(results)?, of[1].one(results)?)?;
    let status = match t.stalls {
        Some(s) if s == expect => ClaimStatus::Holds,
        Some(_) => ClaimStatus::DoesNotHold,
        None => ClaimStatus::Inconclusive,
    };
    Ok(Outcome {
        status,
        figure: t.figure,
        margin: Some(t.margin),
        estimate: None,
    })
}

/// E3-fifo-stalls: the stalls appear.
pub(crate) fn stalls(results: &[CaseResult], of: &[Select]) -> Found<Outcome> {
    judge(results, of, true)
}

/// E3-udp-no-stall, E3-eventfd-no-stall: they do not.
pub(crate) fn no_stall(results: &[CaseResult], of: &[Select]) -> Found<Outcome> {
    judge(results, of, false)
}
