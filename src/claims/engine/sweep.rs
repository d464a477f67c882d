//! Rules over a parameter sweep (E5's idle connections): does the value
//! grow linearly with the parameter, or stay flat? The figure gives both
//! ends, their ratio (weighed with its interval against the rule's bounds)
//! and how the growth scales with the parameter in the sweep's upper part.

use super::estimate::Estimate;
use super::margin::{Bands, Uncertainty};
use super::numbers::num;
use super::outcome::{Found, Outcome};
use super::select::{param_f64, repeats, Point, Select};
use super::value::{Quantity, Value};
use crate::model::{CaseResult, ClaimStatus};

/// At least this many points make a sweep.
const MIN_POINTS: usize = 4;
/// Linear: the far end at least this multiple of the near end, and the
/// growth over the near end proportional to `x` in the sweep's upper part
/// (from a sixteenth of its largest `x`): the log-log slope of that
/// excess between these bounds (a doubling of `x` multiplies it by 1.6 to
/// 2.8). A least-squares r² bar decided it by the run instead: the far
/// point's own noise moved poll's r² from 0.93 to 1.00 here, around a
/// bar at 0.95, while its excess slope read 0.83-1.20 over six runs.
const LINEAR_GROWTH: f64 = 2.0;
const LINEAR_SLOPE: (f64, f64) = (2.0 / 3.0, 1.5);
/// Below this growth, or with an excess slope outside these bounds (growth
/// as slow as √x, or as fast as x²), the value did not grow linearly.
const NOT_GROWING: f64 = 1.25;
const NOT_LINEAR_SLOPE: (f64, f64) = (0.5, 2.0);
/// The upper part of a sweep: `x` from its largest over this.
const UPPER_PART: f64 = 16.0;
/// Flat: the far end within this multiple of the near end; beyond `STEEP` not flat.
const FLAT: f64 = 1.5;
const STEEP: f64 = 2.0;

/// One value per parameter point, sorted by the parameter. Points come
/// from one sweep: of results measured with different repetition counts
/// (a suite's sweep and an extra point), the set covering the most points,
/// so both ends were measured alike.
pub(crate) fn points(
    results: &[CaseResult],
    at: &Select,
    q: Quantity,
    x: &str,
) -> Found<Vec<(f64, Value)>> {
    let all = at.all(results)?;
    let reps_of_sweep = widest(&all, x);
    let mut found: Vec<(f64, f64, Value)> = Vec::new();
    for r in all.into_iter().filter(|r| repeats(r) == reps_of_sweep) {
        let px = param_f64(r, x).ok_or_else(|| format!("{} has no numeric {x}", r.case))?;
        let v = q.of(r)?;
        match found.iter_mut().find(|(fx, _, _)| *fx == px) {
            Some(slot) if slot.1 < repeats(r) => *slot = (px, repeats(r), v),
            Some(_) => {}
            None => found.push((px, repeats(r), v)),
        }
    }
    if found.len() < MIN_POINTS {
        return Err(format!(
            "{}: {} {x} points, at least {MIN_POINTS} needed",
            at.describe(),
            found.len()
        ));
    }
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(found.into_iter().map(|(x, _, v)| (x, v)).collect())
}

/// The two ends of the sweep `at` over `x` (of the results measured alike,
/// as `points` takes them): the cases its figure weighs against each other.
pub(crate) fn ends<'a, P: Point>(results: &'a [P], at: &Select, x: &str) -> Vec<&'a P> {
    let Ok(all) = at.all(results) else {
        return Vec::new();
    };
    let reps = widest(&all, x);
    let alike: Vec<&P> = all.into_iter().filter(|r| repeats(*r) == reps).collect();
    let by_x = |r: &&P| param_f64(*r, x).unwrap_or(f64::NAN);
    let near = alike.iter().min_by(|a, b| by_x(a).total_cmp(&by_x(b)));
    let far = alike.iter().max_by(|a, b| by_x(a).total_cmp(&by_x(b)));
    near.into_iter().chain(far).copied().collect()
}

/// The repetition count whose results cover the most distinct `x` points.
fn widest<P: Point>(results: &[&P], x: &str) -> f64 {
    let mut best = (0usize, 1.0);
    for r in results {
        let reps = repeats(*r);
        let mut xs: Vec<f64> = results
            .iter()
            .filter(|o| repeats(**o) == reps)
            .filter_map(|o| param_f64(*o, x))
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        if xs.len() > best.0 {
            best = (xs.len(), reps);
        }
    }
    best.1
}

