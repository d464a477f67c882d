//! The rule kinds that weigh two values of one run against each other, or
//! one value against a band: `a` faster than `b` by a factor, `a` no
//! faster than `b`, `a` about the same as `b` (the ratio within
//! `1 ± tolerance`), a value within `lo..hi`. Each weighs the ratio (or the
//! value) with its 95% interval against its boundaries (`margin.rs`); an
//! interval that reaches a boundary is `inconclusive: near the boundary`.

use super::estimate::Estimate;
use super::margin::Bands;
use super::numbers::num;
use super::outcome::{Found, Outcome};
use super::value::Value;
use crate::model::ClaimStatus;

pub(crate) fn positive(v: &Value, name: &str) -> Found<()> {
    if v.lo > 0.0 && v.value > 0.0 {
        return Ok(());
    }
    Err(format!("{name} is {}: too small to compare", v.text()))
}

/// Holds above `holds_from`, does not hold below `fails_below`, and is
/// inconclusive between the two.
fn at_least(holds_from: f64, fails_below: f64) -> (Vec<f64>, Vec<ClaimStatus>) {
    use ClaimStatus::{DoesNotHold, Holds, Inconclusive};
    match fails_below < holds_from {
        true => (
            vec![fails_below, holds_from],
            vec![DoesNotHold, Inconclusive, Holds],
        ),
        false => (vec![holds_from], vec![DoesNotHold, Holds]),
    }
}

/// Two named values of one run, in the order the figure names them.
pub(crate) type Pair<'a> = [(&'a str, &'a Value); 2];

/// The ratio `of` the pair weighed against `bands`, its figure the two
/// values followed by `tail` (given the ratio); both must be above zero.
fn weigh(
    pair: Pair,
    of: fn(&Value, &Value) -> Estimate,
    (edges, verdicts): (&[f64], &[ClaimStatus]),
    tail: impl FnOnce(f64) -> String,
) -> Found<Outcome> {
    pair.iter().try_for_each(|(name, v)| positive(v, name))?;
    let [(a_name, a), (b_name, b)] = pair;
    let e = of(a, b);
    let figure = format!(
        "{a_name} {} vs {b_name} {}: {}",
        a.text(),
        b.text(),
        tail(e.value)
    );
    Ok(ratio_judged(e, &Bands { edges, verdicts }, pair, figure))
}

/// The first of `pair` (fast) has the lower value by at least `factor`.
pub(crate) fn faster(pair: Pair, factor: f64, fails_below: f64) -> Found<Outcome> {
    let (edges, verdicts) = at_least(factor, fails_below);
    let slow_over_fast = |fast: &Value, slow: &Value| slow.over(fast);
    weigh(
        pair,
        slow_over_fast,
        (&edges, &verdicts),
        crate::format::ratio,
    )
}

/// The verdict `bands` give the ratio `e` of two named values, its inputs'
/// uncertainties those of the two.
pub(crate) fn ratio_judged(
    e: Estimate,
    bands: &Bands,
    values: [(&str, &Value); 2],
    figure: String,
) -> Outcome {
    let [(a_name, a), (b_name, b)] = values;
    let inputs = a.ratio_inputs(a_name, b, b_name);
    Outcome::judged(e, bands, inputs, figure, crate::format::ratio)
}

/// The first of `pair` is no faster than the second, within `tolerance`.
pub(crate) fn no_faster(pair: Pair, tolerance: f64) -> Found<Outcome> {
    let a_name = pair[0].0;
    let tail = |ratio: f64| {
        format!(
            "{a_name} is {} as fast (tolerance {:.0}%)",
            crate::format::ratio(ratio),
            tolerance * 100.0
        )
    };
    let verdicts = [ClaimStatus::Holds, ClaimStatus::DoesNotHold];
    let b_over_a = |a: &Value, b: &Value| b.over(a);
    weigh(pair, b_over_a, (&[1.0 + tolerance], &verdicts), tail)
}

/// Does not hold below `lo`, holds in `lo..hi`, does not hold from `hi`.
pub(crate) fn band(lo: f64, hi: f64) -> (Vec<f64>, Vec<ClaimStatus>) {
    use ClaimStatus::{DoesNotHold, Holds};
    match hi.is_finite() {
        true => (vec![lo, hi], vec![DoesNotHold, Holds, DoesNotHold]),
        false => (vec![lo], vec![DoesNotHold, Holds]),
    }
}

/// "10.0-100" or "at least 1.00".
pub(crate) fn range_text(lo: f64, hi: f64) -> String {
    shown_range(lo, hi, num)
}

/// "1.00-3.00", or "at least 1.00", each end shown by `show`.
fn shown_range(lo: f64, hi: f64, show: fn(f64) -> String) -> String {
    match hi.is_finite() {
        true => format!("{}-{}", show(lo), show(hi)),
        false => format!("at least {}", show(lo)),
    }
}

pub(crate) fn within(name: &str, v: &Value, lo: f64, hi: f64) -> Outcome {
    let show: fn(f64) -> String = match v.unit.trim() {
        "ns" => |x| crate::format::human(x, "ns"),
        _ => num,
    };
    let figure = format!(
        "{name} {} (the claim: {})",
        v.text(),
        shown_range(lo, hi, show)
    );
    let (edges, verdicts) = band(lo, hi);
    let bands = Bands {
        edges: &edges,
        verdicts: &verdicts,
    };
    Outcome::judged(
        v.estimate(),
        &bands,
        vec![v.uncertainty(name)],
        figure,
        show,
    )
}

/// The ratio of `pair` (lower is faster) weighed against `1 ± tolerance`.
pub(crate) fn similar(pair: Pair, tolerance: f64) -> Found<Outcome> {
    use ClaimStatus::{DoesNotHold, Holds};
    let (lo, hi) = (1.0 - tolerance, 1.0 + tolerance);
    let tail = |value: f64| {
        let ratio = crate::format::ratio;
        format!(
            "{} (about the same: {}-{})",
            ratio(value),
            ratio(lo),
            ratio(hi)
        )
    };
    let verdicts = [DoesNotHold, Holds, DoesNotHold];
    weigh(pair, |a, b| a.over(b), (&[lo, hi], &verdicts), tail)
}
