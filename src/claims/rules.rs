//! The kinds of rule a claim can use, and how each decides `holds`, `does
//! not hold` or `inconclusive` from the results. Every rule decides on the
//! whole spread of repetitions, not only on medians: when the spread is
//! wider than the effect the answer is `inconclusive`. A missing, failed or
//! unsupported result never reaches a rule's arithmetic (`pick` returns the
//! reason instead), so it can only make a claim `inconclusive`.

use super::pick::{num, Found, Quantity, Select, Value};
use super::sweep;
use super::{devnull, stall};
use crate::measure::stats::clearly_differs;
use crate::model::{CaseResult, ClaimStatus};

/// A verdict and the figure that decided it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    pub(crate) status: ClaimStatus,
    pub(crate) figure: String,
}

impl Outcome {
    pub(crate) fn new(status: ClaimStatus, figure: String) -> Outcome {
        Outcome { status, figure }
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// `fast` has the lower `q` (a time or a cost) by at least `factor`
    /// (slow/fast) over the whole spread; does not hold when even the most
    /// favourable pairing of repetitions is below `fails_below`.
    Faster {
        q: Quantity,
        fast: Select,
        slow: Select,
        factor: f64,
        fails_below: f64,
    },
    /// `a` (lower `q` is faster) is no faster than `b`, within `tolerance`
    /// (0.1 = 10%).
    NoFaster {
        q: Quantity,
        a: Select,
        b: Select,
        tolerance: f64,
    },
    /// The value lies in `lo..hi` over its whole spread.
    Within {
        q: Quantity,
        at: Select,
        lo: f64,
        hi: f64,
    },
    /// `q` grows linearly with the parameter `x` over the sweep `at`.
    Linear {
        q: Quantity,
        at: Select,
        x: &'static str,
    },
    /// `q` stays flat over the sweep `at` of the parameter `x`.
    Flat {
        q: Quantity,
        at: Select,
        x: &'static str,
    },
    /// `contention` of mechanism `mech`: with both sides, max over 1 ms and
    /// mean several times the reader alone (`expect` true: it stalls).
    Stalls { mech: &'static str, expect: bool },
    /// The copy did not read the file (cold cache, pages resident after).
    NotRead { at: Select },
    /// The copy changed the file's access time in every repetition.
    AtimeChanged { at: Select },
}

impl Rule {
    /// The verdict on `results`; anything missing makes it inconclusive.
    pub(crate) fn decide(&self, results: &[CaseResult]) -> Outcome {
        self.try_decide(results)
            .unwrap_or_else(|why| Outcome::new(ClaimStatus::Inconclusive, why))
    }

    fn try_decide(&self, results: &[CaseResult]) -> Found<Outcome> {
        match *self {
            Rule::Faster {
                q,
                fast,
                slow,
                factor,
                fails_below,
            } => {
                let (rf, rs) = (fast.one(results)?, slow.one(results)?);
                let f = q.of(rf)?;
                let s = q.of(rs)?;
                faster(&fast.name(rf), &f, &slow.name(rs), &s, factor, fails_below)
            }
            Rule::NoFaster { q, a, b, tolerance } => {
                let (ra, rb) = (a.one(results)?, b.one(results)?);
                let va = q.of(ra)?;
                let vb = q.of(rb)?;
                no_faster(&a.name(ra), &va, &b.name(rb), &vb, tolerance)
            }
            Rule::Within { q, at, lo, hi } => {
                let r = at.one(results)?;
                Ok(within(&at.name(r), &q.of(r)?, lo, hi))
            }
            Rule::Linear { q, at, x } => sweep::linear(&sweep::points(results, &at, q, x)?, &at, x),
            Rule::Flat { q, at, x } => sweep::flat(&sweep::points(results, &at, q, x)?, &at, x),
            Rule::Stalls { mech, expect } => stall::stalls(results, mech, expect),
            Rule::NotRead { at } => devnull::not_read(at.one(results)?),
            Rule::AtimeChanged { at } => devnull::atime_changed(at.one(results)?),
        }
    }
}

fn positive(v: &Value, name: &str) -> Found<()> {
    if v.lo > 0.0 && v.value > 0.0 {
        return Ok(());
    }
    Err(format!("{name} is {}: too small to compare", v.text()))
}

/// The lowest and highest slow/fast ratio the repetitions allow.
fn ratio_range(fast: &Value, slow: &Value) -> (f64, f64) {
    (slow.lo / fast.hi, slow.hi / fast.lo)
}

pub(crate) fn faster(
    fast_name: &str,
    fast: &Value,
    slow_name: &str,
    slow: &Value,
    factor: f64,
    fails_below: f64,
) -> Found<Outcome> {
    positive(fast, fast_name)?;
    positive(slow, slow_name)?;
    let ratio = slow.value / fast.value;
    let (worst, best) = ratio_range(fast, slow);
    let figure = format!(
        "{fast_name} {} vs {slow_name} {}: {}",
        fast.text(),
        slow.text(),
        crate::format::ratio(ratio)
    );
    let (status, why) = if worst >= factor {
        (ClaimStatus::Holds, String::new())
    } else if best < fails_below {
        (ClaimStatus::DoesNotHold, String::new())
    } else if !clearly_differs(&fast.as_metric(), &slow.as_metric()) {
        (
            ClaimStatus::Inconclusive,
            "; the repetitions' spread is wider than the difference".to_string(),
        )
    } else {
        (
            ClaimStatus::Inconclusive,
            format!(
                "; between {} and {} over the spread",
                crate::format::ratio(worst),
                crate::format::ratio(best)
            ),
        )
    };
    Ok(Outcome::new(status, figure + &why))
}

fn no_faster(a_name: &str, a: &Value, b_name: &str, b: &Value, tolerance: f64) -> Found<Outcome> {
    positive(a, a_name)?;
    positive(b, b_name)?;
    let ratio = b.value / a.value;
    let (worst, _) = ratio_range(a, b);
    let figure = format!(
        "{a_name} {} vs {b_name} {}: {a_name} is {} as fast (tolerance {:.0}%)",
        a.text(),
        b.text(),
        crate::format::ratio(ratio),
        tolerance * 100.0
    );
    let status = if ratio <= 1.0 + tolerance {
        ClaimStatus::Holds
    } else if worst > 1.0 + tolerance {
        ClaimStatus::DoesNotHold
    } else {
        return Ok(Outcome::new(
            ClaimStatus::Inconclusive,
            figure + "; the repetitions' spread is wider than the difference",
        ));
    };
    Ok(Outcome::new(status, figure))
}

pub(crate) fn within(name: &str, v: &Value, lo: f64, hi: f64) -> Outcome {
    let range = if hi.is_finite() {
        format!("{}-{}", num(lo), num(hi))
    } else {
        format!("at least {}", num(lo))
    };
    let figure = format!("{name} {} (the claim: {range})", v.text());
    let status = if v.lo >= lo && v.hi < hi {
        ClaimStatus::Holds
    } else if v.hi < lo || v.lo >= hi {
        ClaimStatus::DoesNotHold
    } else {
        return Outcome::new(
            ClaimStatus::Inconclusive,
            figure + "; the spread straddles the bound",
        );
    };
    Outcome::new(status, figure)
}
