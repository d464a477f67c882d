//! What each kind of rule reads and in which form it weighs a figure:
//! relative to this machine, a ratio within the run, a count. The form is
//! part of every verdict's text; what a rule reads tells the seeds suite
//! (and an adaptive repetition mode) which cases need a claim's precision.

use super::relative;
use super::rules::Rule;
use crate::model::CaseResult;

/// Whether `case` is a `contention` case over mechanism `mech` (what a
/// `Rule::Stalls` reads).
pub(super) fn is_contention_of(case: &CaseResult, mech: &str) -> bool {
    case.scenario == "contention" && case.param_str("mech").as_deref() == Some(mech)
}

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
            Rule::Within { .. } => {
                "an absolute band on a count per operation, which does not scale with the \
                 machine's speed"
                    .into()
            }
            Rule::Linear { .. } | Rule::Flat { .. } => {
                "the shape of one sweep within the run (its far end over its near end)".into()
            }
            Rule::Stalls { .. } => {
                "the contended mean over the reader alone in the same run, and an absolute \
                 1 ms for the slowest call: a stall of a scheduler time slice does not scale \
                 with the CPU"
                    .into()
            }
            Rule::NotRead { .. } => "a share of the file's pages: machine-independent".into(),
            Rule::AtimeChanged { .. } => "a count of repetitions: machine-independent".into(),
            Rule::Observed { form, .. } => form.to_string(),
            Rule::Each { rules } => {
                let mut forms: Vec<String> = rules.iter().map(Rule::form).collect();
                forms.dedup();
                forms.join("; ")
            }
        }
    }

    /// Whether the rule reads `case` (for a sweep or a nearest point, any
    /// point of it).
    pub(crate) fn reads(&self, case: &CaseResult) -> bool {
        match self {
            Rule::Faster { fast, slow, .. } => fast.matches(case) || slow.matches(case),
            Rule::NoFaster { a, b, .. } | Rule::Similar { a, b, .. } => {
                a.matches(case) || b.matches(case)
            }
            Rule::Relative { at, reference, .. } => at.matches(case) || reference.at.matches(case),
            Rule::Within { at, .. }
            | Rule::Linear { at, .. }
            | Rule::Flat { at, .. }
            | Rule::NotRead { at }
            | Rule::AtimeChanged { at } => at.matches(case),
            Rule::Observed { check, .. } => super::observed::is_check(case, check),
            Rule::Each { rules } => rules.iter().any(|r| r.reads(case)),
            Rule::Stalls { mech, .. } => is_contention_of(case, mech),
        }
    }
}
