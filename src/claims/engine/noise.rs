//! The noise guard's word on a claim: the worst grade among the results its
//! rule read, with their causes. It never changes the verdict; a report
//! marks the claim's figure with it, so a figure measured while the host
//! was slow or busy reads apart from a clean one.

use super::rule::Rule;
use crate::model::{CaseResult, ClaimNoise, Grade};

/// The grades of the results `rule` reads among `results`; None when every
/// one was clean or ungraded, and for the kernel's answers to a probe's
/// calls (`Rule::Observed`), which no slow host changes.
pub(crate) fn of(rule: &Rule, results: &[CaseResult]) -> Option<ClaimNoise> {
    if matches!(rule, Rule::Observed { .. }) {
        return None;
    }
    let read: Vec<&CaseResult> = results.iter().filter(|r| rule.reads(r)).collect();
    let graded: Vec<_> = read
        .iter()
        .filter_map(|r| r.noise.as_ref())
        .filter(|n| n.grade != Grade::Clean)
        .collect();
    let grade = graded.iter().map(|n| n.grade).max()?;
    let mut causes: Vec<String> = Vec::new();
    for cause in graded.iter().flat_map(|n| &n.causes) {
        if !causes.contains(cause) {
            causes.push(cause.clone());
        }
    }
    Some(ClaimNoise {
        grade,
        causes,
        graded: graded.len(),
        read: read.len(),
    })
}
