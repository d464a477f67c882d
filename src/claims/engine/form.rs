//! What each kind of rule reads and in which form it weighs a figure:
//! relative to this machine, a ratio within the run, a count. The form is
//! part of every verdict's text; what a rule reads tells the seeds suite
//! (and an adaptive repetition mode) which cases need a claim's precision.

use super::relative;
use super::rule::Rule;
use super::select::{Point, Select};

/// The form of an absolute band on a count or share per operation.
pub(crate) const PER_OPERATION: &str =
    "an absolute band on a count per operation, which does not scale with the machine's speed";
use crate::model::CaseResult;

impl Rule {
    /// Which form the rule takes, and why.
    pub(crate) fn form(&self) -> String {
        match self {
            Rule::Relative { q, reference, .. } => reference.form(relative::unit(q)),
            Rule::Faster { .. } | Rule::NoFaster { .. } | Rule::Similar { .. } => {
                "a ratio of two results of the same run: it reads the same on a faster or \
                 slower machine"
                    .into()
            }
            Rule::Within { why, .. } => why.to_string(),
            Rule::Linear { .. } | Rule::Flat { .. } => {
                "the shape of one sweep within the run (its far end over its near end)".into()
            }
            Rule::Judged { form, .. } | Rule::Observed { form, .. } => form.to_string(),
            Rule::Each { rules } => {
                let mut forms: Vec<String> = rules.iter().map(Rule::form).collect();
                forms.dedup();
                forms.join("; ")
            }
        }
    }

    /// Every selection the rule reads, its reference point included.
    pub(crate) fn selects(&self) -> Vec<&Select> {
        match self {
            Rule::Faster { fast, slow, .. } => vec![fast, slow],
            Rule::NoFaster { a, b, .. } | Rule::Similar { a, b, .. } => vec![a, b],
            Rule::Relative { at, reference, .. } => vec![at, &reference.at],
            Rule::Within { at, .. } | Rule::Linear { at, .. } | Rule::Flat { at, .. } => vec![at],
            Rule::Judged { of, .. } => of.iter().collect(),
            Rule::Observed { .. } => Vec::new(),
            Rule::Each { rules } => rules.iter().flat_map(Rule::selects).collect(),
        }
    }

    /// Whether the rule reads its figure in wake-up round trips, which
    /// follow the host's mode (a busy host's wake-ups cost several times a
    /// quiet one's): its verdict says which mode it was judged in.
    pub(crate) fn follows_the_host(&self) -> bool {
        match self {
            Rule::Relative { reference, .. } => reference.follows_the_host,
            Rule::Each { rules } => rules.iter().any(Rule::follows_the_host),
            _ => false,
        }
    }

    /// The results the rule weighs against each other, as indices into
    /// `results` (results, or cases as planned): the one result each
    /// selection takes, a sweep's two ends; none for a probe check's
    /// observations.
    pub(crate) fn compared<P: Point>(&self, results: &[P]) -> Vec<usize> {
        let index = |r: &P| results.iter().position(|x| std::ptr::eq(x, r));
        let mut taken: Vec<usize> = match self {
            Rule::Linear { at, x, .. } | Rule::Flat { at, x, .. } => {
                super::sweep::ends(results, at, x)
                    .into_iter()
                    .filter_map(index)
                    .collect()
            }
            Rule::Each { rules } => rules.iter().flat_map(|r| r.compared(results)).collect(),
            _ => self
                .selects()
                .iter()
                .filter_map(|s| s.one(results).ok())
                .filter_map(index)
                .collect(),
        };
        taken.sort_unstable();
        taken.dedup();
        taken
    }

    /// Whether the rule reads `case` (for a sweep or a nearest point, any
    /// point of it).
    pub(crate) fn reads(&self, case: &CaseResult) -> bool {
        let checked = match self {
            Rule::Observed { check, .. } => super::observed::is_check(case, check),
            _ => false,
        };
        checked || self.selects().iter().any(|s| s.matches(case))
    }
}