/// The least-squares slope of log(y - y at the near end) over log(x) for
/// the sweep's upper points, with the first `x` of that part and how many
/// points it holds. 1 is growth proportional to `x`; NaN when the value
/// did not grow there.
fn excess_slope(points: &[(f64, f64)]) -> (f64, (f64, usize)) {
    let (_, y0) = points[0];
    let far = points[points.len() - 1].0;
    let upper: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, _)| *x > 0.0 && *x >= far / UPPER_PART)
        .map(|(x, y)| (x.ln(), (y - y0).ln()))
        .collect();
    let from = (upper.first().map_or(far, |p| p.0.exp()), upper.len());
    if upper.len() < 2 || upper.iter().any(|p| !p.1.is_finite()) {
        return (f64::NAN, from);
    }
    let n = upper.len() as f64;
    let mx = upper.iter().map(|p| p.0).sum::<f64>() / n;
    let my = upper.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = upper.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = upper.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (sxy / sxx, from)
}

/// "poll 6.3 s at 10240 idle vs 1.2 s at 0: 5.4x", with the growth (far
/// end over near end) as an estimate and the ends' uncertainties.
fn describe(points: &[(f64, Value)], at: &Select, x: &str) -> (Estimate, Vec<Uncertainty>, String) {
    let (x0, first) = &points[0];
    let (xn, last) = &points[points.len() - 1];
    let growth = last.over(first);
    let figure = format!(
        "{} {} at {x}={} vs {} at {x}={}: {}",
        at.label,
        last.text(),
        num(*xn),
        first.text(),
        num(*x0),
        crate::format::ratio(growth.value),
    );
    let inputs = last.ratio_inputs(
        &format!("{x}={}", num(*xn)),
        first,
        &format!("{x}={}", num(*x0)),
    );
    (growth, inputs, figure)
}

/// The growth's slope and "growth over idle=0 ~ idle^1.02 from idle=640 (5 points)".
fn scaling(points: &[(f64, Value)], x: &str) -> (f64, String) {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .map(|(x, v)| (*x, v.estimate().value))
        .collect();
    let (slope, (from, n)) = excess_slope(&xy);
    let x0 = num(xy[0].0);
    let text = match slope.is_nan() {
        true => format!(
            "not above {x}={x0}'s value at every point from {x}={} ({n} points)",
            num(from)
        ),
        false => format!(
            "growth over {x}={x0} ~ {x}^{slope:.2} from {x}={} ({n} points)",
            num(from)
        ),
    };
    (slope, text)
}

pub(crate) fn linear(points: &[(f64, Value)], at: &Select, x: &str) -> Found<Outcome> {
    use ClaimStatus::{DoesNotHold, Holds, Inconclusive};
    let (growth, inputs, figure) = describe(points, at, x);
    let (slope, scales) = scaling(points, x);
    let figure = format!("{figure}; {scales}");
    let bands = Bands {
        edges: &[NOT_GROWING, LINEAR_GROWTH],
        verdicts: &[DoesNotHold, Inconclusive, Holds],
    };
    let within = |(lo, hi): (f64, f64)| (lo..=hi).contains(&slope);
    let mut outcome = Outcome::judged(growth, &bands, inputs, figure, crate::format::ratio);
    let near = outcome.margin.as_ref().is_some_and(|m| m.near);
    outcome.status = match outcome.status {
        _ if near => Inconclusive,
        Holds if !within(NOT_LINEAR_SLOPE) => DoesNotHold,
        Holds if !within(LINEAR_SLOPE) => Inconclusive,
        status => status,
    };
    Ok(outcome)
}

pub(crate) fn flat(points: &[(f64, Value)], at: &Select, x: &str) -> Found<Outcome> {
    use ClaimStatus::{DoesNotHold, Holds, Inconclusive};
    let (growth, inputs, figure) = describe(points, at, x);
    let figure = format!("{figure} ({} points)", points.len());
    let bands = Bands {
        edges: &[FLAT, STEEP],
        verdicts: &[Holds, Inconclusive, DoesNotHold],
    };
    Ok(Outcome::judged(
        growth,
        &bands,
        inputs,
        figure,
        crate::format::ratio,
    ))
}
