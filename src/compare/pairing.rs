//! Which results of two runs are the same case. Two results pair when
//! their scenario, stored case name and inputs (identity.rs: every declared
//! or planned parameter, not the figures a case records as it runs) all
//! match; failing that, when the repetitions alone differ and neither has
//! another such partner (the same measurement, sampled more or less
//! often). A result left over is set beside the leftover of the other run
//! with its name and the fewest differing inputs, or else is only in its
//! run. Only paired results are compared, so a case run with other
//! parameters never reads as a regression.

use super::identity::{self, Difference, Inputs, REPEAT};
use super::names;
use crate::model::CaseResult;

/// Indices into A's and B's results.
#[derive(Debug, Default)]
pub(crate) struct Pairing {
    /// Paired, with the inputs that differ (at most the repetitions).
    pub(crate) matched: Vec<(usize, usize, Vec<Difference>)>,
    /// The same name, other inputs: never compared.
    pub(crate) mismatched: Vec<(usize, usize, Vec<Difference>)>,
    pub(crate) only_a: Vec<usize>,
    pub(crate) only_b: Vec<usize>,
}

/// The pairing of `a`'s and `b`'s results.
pub(crate) fn pair(a: &[CaseResult], b: &[CaseResult]) -> Pairing {
    let ia: Vec<Inputs> = a.iter().map(identity::inputs).collect();
    let ib: Vec<Inputs> = b.iter().map(identity::inputs).collect();
    let named = |i: usize, j: usize| a[i].scenario == b[j].scenario && a[i].case == b[j].case;
    let diff = |i: usize, j: usize| identity::differences(&ia[i], &ib[j]);
    let mut left = Left {
        a: (0..a.len()).collect(),
        b: (0..b.len()).collect(),
    };
    let mut out = Pairing::default();
    let same = left.take(|i, j| named(i, j) && ia[i] == ib[j]);
    out.matched
        .extend(same.into_iter().map(|(i, j)| (i, j, Vec::new())));
    let only_reps =
        |i: usize, j: usize| named(i, j) && diff(i, j).iter().all(|d| d.param == REPEAT);
    for (i, j) in left.take_unambiguous(only_reps) {
        out.matched.push((i, j, diff(i, j)));
    }
    out.matched.sort_by_key(|m| m.0);
    for (i, j) in left.take_nearest(named, |i, j| diff(i, j).len()) {
        out.mismatched.push((i, j, diff(i, j)));
    }
    (out.only_a, out.only_b) = (left.a, left.b);
    out
}

/// The results not paired yet.
struct Left {
    a: Vec<usize>,
    b: Vec<usize>,
}

impl Left {
    /// Pairs each leftover of A with the first leftover of B `fits` it.
    fn take(&mut self, fits: impl Fn(usize, usize) -> bool) -> Vec<(usize, usize)> {
        self.take_nearest(fits, |_, _| 0)
    }

    /// Pairs each leftover of A with the leftover of B that `fits` it at
    /// the smallest `cost` (the first of equals).
    fn take_nearest(
        &mut self,
        fits: impl Fn(usize, usize) -> bool,
        cost: impl Fn(usize, usize) -> usize,
    ) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.a.retain(|&i| {
            let candidates = self.b.iter().copied().filter(|&j| fits(i, j));
            let Some(j) = candidates.min_by_key(|&j| cost(i, j)) else {
                return true;
            };
            self.b.retain(|&x| x != j);
            out.push((i, j));
            false
        });
        out
    }

    /// Pairs the leftovers that `fits` only each other.
    fn take_unambiguous(&mut self, fits: impl Fn(usize, usize) -> bool) -> Vec<(usize, usize)> {
        let partners_of_a = |i: usize| self.b.iter().filter(|&&j| fits(i, j)).count();
        let partners_of_b = |j: usize| self.a.iter().filter(|&&i| fits(i, j)).count();
        let pairs: Vec<(usize, usize)> = self
            .a
            .iter()
            .filter_map(|&i| {
                let j = *self.b.iter().find(|&&j| fits(i, j))?;
                (partners_of_a(i) == 1 && partners_of_b(j) == 1).then_some((i, j))
            })
            .collect();
        self.a.retain(|i| !pairs.iter().any(|p| p.0 == *i));
        self.b.retain(|j| !pairs.iter().any(|p| p.1 == *j));
        pairs
    }
}

/// The printed name of every result of A and of B: A's among themselves
/// and B's unpaired ones (`names::printed`), a paired or mismatched result
/// of B named as its partner in A.
pub(crate) fn names(a: &[CaseResult], b: &[CaseResult], p: &Pairing) -> (Vec<String>, Vec<String>) {
    let mut shown: Vec<&CaseResult> = a.iter().collect();
    shown.extend(p.only_b.iter().map(|&j| &b[j]));
    let printed = names::printed(&shown);
    let (a_names, only_b_names) = printed.split_at(a.len());
    let mut b_names = vec![String::new(); b.len()];
    for (&j, name) in p.only_b.iter().zip(only_b_names) {
        b_names[j].clone_from(name);
    }
    for &(i, j, _) in p.matched.iter().chain(&p.mismatched) {
        b_names[j].clone_from(&a_names[i]);
    }
    (a_names.to_vec(), b_names)
}
