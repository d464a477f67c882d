//! The classic claims (EXPERIMENTS.md, E1-E6) answered from a run's
//! results: each claim is data (`list.rs`) with a rule (`rules.rs`) that
//! says `holds`, `does not hold` or `inconclusive`, and the figure that
//! decided it beside the original's. A missing, failed or unsupported result
//! makes a claim inconclusive with the reason, never `holds`.

mod devnull;
mod list;
pub mod pick;
pub mod render;
pub mod rules;
mod stall;
mod sweep;

#[cfg(test)]
mod tests;

pub use list::CLAIMS;

use crate::model::{CaseResult, ClaimVerdict};
use rules::Rule;

/// One classic claim, as data.
pub struct Claim {
    /// e.g. "E5-poll-linear".
    pub id: &'static str,
    /// "E1".."E6".
    pub source: &'static str,
    /// The claim as the original stated it.
    pub sentence: &'static str,
    /// The original's figure.
    pub original: &'static str,
    /// The scenario whose results it reads.
    pub scenario: &'static str,
    pub rule: Rule,
}

impl Claim {
    pub fn answer(&self, results: &[CaseResult]) -> ClaimVerdict {
        let outcome = self.rule.decide(results);
        ClaimVerdict {
            id: self.id.to_string(),
            source: self.source.to_string(),
            claim: self.sentence.to_string(),
            verdict: outcome.status,
            figure: outcome.figure,
            original: self.original.to_string(),
            scenario: self.scenario.to_string(),
        }
    }
}

/// Every claim whose scenario took part in the run, answered.
pub fn evaluate(results: &[CaseResult]) -> Vec<ClaimVerdict> {
    CLAIMS
        .iter()
        .filter(|c| results.iter().any(|r| r.scenario == c.scenario))
        .map(|c| c.answer(results))
        .collect()
}
