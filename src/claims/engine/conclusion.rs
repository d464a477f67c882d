//! One kind of conclusion for everything a run says about its results:
//! whatever `Concludes` reads the results of one scenario and yields
//! `Conclusion`s, each a verdict, a sentence and its evidence. A scenario's
//! findings ("eventfd is 1.09x faster than pipe ...") conclude `Observed`;
//! a claim (`Claim`) also carries the original's statement and figure, and
//! concludes holds / does not hold / inconclusive. `conclude` evaluates
//! every source of a run the same way; the run keeps the findings as
//! `verdicts` and the claims as `claims`.

use super::claim::Claim;
use super::margin::Margin;
use crate::model::{
    CaseResult, ClaimNoise, ClaimPart, ClaimStatus, ClaimVerdict, Finding, Verdict, Weighed,
};
use crate::scenario::Scenario;

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
    /// The finding itself (its sentence, id and figures), or the claim as
    /// the original stated it.
    pub(crate) finding: Finding,
    /// The figure that decided it (for a finding, part of its sentence).
    pub(crate) evidence: String,
    /// Set when the rule is a classic claim.
    pub(crate) claim: Option<&'static Claim>,
    /// A claim's kernel profile evidence (`kernel.rs`), when it has one.
    pub(crate) kernel_evidence: Option<String>,
    /// A claim's margin (`margin.rs`), when its rule weighed a figure.
    pub(crate) margin: Option<Margin>,
    /// The figure it weighed and the rule's bands, likewise.
    pub(crate) weighed: Option<Weighed>,
    /// The noise guard's grades over the results a claim read.
    pub(crate) noise: Option<ClaimNoise>,
    /// A claim's parts, each with its verdict, when it states several.
    pub(crate) parts: Vec<ClaimPart>,
}

/// What concludes over the results of one scenario: a scenario's
/// findings, a seed's findings, a claim.
pub(crate) trait Concludes: Sync {
    fn scenario(&self) -> &'static str;
    /// Over all of a run's results (a rule picks those it reads).
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion>;
}

impl<T: Concludes> Concludes for &T {
    fn scenario(&self) -> &'static str {
        (**self).scenario()
    }
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion> {
        (**self).conclude(results)
    }
}

/// A scenario's own findings (`Scenario::findings`).
pub(crate) struct ScenarioFindings(pub &'static dyn Scenario);

/// Findings drawn from one scenario's results by `find`: a seed's, from a
/// scenario its experiment owns.
pub(crate) struct Findings {
    pub(crate) scenario: &'static str,
    pub(crate) find: fn(&[&CaseResult]) -> Vec<Finding>,
}

/// The results of `scenario` among `results`.
fn of_scenario<'a>(results: &'a [CaseResult], scenario: &str) -> Vec<&'a CaseResult> {
    results.iter().filter(|r| r.scenario == scenario).collect()
}

/// A finding of `scenario`, with nothing to test.
pub(crate) fn observed(scenario: &'static str, finding: Finding) -> Conclusion {
    Conclusion {
        scenario,
        judgement: Judgement::Observed,
        evidence: String::new(),
        finding,
        claim: None,
        kernel_evidence: None,
        margin: None,
        weighed: None,
        noise: None,
        parts: Vec::new(),
    }
}

impl Concludes for ScenarioFindings {
    fn scenario(&self) -> &'static str {
        self.0.name()
    }
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion> {
        let name = self.0.name();
        let findings = self.0.findings(&of_scenario(results, name));
        findings.into_iter().map(|f| observed(name, f)).collect()
    }
}

impl Concludes for Findings {
    fn scenario(&self) -> &'static str {
        self.scenario
    }
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion> {
        let findings = (self.find)(&of_scenario(results, self.scenario));
        let of = |f| observed(self.scenario, f);
        findings.into_iter().map(of).collect()
    }
}

/// A claim, concluding its verdict.
pub(crate) struct Stated(pub &'static Claim);

impl Concludes for Stated {
    fn scenario(&self) -> &'static str {
        self.0.scenario
    }
    fn conclude(&self, results: &[CaseResult]) -> Vec<Conclusion> {
        let outcome = self.0.rule.decide(results);
        vec![Conclusion {
            scenario: self.0.scenario,
            judgement: Judgement::Claim(outcome.status),
            finding: Finding::new(self.0.id, self.0.sentence),
            evidence: outcome.figure,
            claim: Some(self.0),
            kernel_evidence: self.0.kernel_evidence(results),
            margin: outcome.margin,
            weighed: outcome.weighed,
            noise: super::noise::of(&self.0.rule, results),
            parts: outcome.parts,
        }]
    }
}

/// What every source concludes over `results`, for the scenarios that
/// took part: findings in order of their scenarios' first appearance, then
/// the claims in the order given.
pub(crate) fn conclude(results: &[CaseResult], sources: &[&dyn Concludes]) -> Vec<Conclusion> {
    let mut order: Vec<&str> = results.iter().map(|r| r.scenario.as_str()).collect();
    order.dedup();
    let mut all: Vec<(usize, Conclusion)> = Vec::new();
    for source in sources {
        let Some(rank) = order.iter().position(|s| *s == source.scenario()) else {
            continue;
        };
        all.extend(source.conclude(results).into_iter().map(|c| (rank, c)));
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
        (self.judgement == Judgement::Observed)
            .then(|| Verdict::of(self.scenario, self.finding.clone()))
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
            weighed: self.weighed.clone(),
            noise: self.noise.clone(),
            parts: self.parts.clone(),
            host: None,
            not_judged: None,
        })
    }
}

impl Claim {
    /// This claim answered over `results`, as the run stores it.
    pub fn answer(&'static self, results: &[CaseResult]) -> ClaimVerdict {
        Stated(self)
            .conclude(results)
            .iter()
            .find_map(Conclusion::claim_verdict)
            .expect("a claim always concludes with a claim verdict")
    }
}
