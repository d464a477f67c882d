//! Which cases of a run go into interleaved rounds together, and when
//! their rounds have said enough. A claim that compares cases (two cases,
//! a sweep's two ends, a case against this machine's reference point)
//! weighs two or more of them against each other; they run as randomized
//! interleaved rounds (`runner::interleaved`), so its figure is a paired
//! one. Claims that share a case share its rounds. An observation (a
//! probe's answer) compares nothing and runs as it always did.

use super::engine::claim::Claim;
use super::engine::rule::Rule;
use super::CLAIMS;
use crate::model::{CaseResult, ClaimStatus};

/// Cases that run as rounds together, and the claims that compare them.
#[derive(Debug)]
pub(crate) struct Group {
    /// Indices into the run's cases, ascending.
    pub(crate) cases: Vec<usize>,
    pub(crate) claims: Vec<&'static Claim>,
}

/// The groups of `cases`: every claim that weighs two or more of them
/// against each other joins those.
pub(crate) fn groups(cases: &[CaseResult]) -> Vec<Group> {
    let comparing: Vec<(&'static Claim, Vec<usize>)> = CLAIMS
        .iter()
        .filter(|c| !matches!(c.rule, Rule::Observed { .. }))
        .map(|c| (*c, c.rule.compared(cases)))
        .filter(|(_, read)| read.len() >= 2)
        .collect();
    let mut group_of: Vec<usize> = (0..cases.len()).collect();
    for (_, read) in &comparing {
        for &other in &read[1..] {
            join(&mut group_of, read[0], other);
        }
    }
    let roots: Vec<usize> = (0..cases.len()).map(|i| root(&mut group_of, i)).collect();
    let mut groups: Vec<Group> = Vec::new();
    for (claim, read) in comparing {
        let root = roots[read[0]];
        match groups.iter_mut().find(|g| roots[g.cases[0]] == root) {
            Some(g) => g.claims.push(claim),
            None => groups.push(Group {
                cases: (0..cases.len()).filter(|&i| roots[i] == root).collect(),
                claims: vec![claim],
            }),
        }
    }
    groups.sort_by_key(|g| g.cases[0]);
    groups
}

fn root(group_of: &mut [usize], mut i: usize) -> usize {
    while group_of[i] != i {
        group_of[i] = group_of[group_of[i]];
        i = group_of[i];
    }
    i
}

fn join(group_of: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (root(group_of, a), root(group_of, b));
    group_of[ra.max(rb)] = ra.min(rb);
}

/// Whether the rounds so far (`so_far`, the group's results, beside the
/// run's earlier results `known`) have said what they can about `claims`:
/// none is inconclusive with its interval across a boundary, unless at
/// this pace (`spent`: the share of the group's time cap used) the cap
/// would end before its interval is narrow enough.
pub(crate) fn decided(
    claims: &[&Claim],
    known: &[CaseResult],
    so_far: Vec<CaseResult>,
    spent: f64,
) -> bool {
    let all: Vec<CaseResult> = known.iter().cloned().chain(so_far).collect();
    claims.iter().all(|c| {
        let outcome = c.rule.decide(&all);
        let Some(m) = outcome.margin.filter(|m| m.near) else {
            return true;
        };
        let worst = m.inputs.iter().map(|p| p.relative).fold(0.0, f64::max);
        let short_by = worst / c.precision();
        outcome.status != ClaimStatus::Inconclusive || out_of_reach(short_by, spent)
    })
}

/// Whether an interval `short_by` times wider than needed would still be
/// too wide at the cap, at its pace (it narrows with the square root of
/// the rounds): judged from half the cap on, when the rounds are enough
/// to read the pace from.
fn out_of_reach(short_by: f64, spent: f64) -> bool {
    spent >= 0.5 && short_by.powi(2) * spent > 1.0
}
