//! The E3 stall test, the one place that decides whether the original's
//! FIFO stalls appear: with reader and writer contending, is the slowest
//! call over 1 ms, the reader's mean several times what it is alone, and
//! does a side park (sleep) on the lock, as the original's sat in D state
//! on the pipe mutex? All three signs make a stall; any one clearly
//! absent rules a stall out (a slower mean without long calls is the cost
//! of contention; long calls and a slower mean without a side ever going
//! to sleep are time slices of a scheduler with more runnable tasks than
//! CPUs, which any mechanism shows beside a busy neighbour); the answer is
//! unclear only when a sign that would decide it lies within its
//! uncertainty of its threshold. E3-fifo-stalls, E3-udp-no-stall and
//! E3-eventfd-no-stall are judged by it, and so is the `contention`
//! finding (`contention.rs`), so the two never disagree about one run.

use crate::claims::engine::estimate::Estimate;
use crate::claims::engine::margin::{self, Bands, Margin, Uncertainty};
use crate::claims::engine::outcome::{Found, Outcome};
use crate::claims::engine::select::Select;
use crate::claims::engine::value::{Quantity, Value};
use crate::format::{human, ratio};
use crate::model::{CaseResult, ClaimStatus};
use crate::scenario::contention::{RoleMetrics, READER, WRITER};
use crate::scenario::MetricSpec;

/// The original's "frequent calls over 1 ms".
const SLOW_NS: f64 = 1e6;
/// "Several times the uncontended mean".
const MEAN_FACTOR: f64 = 3.0;
/// A side parks when at least one call in 10,000 sleeps: at the
/// original's 70% CPU and stalls of milliseconds, far more did; a
/// non-blocking call that is only preempted never sleeps.
pub(crate) const PARKS_PER_CALL: f64 = 1e-4;

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

/// The sleeps per call of `side`.
pub(crate) const fn parks(side: &'static RoleMetrics) -> Quantity {
    Quantity::Per(&side.voluntary_csw, &side.calls, " csw/call")
}

/// The larger of two values.
fn larger(a: Value, b: Value) -> Value {
    match a.value >= b.value {
        true => a,
        false => b,
    }
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
    let max = larger(value(both, &READER.max_ns)?, value(both, &WRITER.max_ns)?);
    let parked = larger(parks(&READER).of(both)?, parks(&WRITER).of(both)?);
    let factor = both_mean.over(&alone_mean);
    let (slow, slow_margin) = sign(
        max.estimate(),
        SLOW_NS,
        vec![max.uncertainty("slowest call")],
    );
    let inputs = both_mean.ratio_inputs("contended", &alone_mean, "alone");
    let (mean, mean_margin) = sign(factor, MEAN_FACTOR, inputs);
    let (parks, parks_margin) = sign(
        parked.estimate(),
        PARKS_PER_CALL,
        vec![parked.uncertainty("sleeps per call")],
    );
    let figure = format!(
        "{mech} both sides: reader mean {} = {} the reader alone ({}), slowest call {}, \
         {:.2} sleeps per 10,000 calls (stall: over 1 ms, at least {} and at least 1 sleep per 10,000 calls)",
        human(both_mean.value, "ns"),
        ratio(factor.value),
        human(alone_mean.value, "ns"),
        human(max.value, "ns"),
        parked.value * 1e4,
        ratio(MEAN_FACTOR)
    );
    let signs = [
        (slow, slow_margin),
        (mean, mean_margin),
        (parks, parks_margin),
    ];
    let (stalls, margin) = decide(signs);
    Ok(StallTest {
        stalls,
        margin,
        figure,
    })
}

/// Stalls when every sign is present, with the weakest one's margin; none
/// when a sign is absent, with the clearest absent one's margin; unclear
/// when that margin is near its threshold.
fn decide<const N: usize>(signs: [(bool, Margin); N]) -> (Option<bool>, Margin) {
    let (absent, present): (Vec<_>, Vec<_>) = signs.into_iter().partition(|(p, _)| !p);
    let clearest_absent = absent
        .into_iter()
        .map(|(_, m)| m)
        .max_by(|a, b| a.margin.total_cmp(&b.margin));
    let (stalls, margin) = match clearest_absent {
        Some(m) => (false, m),
        None => {
            let weakest = present.into_iter().map(|(_, m)| m).reduce(margin::weakest);
            (true, weakest.expect("a stall test has signs"))
        }
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
