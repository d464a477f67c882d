//! What a run concludes from its results. The engine (`engine/`) holds
//! the machinery that names no experiment: claims as data, rule kinds,
//! margins, and one `conclude` for claims and findings alike. The seeds
//! (`seeds/`, one folder per seed E1-E6) hold each seed's claims, the
//! judges of tests that belong to its experiment alone, and the findings
//! it draws from the scenarios it owns. This file puts the two together
//! for a run; `render.rs` and `across.rs` show stored verdicts.

pub(crate) mod across;
pub mod engine;
pub(crate) mod interleave;
pub(crate) mod kernels;
pub(crate) mod render;
mod seeds;

#[cfg(test)]
mod tests;

pub use engine::claim::Claim;

use crate::model::{CaseResult, ClaimVerdict, Verdict};
use engine::conclusion::{self, Concludes, ScenarioFindings, Stated};
use std::sync::LazyLock;

/// Every claim, in the order a run reports them.
pub static CLAIMS: LazyLock<Vec<&'static Claim>> = LazyLock::new(seeds::claims);

/// Whether the claim `id` is a *myth?* row of docs/claims.md.
pub(crate) fn is_myth(id: &str) -> bool {
    CLAIMS.iter().any(|c| c.id == id && c.myth)
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

/// Everything that concludes: each scenario's findings, the seeds'
/// findings, then the claims.
fn sources() -> Vec<Box<dyn Concludes>> {
    let scenarios = crate::scenario::ALL
        .iter()
        .map(|s| Box::new(ScenarioFindings(*s)) as Box<dyn Concludes>);
    let seeds = seeds::FINDINGS
        .iter()
        .map(|f| Box::new(f) as Box<dyn Concludes>);
    let restated = seeds::restated()
        .into_iter()
        .map(|r| Box::new(r) as Box<dyn Concludes>);
    let claims = CLAIMS
        .iter()
        .map(|c| Box::new(Stated(c)) as Box<dyn Concludes>);
    scenarios
        .chain(seeds)
        .chain(restated)
        .chain(claims)
        .collect()
}

fn conclude(results: &[CaseResult]) -> Vec<conclusion::Conclusion> {
    let sources = sources();
    let all: Vec<&dyn Concludes> = sources.iter().map(|s| s.as_ref()).collect();
    conclusion::conclude(results, &all)
}

/// The claims answered over `results`: those whose cases the run of
/// `targets` (its suites and scenarios) ran as they specify
/// (`engine/scope.rs`).
pub(crate) fn evaluate(results: &[CaseResult], targets: Option<&str>) -> Vec<ClaimVerdict> {
    let stand_ins = stands_in(targets);
    conclude(results)
        .iter()
        .filter(|c| {
            c.claim.is_none_or(|claim| {
                engine::scope::left_out(&claim.rule, results, stand_ins).is_none()
            })
        })
        .filter_map(conclusion::Conclusion::claim_verdict)
        .collect()
}

/// Says the host's state on every claim whose figure follows it.
pub(crate) fn note_the_host(claims: &mut [ClaimVerdict], host: &crate::measure::host::Summary) {
    for verdict in claims.iter_mut() {
        let follows = CLAIMS
            .iter()
            .any(|c| c.id == verdict.id && c.rule.follows_the_host());
        if follows {
            verdict.host = Some(format!("judged with the host {}", host.text()));
        }
    }
}

/// The claims a run of `targets` left out, each with why.
pub(crate) fn left_out(
    results: &[CaseResult],
    targets: Option<&str>,
) -> Vec<(&'static str, String)> {
    let stand_ins = stands_in(targets);
    CLAIMS
        .iter()
        .filter_map(|c| Some((c.id, engine::scope::left_out(&c.rule, results, stand_ins)?)))
        .collect()
}

/// Takes the verdict from every timed claim of `claims` (a guest's
/// emulated CPU times QEMU, not the kernel): inconclusive, "not judged:
/// `why`".
pub(crate) fn not_judged_when_timed(claims: &mut [ClaimVerdict], why: &str) {
    for c in claims.iter_mut() {
        if CLAIMS.iter().any(|claim| claim.id == c.id && claim.timed()) {
            c.verdict = crate::model::ClaimStatus::Inconclusive;
            c.not_judged = Some(why.to_string());
            c.margin = None;
            c.near_boundary = false;
            c.weighed = None;
        }
    }
}

/// The findings over `results`, in order of their scenarios' appearance.
pub(crate) fn verdicts(results: &[CaseResult]) -> Vec<Verdict> {
    conclude(results)
        .iter()
        .filter_map(conclusion::Conclusion::verdict)
        .collect()
}

/// Whether the run of `targets` (the suites and scenarios it named) may
/// answer a claim at the point nearest its target: unless it named a suite
/// not built for the claims. A run stored without its targets may.
fn stands_in(targets: Option<&str>) -> bool {
    let mechanism_suite =
        |name: &str| crate::scenario::suite::find(name).is_some_and(|s| !s.claims_precision);
    !targets.is_some_and(|t| t.split_whitespace().any(mechanism_suite))
}
