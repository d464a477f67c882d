//! The E3 stall test, the one place that decides whether the original's
//! FIFO stalls appear: with reader and writer contending, is the slowest
//! call over 1 ms and the reader's mean several times what it is alone?
//! Both signs make a stall; either one clearly absent rules a stall out
//! (a slower mean without long calls is the cost of contention, and a few
//! long calls without a slower mean are the scheduler's time slices, not
//! the original's stalls); the answer is unclear only when a sign that
//! would decide it lies within its uncertainty of its threshold. E3-fifo-stalls, E3-udp-no-stall and
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
    let inputs = both_mean.ratio_inputs("contended", &alone_mean, "alone");
    let (mean, mean_margin) = sign(factor, MEAN_FACTOR, inputs);
    let figure = format!(
        "{mech} both sides: reader mean {} = {} the reader alone ({}), slowest call {} (stall: over 1 ms and at least {})",
        human(both_mean.value, "ns"),
        ratio(factor.value),
        human(alone_mean.value, "ns"),
        human(max.value, "ns"),
        ratio(MEAN_FACTOR)
    );
    let (stalls, margin) = decide([(slow, slow_margin), (mean, mean_margin)]);
    Ok(StallTest {
        stalls,
        margin,
        figure,
    })
}

/// Stalls when both signs are present, with the weaker one's margin; none
/// when a sign is absent, with the clearest absent one's margin; unclear
/// when that margin is near its threshold.
fn decide(signs: [(bool, Margin); 2]) -> (Option<bool>, Margin) {
    let [(a, a_margin), (b, b_margin)] = signs;
    let (stalls, margin) = match (a, b) {
        (true, true) => (true, margin::weakest(a_margin, b_margin)),
        (false, true) => (false, a_margin),
        (true, false) => (false, b_margin),
        (false, false) => match a_margin.margin >= b_margin.margin {
            true => (false, a_margin),
            false => (false, b_margin),
        },
    };
    ((!margin.near).then_some(stalls), margin)
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
        weighed: None,
        parts: Vec::new(),
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
