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
use std::collections::{HashMap, HashSet};

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

/// The pairing of `a`'s and `b`'s results. Only results of the same
/// scenario and case name ever pair, so each result looks among those of
/// its name alone: linear in the runs' size, however many results.
pub(crate) fn pair(a: &[CaseResult], b: &[CaseResult]) -> Pairing {
    let ia: Vec<Inputs> = a.iter().map(identity::inputs).collect();
    let ib: Vec<Inputs> = b.iter().map(identity::inputs).collect();
    let diff = |i: usize, j: usize| identity::differences(&ia[i], &ib[j]);
    let mut left = Left {
        a: (0..a.len()).collect(),
        b: (0..b.len()).collect(),
        ra: a,
        rb: b,
    };
    let mut out = Pairing::default();
    let same = left.take_nearest(|i, j| ia[i] == ib[j], |_, _| 0);
    out.matched
        .extend(same.into_iter().map(|(i, j)| (i, j, Vec::new())));
    let only_reps = |i: usize, j: usize| diff(i, j).iter().all(|d| d.param == REPEAT);
    for (i, j) in left.take_unambiguous(only_reps) {
        out.matched.push((i, j, diff(i, j)));
    }
    out.matched.sort_by_key(|m| m.0);
    for (i, j) in left.take_nearest(|_, _| true, |i, j| diff(i, j).len()) {
        out.mismatched.push((i, j, diff(i, j)));
    }
    (out.only_a, out.only_b) = (left.a, left.b);
    out
}

/// What a result pairs by: its scenario and stored case name.
type Name<'r> = (&'r str, &'r str);

fn name(r: &CaseResult) -> Name<'_> {
    (&r.scenario, &r.case)
}

/// The indices of `rs` among `left` by name, each list in `left`'s order.
fn by_name<'r>(left: &[usize], rs: &'r [CaseResult]) -> HashMap<Name<'r>, Vec<usize>> {
    let mut out: HashMap<Name<'r>, Vec<usize>> = HashMap::new();
    for &i in left {
        out.entry(name(&rs[i])).or_default().push(i);
    }
    out
}

/// The results not paired yet, of A (`ra`) and of B (`rb`).
struct Left<'r> {
    a: Vec<usize>,
    b: Vec<usize>,
    ra: &'r [CaseResult],
    rb: &'r [CaseResult],
}

impl Left<'_> {
    /// Pairs each leftover of A with the leftover of B of its name that
    /// `fits` it at the smallest `cost` (the first of equals).
    fn take_nearest(
        &mut self,
        fits: impl Fn(usize, usize) -> bool,
        cost: impl Fn(usize, usize) -> usize,
    ) -> Vec<(usize, usize)> {
        let mut named = by_name(&self.b, self.rb);
        let ra = self.ra;
        let mut out = Vec::new();
        self.a.retain(|&i| {
            let Some(bucket) = named.get_mut(&name(&ra[i])) else {
                return true;
            };
            let candidates = (0..bucket.len()).filter(|&at| fits(i, bucket[at]));
            let Some(at) = candidates.min_by_key(|&at| cost(i, bucket[at])) else {
                return true;
            };
            out.push((i, bucket.remove(at)));
            false
        });
        self.drop_taken(&out);
        out
    }

    /// Pairs the leftovers of one name that `fits` only each other.
    fn take_unambiguous(&mut self, fits: impl Fn(usize, usize) -> bool) -> Vec<(usize, usize)> {
        let (named_a, named_b) = (by_name(&self.a, self.ra), by_name(&self.b, self.rb));
        let pairs: Vec<(usize, usize)> = self
            .a
            .iter()
            .filter_map(|&i| {
                let key = name(&self.ra[i]);
                let bs = named_b.get(&key)?;
                let j = *bs.iter().find(|&&j| fits(i, j))?;
                let partners_of_a = bs.iter().filter(|&&j| fits(i, j)).count();
                let partners_of_b = named_a[&key].iter().filter(|&&i| fits(i, j)).count();
                (partners_of_a == 1 && partners_of_b == 1).then_some((i, j))
            })
            .collect();
        self.drop_taken(&pairs);
        pairs
    }

    /// Takes the results of `pairs` off both lists.
    fn drop_taken(&mut self, pairs: &[(usize, usize)]) {
        let (a, b): (HashSet<usize>, HashSet<usize>) = pairs.iter().copied().unzip();
        self.a.retain(|i| !a.contains(i));
        self.b.retain(|j| !b.contains(j));
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
