//! One kind of conclusion for everything a run says about its results: a
//! `Rule` reads the results of one scenario and yields `Conclusion`s, each
//! a verdict, a sentence and its evidence. A scenario's finding lines
//! ("eventfd is 1.09x faster than pipe ...") are rules whose verdict is
//! `Observed`; a classic claim (`Claim`) is a rule that also carries the
//! original's statement and figure, and whose verdict is holds / does not
//! hold / inconclusive. `conclude` evaluates every rule of a run the same
//! way; the run keeps the findings as `verdicts` and the claims as `claims`.

use super::margin::Margin;
use super::{Claim, CLAIMS};
use crate::model::{CaseResult, ClaimStatus, ClaimVerdict, Verdict};
use crate::scenario::{self, Scenario};

/// What a rule concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Judgement {
    /// A finding: a statement of what was measured, with no claim to test.
    Observed,
    /// A claim's verdict.
    Claim(ClaimStatus),
}

/// One conclusion: its verdict, the sentence and the evidence behind it.
#[derive(Clone)]
pub(crate) struct Conclusion {
    pub(crate) scenario: &'static str,
    pub(crate) judgement: Judgement,
    /// The finding itself, or the claim as the original stated it.
    pub(crate) sentence: String,
    /// The figure that decided it (for a finding, part of its sentence).
    pub(crate) evidence: String,
    /// Set when the rule is a classic claim.
    pub(crate) claim: Option<&'static Claim>,
    /// A claim's kernel profile evidence (`kernel.rs`), when it has one.
    pub(crate) kernel_evidence: Option<String>,
    /// A claim's margin (`margin.rs`), when its rule weighed a figure.
    pub(crate) margin: Option<Margin>,
}

/// A rule over the results of one scenario.
pub(crate) trait Rule: Sync {
    fn scenario(&self) -> &'static str;
    /// Over all of a run's results (a rule picks those it reads).
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion>;
}

/// A scenario's finding lines as a rule.
pub(crate) struct Findings(pub &'static dyn Scenario);

impl Rule for Findings {
    fn scenario(&self) -> &'static str {
        self.0.name()
    }
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion> {
        let mine: Vec<&CaseResult> = results
            .iter()
            .filter(|r| r.scenario == self.0.name())
            .collect();
        let finding = |sentence: String| Conclusion {
            scenario: self.0.name(),
            judgement: Judgement::Observed,
            evidence: String::new(),
            sentence,
            claim: None,
            kernel_evidence: None,
            margin: None,
        };
        self.0.verdicts(&mine).into_iter().map(finding).collect()
    }
}

/// A classic claim as a rule.
pub(crate) struct Stated(pub &'static Claim);

impl Rule for Stated {
    fn scenario(&self) -> &'static str {
        self.0.scenario
    }
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion> {
        let outcome = self.0.rule.decide(results);
        vec![Conclusion {
            scenario: self.0.scenario,
            judgement: Judgement::Claim(outcome.status),
            sentence: self.0.sentence.to_string(),
            evidence: outcome.figure,
            claim: Some(self.0),
            kernel_evidence: self.0.kernel.of(results),
            margin: outcome.margin,
        }]
    }
}

/// Every rule: each scenario's findings, those judged by a claim's rule,
/// then the classic claims.
fn rules() -> Vec<Box<dyn Rule>> {
    let findings = scenario::ALL
        .iter()
        .map(|s| Box::new(Findings(*s)) as Box<dyn Rule>);
    let restated = super::list::RESTATED
        .iter()
        .map(|r| Box::new(r) as Box<dyn Rule>);
    let claims = CLAIMS.iter().map(|c| Box::new(Stated(c)) as Box<dyn Rule>);
    findings.chain(restated).chain(claims).collect()
}

/// What every rule concludes over `results`, for the scenarios that took
/// part: findings in order of their scenarios' first appearance, then the
/// claims in the order of `CLAIMS`.
pub(crate) fn conclude(results: &[CaseResult]) -> Vec<Conclusion> {
    let mut order: Vec<&str> = results.iter().map(|r| r.scenario.as_str()).collect();
    order.dedup();
    let mut all: Vec<(usize, Conclusion)> = Vec::new();
    for rule in rules() {
        let Some(rank) = order.iter().position(|s| *s == rule.scenario()) else {
            continue;
        };
        all.extend(rule.conclude(results).into_iter().map(|c| (rank, c)));
    }
    // Findings by their scenario's first appearance; claims as listed.
    all.sort_by_key(|(rank, c)| match c.claim {
        Some(_) => (true, 0),
        None => (false, *rank),
    });
    all.into_iter().map(|(_, c)| c).collect()
}

impl Conclusion {
    /// A finding as the run stores it.
    pub(crate) fn verdict(&self) -> Option<Verdict> {
        (self.judgement == Judgement::Observed).then(|| Verdict {
            scenario: self.scenario.to_string(),
            text: self.sentence.clone(),
        })
    }

    /// A claim's answer as the run stores it.
    pub(crate) fn claim_verdict(&self) -> Option<ClaimVerdict> {
        let (Judgement::Claim(status), Some(claim)) = (self.judgement, self.claim) else {
            return None;
        };
        let margin = self.margin.as_ref();
        Some(ClaimVerdict {
            margin: margin.map(|m| m.margin),
            near_boundary: margin.is_some_and(|m| m.near),
            precision: margin.map(Margin::got),
            to_decide: margin.and_then(|m| m.to_decide(claim.precision(), status)),
            form: claim.rule.form(),
            id: claim.id.to_string(),
            source: claim.source.to_string(),
            claim: claim.sentence.to_string(),
            verdict: status,
            figure: self.evidence.clone(),
            original: claim.original.to_string(),
            scenario: claim.scenario.to_string(),
            kernel_evidence: self.kernel_evidence.clone(),
        })
    }
}
