//! The kinds of rule a claim can use, and how each decides `holds`, `does
//! not hold` or `inconclusive` from the results. A rule weighs a figure
//! with its 95% interval against its boundaries (`margin.rs`): when the
//! interval reaches a boundary the answer is `inconclusive: near the
//! boundary`. A missing, failed or
//! unsupported result never reaches a rule's arithmetic (`pick` returns the
//! reason instead), so it can only make a claim `inconclusive`.

use super::margin::{self, Bands, Estimate, Margin, Precision};
use super::pick::{num, Found, Quantity, Select, Value};
use super::sweep;
use super::{devnull, each, observed, relative, similar, stall};
use crate::model::{CaseResult, ClaimStatus};

/// A verdict, the figure that decided it and, for a rule that weighs a
/// figure against a boundary, its margin (`margin.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub(crate) status: ClaimStatus,
    pub(crate) figure: String,
    pub(crate) margin: Option<Margin>,
}

impl Outcome {
    /// A verdict without a margin: from counts, or why nothing was weighed.
    pub(crate) fn new(status: ClaimStatus, figure: String) -> Outcome {
        Outcome {
            status,
            figure,
            margin: None,
        }
    }

    /// The verdict `bands` give the estimate `e`, with its margin; the
    /// figure gets the estimate's interval appended, and the runs it is
    /// the median of when judged over this host's runs.
    pub(crate) fn judged(
        e: Estimate,
        bands: &Bands,
        inputs: Vec<Precision>,
        figure: String,
        show: fn(f64) -> String,
    ) -> Outcome {
        let over = inputs.iter().map(|p| p.judged_over).max().unwrap_or(1);
        let (status, margin) = margin::judge(e, bands, inputs);
        let interval = format!("95% interval {}-{}", show(e.lo), show(e.hi));
        let figure = match over > 1 {
            true => format!("{figure}; the median of {over} runs of this host, {interval}"),
            false => format!("{figure}; {interval}"),
        };
        Outcome {
            status,
            figure,
            margin: Some(margin),
        }
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
    /// `a` and `b` are about the same: `a / b` lies within `1 ± tolerance`
    /// (0.1 = 10%) over its interval (`similar.rs`).
    Similar {
        q: Quantity,
        a: Select,
        b: Select,
        tolerance: f64,
    },
    /// Every one of `rules` holds (`each.rs`): one statement about several
    /// figures.
    Each { rules: &'static [Rule] },
    /// The value lies in `lo..hi` over its whole spread.
    Within {
        q: Quantity,
        at: Select,
        lo: f64,
        hi: f64,
    },
    /// The original's absolute band `lo..hi` (in `q`'s unit) read relative
    /// to this machine: `q` over this run's `limits` reference point lies
    /// in the band divided by what that reference cost on the original's
    /// hardware (`relative.rs`).
    Relative {
        q: Quantity,
        at: Select,
        reference: relative::Reference,
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
    /// `judge` reads the observations of probe check `check`
    /// (`observed.rs`); `form` says which form its figure takes, and why.
    Observed {
        check: &'static str,
        judge: observed::Judge,
        form: &'static str,
    },
}

impl Rule {
    /// The verdict on `results`; anything missing makes it inconclusive.
    pub(crate) fn decide(&self, results: &[CaseResult]) -> Outcome {
        self.try_decide(results)
            .unwrap_or_else(|why| Outcome::new(ClaimStatus::Inconclusive, why))
    }

    pub(crate) fn try_decide(&self, results: &[CaseResult]) -> Found<Outcome> {
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
            Rule::Similar { q, a, b, tolerance } => {
                let (ra, rb) = (a.one(results)?, b.one(results)?);
                let (va, vb) = (q.of(ra)?, q.of(rb)?);
                similar::similar(&a.name(ra), &va, &b.name(rb), &vb, tolerance)
            }
            Rule::Each { rules } => each::each(results, rules),
            Rule::Within { q, at, lo, hi } => {
                let r = at.one(results)?;
                Ok(within(&at.name(r), &q.of(r)?, lo, hi))
            }
            Rule::Relative {
                q,
                at,
                reference,
                lo,
                hi,
            } => relative::decide(results, q, &at, &reference, (lo, hi)),
            Rule::Linear { q, at, x } => sweep::linear(&sweep::points(results, &at, q, x)?, &at, x),
            Rule::Flat { q, at, x } => sweep::flat(&sweep::points(results, &at, q, x)?, &at, x),
            Rule::Stalls { mech, expect } => stall::stalls(results, mech, expect),
            Rule::NotRead { at } => devnull::not_read(at.one(results)?),
            Rule::AtimeChanged { at } => devnull::atime_changed(at.one(results)?),
            Rule::Observed { check, judge, .. } => observed::decide(results, check, judge),
        }
    }
}

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
    let e = slow.over(fast);
    let figure = format!(
        "{fast_name} {} vs {slow_name} {}: {}",
        fast.text(),
        slow.text(),
        crate::format::ratio(e.value)
    );
    let (edges, verdicts) = at_least(factor, fails_below);
    let bands = Bands {
        edges: &edges,
        verdicts: &verdicts,
    };
    Ok(ratio_judged(
        e,
        &bands,
        [(fast_name, fast), (slow_name, slow)],
        figure,
    ))
}

/// The verdict `bands` give the ratio `e` of two named values, its inputs'
/// precisions those of the two.
pub(crate) fn ratio_judged(
    e: Estimate,
    bands: &Bands,
    values: [(&str, &Value); 2],
    figure: String,
) -> Outcome {
    let inputs = values.iter().map(|(n, v)| v.precision(n)).collect();
    Outcome::judged(e, bands, inputs, figure, crate::format::ratio)
}

fn no_faster(a_name: &str, a: &Value, b_name: &str, b: &Value, tolerance: f64) -> Found<Outcome> {
    positive(a, a_name)?;
    positive(b, b_name)?;
    let e = b.over(a);
    let figure = format!(
        "{a_name} {} vs {b_name} {}: {a_name} is {} as fast (tolerance {:.0}%)",
        a.text(),
        b.text(),
        crate::format::ratio(e.value),
        tolerance * 100.0
    );
    let bands = Bands {
        edges: &[1.0 + tolerance],
        verdicts: &[ClaimStatus::Holds, ClaimStatus::DoesNotHold],
    };
    Ok(ratio_judged(e, &bands, [(a_name, a), (b_name, b)], figure))
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
    match hi.is_finite() {
        true => format!("{}-{}", num(lo), num(hi)),
        false => format!("at least {}", num(lo)),
    }
}

pub(crate) fn within(name: &str, v: &Value, lo: f64, hi: f64) -> Outcome {
    let figure = format!("{name} {} (the claim: {})", v.text(), range_text(lo, hi));
    let (edges, verdicts) = band(lo, hi);
    let bands = Bands {
        edges: &edges,
        verdicts: &verdicts,
    };
    Outcome::judged(v.estimate(), &bands, vec![v.precision(name)], figure, num)
}
