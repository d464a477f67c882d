//! A ratio is only as good as the two conditions it compares. A VM's host
//! can slow its guest for minutes without the guest seeing any steal, and
//! a claim whose inputs were measured some in a slow phase and some in a
//! fast one compares the host's phases, not the mechanisms. The noise
//! guard's host-speed canary (`measure::canary`, the result's
//! `noise.canary_ns`) says at what speed each case ran: when the inputs of
//! a claim ran at speeds further apart than `MIXED`, and the figure lies
//! closer to its boundary than that factor (a 10x effect is not the host's
//! doing, a 1.6x one may be), a verdict either way is held back as
//! inconclusive, with the readings.

use super::margin::Margin;
use super::rules::Rule;
use crate::model::{CaseResult, Status};

/// The inputs' canary readings this much apart (slowest over fastest,
/// less one) hold the verdict back: about three times the spread of the
/// readings of one steady run here.
pub(crate) const MIXED: f64 = 0.3;

/// Why the verdict of `rule` over `results`, whose figure and boundary
/// `margin` gives, is held back, if it is.
pub(crate) fn mixed(rule: &Rule, results: &[CaseResult], margin: &Margin) -> Option<String> {
    let readings: Vec<(f64, &str)> = results
        .iter()
        .filter(|r| r.status == Status::Ok && rule.reads(r))
        .filter_map(|r| Some((r.noise.as_ref()?.canary_ns?, r.case.as_str())))
        .filter(|(ns, _)| *ns > 0.0)
        .collect();
    let fastest = readings.iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
    let slowest = readings.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    let apart = slowest.0 / fastest.0 - 1.0;
    let clear = (margin.value / margin.boundary)
        .abs()
        .max((margin.boundary / margin.value).abs());
    (apart > MIXED && clear.is_finite() && clear < 1.0 + apart).then(|| {
        format!(
            "not decided: its inputs ran at host speeds {:.0}% apart ({} at {:.0} ns, {} at {:.0} ns \
             per canary call; noise guard), so the figure may compare the host's phases",
            apart * 100.0,
            fastest.1,
            fastest.0,
            slowest.1,
            slowest.0
        )
    })
}

/// What would decide a claim held back by `mixed`.
pub(crate) const TO_DECIDE: &str =
    "measure again while the host's speed is steady (the noise guard grades each case)";
