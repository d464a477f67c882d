//! Which claims a run judges: only those whose cases it ran as the claim
//! specifies. A claim reads cases by their parameters (`Select`), and some
//! name a target point of a sweep (`idle` near 640, `count` near 10M). A
//! run of a scenario the user named, or of a suite built for the claims
//! (`seeds`, `seeds --quick`, whose points are the targets' scaled-down
//! stand-ins), answers such a claim at its nearest point, and the figure
//! says which point that was; a suite that measures mechanisms (`quick`,
//! `full`) answers it only at the target itself, so that the quick suite
//! does not judge E5-select-equals-poll at idle=100 when the claim is about
//! idle=640. A claim left out says why, and the run counts those in one
//! line instead of printing inconclusive verdicts that only say "not run".

use super::rule::Rule;
use super::select::{param_f64, Select};
use crate::model::CaseResult;

/// One thing a claim needs from a run.
enum Need<'a> {
    /// A case of these parameters.
    Case(&'a Select),
    /// One `probe` check.
    Check(&'static str),
}

impl Rule {
    /// What the rule reads, each need once.
    fn needs(&self) -> Vec<Need<'_>> {
        match self {
            Rule::Faster { fast, slow, .. } => vec![Need::Case(fast), Need::Case(slow)],
            Rule::NoFaster { a, b, .. } | Rule::Similar { a, b, .. } => {
                vec![Need::Case(a), Need::Case(b)]
            }
            Rule::Relative { at, reference, .. } => {
                vec![Need::Case(at), Need::Case(&reference.at)]
            }
            Rule::Within { at, .. } | Rule::Linear { at, .. } | Rule::Flat { at, .. } => {
                vec![Need::Case(at)]
            }
            Rule::Judged { of, .. } => of.iter().map(Need::Case).collect(),
            Rule::Observed { check, .. } => vec![Need::Check(check)],
            Rule::Each { rules } => rules.iter().flat_map(Rule::needs).collect(),
        }
    }
}

/// Why `rule` is not judged over `results`, or None when the run ran its
/// cases as it specifies; `stand_ins`: the run is of a suite whose points
/// stand in for the claims' targets.
pub(crate) fn left_out(rule: &Rule, results: &[CaseResult], stand_ins: bool) -> Option<String> {
    rule.needs()
        .iter()
        .find_map(|need| unmet(need, results, stand_ins))
}

fn unmet(need: &Need, results: &[CaseResult], stand_ins: bool) -> Option<String> {
    match need {
        Need::Case(select) => case_unmet(select, results, stand_ins),
        Need::Check(check) => (!results.iter().any(|r| super::observed::is_check(r, check)))
            .then(|| format!("the probe check {check} did not run")),
    }
}

fn case_unmet(select: &Select, results: &[CaseResult], stand_ins: bool) -> Option<String> {
    let matching: Vec<&CaseResult> = results.iter().filter(|r| select.matches(r)).collect();
    if matching.is_empty() {
        return Some(format!("no case {} ran", select.describe()));
    }
    let (key, target) = select.nearest.filter(|_| !stand_ins)?;
    let at_target = |r: &&CaseResult| param_f64(r, key) == Some(target);
    (!matching.iter().any(at_target)).then(|| {
        format!(
            "it reads {} at {key}={}, which this run did not measure",
            select.label,
            crate::format::typed_count(target)
        )
    })
}
