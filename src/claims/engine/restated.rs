//! Findings that compare two cases a claim also compares are judged by a
//! claim's rule, not by a test of their own, so a finding and a claim
//! drawn from the same cases never disagree: pipe-atime's "noatime is
//! measurably faster" for an anonymous pipe is E1-noatime-faster's
//! verdict in other words, with the same figure and interval. The entries
//! live beside their claims, in their seed's file.

use super::conclusion::{observed, Concludes, Conclusion};
use super::rule::Rule;
use crate::model::{CaseResult, ClaimStatus, Finding};

/// One finding, judged by `rule`.
pub(crate) struct Restated {
    pub(crate) scenario: &'static str,
    /// What it finds, the first part of its id, e.g. "noatime-faster".
    pub(crate) id: &'static str,
    /// What it is about, e.g. "anon".
    pub(crate) subject: &'static str,
    pub(crate) rule: Rule,
    /// What it says when the rule holds, does not hold, is inconclusive.
    pub(crate) says: [&'static str; 3],
    /// The claim whose rule this is, named in the finding.
    pub(crate) claim: Option<&'static str>,
}

impl Restated {
    /// The finding's sentence for `status` and the rule's figure.
    fn sentence(&self, status: ClaimStatus, figure: &str) -> String {
        let says = match status {
            ClaimStatus::Holds => self.says[0],
            ClaimStatus::DoesNotHold => self.says[1],
            ClaimStatus::Inconclusive => self.says[2],
        };
        let judged = self
            .claim
            .map(|id| format!(" (as {id} judges it)"))
            .unwrap_or_default();
        format!("{}: {says}{judged}: {figure}", self.subject)
    }
}

impl Concludes for Restated {
    fn scenario(&self) -> &'static str {
        self.scenario
    }

    /// Nothing where the run lacks a case the rule reads.
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion> {
        if super::scope::left_out(&self.rule, results, true).is_some() {
            return Vec::new();
        }
        let outcome = self.rule.decide(results);
        let id = format!("{}/{}", self.id, self.subject);
        let mut finding = Finding::new(id, self.sentence(outcome.status, &outcome.figure));
        if let Some(e) = outcome.estimate {
            finding = finding
                .with("ratio", e.value, "x")
                .with("ratio_lo", e.lo, "x")
                .with("ratio_hi", e.hi, "x");
        }
        vec![observed(self.scenario, finding)]
    }
}
