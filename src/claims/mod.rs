//! What a run concludes from its results, through one system (`rule.rs`):
//! every conclusion is a rule over results that yields a verdict, a
//! sentence and its evidence. A scenario's finding lines are such rules;
//! so are the classic claims (EXPERIMENTS.md, E1-E6), which also carry the
//! original's statement and figure: each claim is data (`list/`) with a
//! rule kind (`rules.rs`) that says `holds`, `does not hold` or
//! `inconclusive`. A missing, failed or unsupported result makes a claim
//! inconclusive with the reason, never `holds`. Every verdict carries its
//! margin (`margin.rs`): a figure within its uncertainty of the rule's
//! boundary is `inconclusive: near the boundary`, with what would decide
//! it. Where the store holds this host's earlier runs, a figure is judged
//! over them and this run (`pooled.rs`), so a verdict does not flip with
//! the host's phase. An original's absolute figure is read relative to this machine's
//! `limits` (`relative.rs`). A claim may also name its kernel evidence
//! (`kernel.rs`), which never changes the verdict.

pub(crate) mod across;
mod devnull;
mod drift;
mod each;
mod form;
pub mod kernel;
mod list;
mod margin;
pub mod observed;
pub mod pick;
mod pooled;
mod probed;
mod probed_new;
pub mod relative;
pub(crate) mod render;
mod restated;
pub(crate) mod rule;
pub mod rules;
mod scope;
mod similar;
mod stall;
mod sweep;

#[cfg(test)]
mod tests;

pub use list::CLAIMS;

use crate::model::{CaseResult, ClaimVerdict, Verdict};
use rules::Rule;

/// One classic claim, as data.
pub struct Claim {
    /// e.g. "E5-poll-linear".
    pub id: &'static str,
    /// "E1".."E6".
    pub(crate) source: &'static str,
    /// The claim as the original stated it.
    pub(crate) sentence: &'static str,
    /// The original's figure.
    pub(crate) original: &'static str,
    /// The scenario whose results it reads.
    pub scenario: &'static str,
    pub rule: Rule,
    /// The smallest effect the claim must resolve, relative (0.02: a 2%
    /// difference); the precision each of its inputs needs is half of it.
    pub(crate) resolve: f64,
    /// What the cases' kernel profiles show beside the verdict.
    pub(crate) kernel: kernel::Evidence,
}

/// The claims marked *myth?* in the seeds' list (`CLAIMS.md`): statements
/// that may well be wrong today, measured like the rest. Listed by id, so a
/// claim's entry in `list/` stays a plain struct literal.
const MYTHS: &[&str] = &[
    "E4-nodelay-beats-cork",
    "E4-cork-nodelay-exclusive",
    "E5-select-needs-rebuild",
    "E5-epoll-mmap",
];

/// Whether the claim `id` is one of the *myth?* rows.
pub(crate) fn is_myth(id: &str) -> bool {
    MYTHS.contains(&id)
}

impl Claim {
    /// This claim answered over `results`, as the run stores it.
    pub fn answer(&'static self, results: &[CaseResult]) -> ClaimVerdict {
        use rule::Rule;
        rule::Stated(self)
            .conclude(results)
            .iter()
            .find_map(rule::Conclusion::claim_verdict)
            .expect("a claim always concludes with a claim verdict")
    }
}

impl Claim {
    /// The precision (relative half-width of the 95% interval of the
    /// median) each result this claim reads needs for it to resolve its
    /// smallest effect. The seeds suites take further batches of a case
    /// until it is reached, within `--precision`'s caps.
    pub(crate) fn precision(&self) -> f64 {
        self.resolve / 2.0
    }
}

/// The precision a case needs for every claim that reads it: the finest
/// of theirs, or None when no claim reads the case. The seeds suites aim
/// each case's further batches of repetitions at it (`runner::precision`).
pub(crate) fn required_precision(case: &CaseResult) -> Option<f64> {
    CLAIMS
        .iter()
        .filter(|c| c.rule.reads(case))
        .map(|c| c.precision())
        .min_by(f64::total_cmp)
}

/// The classic claims answered over `results`: those whose cases the run
/// of `targets` (its suites and scenarios) ran as they specify (`scope`).
pub(crate) fn evaluate(results: &[CaseResult], targets: Option<&str>) -> Vec<ClaimVerdict> {
    let stand_ins = scope::stands_in(targets);
    rule::conclude(results)
        .iter()
        .filter(|c| {
            c.claim
                .is_none_or(|claim| scope::left_out(&claim.rule, results, stand_ins).is_none())
        })
        .filter_map(rule::Conclusion::claim_verdict)
        .collect()
}

/// The claims a run of `targets` left out, each with why.
pub(crate) fn left_out(
    results: &[CaseResult],
    targets: Option<&str>,
) -> Vec<(&'static str, String)> {
    let stand_ins = scope::stands_in(targets);
    CLAIMS
        .iter()
        .filter_map(|c| Some((c.id, scope::left_out(&c.rule, results, stand_ins)?)))
        .collect()
}

/// The scenarios' finding lines over `results`, in order of appearance.
pub(crate) fn verdicts(results: &[CaseResult]) -> Vec<Verdict> {
    rule::conclude(results)
        .iter()
        .filter_map(rule::Conclusion::verdict)
        .collect()
}
