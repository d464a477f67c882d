//! The kinds of rule a claim can use, and how each decides `holds`, `does
//! not hold` or `inconclusive` from the results. A rule weighs a figure
//! with its 95% interval against its boundaries (`margin.rs`): when the
//! interval reaches a boundary the answer is `inconclusive: near the
//! boundary`. A missing, failed or unsupported result never reaches a
//! rule's arithmetic (`select.rs` returns the reason instead), so it can
//! only make a claim `inconclusive`. A test that belongs to one experiment
//! is a judge function of its seed (`Rule::Judged`, `Rule::Observed`),
//! never a kind of its own.

use super::compare::{faster, no_faster, similar, within};
use super::observed::CheckJudge;
use super::outcome::{Found, Outcome};
use super::relative::Reference;
use super::select::Select;
use super::value::Quantity;
use super::{each, observed, relative, sweep};
use crate::model::{CaseResult, ClaimStatus};

/// A seed's own test over the results of `of` (the selections it reads,
/// which it is handed back).
pub type CaseJudge = fn(&[CaseResult], &[Select]) -> Found<Outcome>;

#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// `fast` has the lower `q` (a time or a cost) by at least `factor`
    /// (slow/fast) over the whole spread; does not hold when even the most
    /// favourable pairing of repetitions is below `fails_below`. A claim
    /// of a difference with no figure ("slightly faster") sets both to
    /// 1 + its resolution: within that band the two are about the same,
    /// and the claim does not hold.
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
    /// (0.1 = 10%) over its interval.
    Similar {
        q: Quantity,
        a: Select,
        b: Select,
        tolerance: f64,
    },
    /// Every one of `rules` holds (`each.rs`): one statement about several
    /// figures.
    Each { rules: &'static [Rule] },
    /// The value lies in `lo..hi` over its whole spread; `why` says why
    /// an absolute band fits the claim (its form).
    Within {
        q: Quantity,
        at: Select,
        lo: f64,
        hi: f64,
        why: &'static str,
    },
    /// The original's absolute band `lo..hi` (in `q`'s unit) read relative
    /// to this machine: `q` over this run's `limits` reference point lies
    /// in the band divided by what that reference cost on the original's
    /// hardware (`relative.rs`).
    Relative {
        q: Quantity,
        at: Select,
        reference: Reference,
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
    /// A seed's `judge` reads the results of `of`; `form` says which form
    /// its figure takes, and why.
    Judged {
        of: &'static [Select],
        judge: CaseJudge,
        form: &'static str,
    },
    /// A seed's `judge` reads the observations of probe check `check`
    /// (`observed.rs`); `form` says which form its figure takes, and why.
    Observed {
        check: &'static str,
        judge: CheckJudge,
        form: &'static str,
        /// The check times something (a spawn, a call's cost, a timer's
        /// delay): its verdict needs a CPU of the machine's own speed,
        /// which an emulated guest is not.
        timed: bool,
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
                faster(
                    [(&fast.name(rf), &f), (&slow.name(rs), &s)],
                    factor,
                    fails_below,
                )
            }
            Rule::NoFaster { q, a, b, tolerance } => {
                let (ra, rb) = (a.one(results)?, b.one(results)?);
                let va = q.of(ra)?;
                let vb = q.of(rb)?;
                no_faster([(&a.name(ra), &va), (&b.name(rb), &vb)], tolerance)
            }
            Rule::Similar { q, a, b, tolerance } => {
                let (ra, rb) = (a.one(results)?, b.one(results)?);
                let (va, vb) = (q.of(ra)?, q.of(rb)?);
                similar([(&a.name(ra), &va), (&b.name(rb), &vb)], tolerance)
            }
            Rule::Each { rules } => {
                let outcomes = rules.iter().map(|r| r.try_decide(results));
                Ok(each::combine(outcomes.collect::<Found<_>>()?))
            }
            Rule::Within { q, at, lo, hi, .. } => {
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
            Rule::Judged { of, judge, .. } => judge(results, of),
            Rule::Observed { check, judge, .. } => observed::decide(results, check, judge),
        }
    }
}
