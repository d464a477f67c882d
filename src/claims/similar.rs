//! The rule kind for "about the same" claims (`Rule::Similar`): the ratio
//! of two results of one run lies within `1 ± tolerance`. It holds when the
//! ratio's whole 95% interval lies inside the band, does not hold when the
//! figure lies outside it, and a figure whose interval reaches either edge
//! is `inconclusive: near the boundary` (`margin.rs`).

use super::margin::Bands;
use super::pick::{Found, Value};
use super::rules::{positive, Outcome};
use crate::model::ClaimStatus;

/// The ratio `a / b` (lower is faster) weighed against `1 ± tolerance`.
pub(crate) fn similar(
    a_name: &str,
    a: &Value,
    b_name: &str,
    b: &Value,
    tolerance: f64,
) -> Found<Outcome> {
    use ClaimStatus::{DoesNotHold, Holds};
    positive(a, a_name)?;
    positive(b, b_name)?;
    let e = a.over(b);
    let (lo, hi) = (1.0 - tolerance, 1.0 + tolerance);
    let figure = format!(
        "{a_name} {} vs {b_name} {}: {} (about the same: {}-{})",
        a.text(),
        b.text(),
        crate::format::ratio(e.value),
        crate::format::ratio(lo),
        crate::format::ratio(hi),
    );
    let bands = Bands {
        edges: &[lo, hi],
        verdicts: &[DoesNotHold, Holds, DoesNotHold],
    };
    Ok(super::rules::ratio_judged(
        e,
        &bands,
        [(a_name, a), (b_name, b)],
        figure,
    ))
}
