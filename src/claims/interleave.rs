//! Which cases of a run go into interleaved rounds together, and when
//! their rounds have said enough. A claim that compares cases (two cases,
//! a sweep's two ends, a case against this machine's reference point)
//! weighs two or more of them against each other; they run as randomized
//! interleaved rounds (`runner::interleaved`), so its figure is a paired
//! one. Claims that share a case share its rounds. An observation (a
//! probe's answer) compares nothing and runs as it always did.

use super::engine::claim::Claim;
use super::engine::rule::Rule;
use super::engine::select::Point;
use super::CLAIMS;
use crate::model::{CaseResult, ClaimStatus};

/// Cases that run as rounds together, and the claims that compare them.
#[derive(Debug)]
pub(crate) struct Group {
    /// Indices into the run's cases, ascending.
    pub(crate) cases: Vec<usize>,
    pub(crate) claims: Vec<&'static Claim>,
}

/// The comparison groups of `cases` (as planned, or results): every claim
/// that weighs two or more of them against each other joins those.
pub(crate) fn comparison_groups<P: Point>(cases: &[P]) -> Vec<Group> {
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
/// would end before its interval clears the boundary.
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
        outcome.status != ClaimStatus::Inconclusive || out_of_reach(m.margin, spent)
    })
}

/// Whether an interval that reaches a boundary, its figure `margin`
/// half-widths from it, would still reach it at the cap: it must narrow
/// to `margin` of its width, and it narrows with the square root of the
/// rounds, so the whole cap must hold `1 / margin²` times the rounds run
/// in its share `spent`. Judged from half the cap on, when the rounds are
/// enough to read the pace from; a figure on the boundary is out of reach.
fn out_of_reach(margin: f64, spent: f64) -> bool {
    spent >= 0.5 && spent > margin.powi(2)
}

#[cfg(test)]
mod tests {
    use super::out_of_reach;

    #[test]
    fn an_interval_just_across_its_boundary_runs_on_to_the_cap() {
        // A figure 0.9 half-widths from its boundary needs 1.23x the
        // rounds: at 60% of the cap it can get them, at 85% it cannot.
        assert!(!out_of_reach(0.9, 0.6));
        assert!(out_of_reach(0.9, 0.85));
        // Half a half-width needs 4x the rounds: out of reach from half
        // the cap on, never before it.
        assert!(out_of_reach(0.5, 0.5));
        assert!(!out_of_reach(0.5, 0.4));
        // On the boundary: nothing narrows enough.
        assert!(out_of_reach(0.0, 0.5));
    }
}
