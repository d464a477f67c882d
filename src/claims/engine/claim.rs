//! A claim as data: the original's statement and figure, the scenario it
//! reads, the rule that decides it, the smallest effect it must resolve
//! and, where a seed has one, the kernel evidence that stands beside its
//! verdict. Each seed lists its claims in its own file (`seeds/`).

use super::rule::Rule;
use super::select::Select;
use crate::model::CaseResult;

/// Where a claim is stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StatedBy {
    /// The claim the classic experiment itself was run to test (the
    /// seed's experiment in docs/experiments.md).
    Experiment,
    /// A further claim of the seed's write-up (docs/claims.md).
    WriteUp,
}

/// What a claim's kernel evidence reads: a seed's function over the
/// results of `of` (`run --profile`'s samples, `--explain`'s off-CPU
/// stacks), a sentence beside the verdict that never changes it.
#[derive(Debug, Clone, Copy)]
pub struct Evidence {
    pub(crate) read: fn(&[CaseResult], &[Select]) -> Option<String>,
    pub(crate) of: &'static [Select],
}

/// One claim, as data.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    /// e.g. "E5-poll-linear".
    pub id: &'static str,
    /// "E1".."E6".
    pub(crate) source: &'static str,
    pub(crate) stated_by: StatedBy,
    /// A *myth?* row of docs/claims.md: a statement that may well be wrong
    /// today, measured like the rest.
    pub(crate) myth: bool,
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
    pub(crate) kernel: Option<Evidence>,
}

impl Claim {
    /// The precision (relative half-width of the 95% interval of the
    /// median) each result this claim reads needs for it to resolve its
    /// smallest effect. The seeds suites take further batches of a case
    /// until it is reached, within `--precision`'s caps.
    pub(crate) fn precision(&self) -> f64 {
        self.resolve / 2.0
    }

    /// Whether the verdict rests on timing: every rule that weighs
    /// figures, and a probe check that times something. A claim decided
    /// by the kernel's answers and counts is not timed.
    pub(crate) fn timed(&self) -> bool {
        match self.rule {
            Rule::Observed { timed, .. } => timed,
            _ => true,
        }
    }

    /// The kernel evidence over `results`, when the claim has some.
    pub(crate) fn kernel_evidence(&self, results: &[CaseResult]) -> Option<String> {
        self.kernel.and_then(|e| (e.read)(results, e.of))
    }
}

/// `claim` as a *myth?* row.
pub(crate) const fn myth(claim: Claim) -> Claim {
    Claim {
        myth: true,
        ..claim
    }
}
