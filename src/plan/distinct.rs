//! One id per case: a run's JSON, CSV, store and tables find a case by its
//! scenario and name, so two cases of one run never share them. Where the
//! parameters marked `in_name` do not tell two cases apart (a swept
//! `count`, two suite entries that differ in `active` or in repetitions),
//! the parameters that do join both names.

use crate::error::{UsageError, UsageResult};
use crate::scenario::CaseSpec;
use std::collections::BTreeMap;

/// Names every parameter that tells two of `cases` apart in both their
/// names; two cases still alike in name (they differ in nothing a name
/// can carry) are refused, naming them.
pub(crate) fn name_apart(cases: &mut [CaseSpec]) -> UsageResult<()> {
    let passes: [Differing; 2] = [differing_params, differing_repetitions];
    for differing in passes {
        for indices in same_names(cases).into_values().filter(|i| i.len() > 1) {
            let keys = differing(cases, &indices);
            for &i in &indices {
                cases[i].also_named.extend(keys.iter().copied());
            }
        }
    }
    match same_names(cases).into_iter().find(|(_, i)| i.len() > 1) {
        None => Ok(()),
        Some(((scenario, name), _)) => Err(UsageError::new(format!(
            "two cases of {scenario} would both be named '{name}': they differ in nothing \
             a case's name can carry; run them as two invocations"
        ))),
    }
}

/// Which keys tell some of the cases apart.
type Differing = fn(&[CaseSpec], &[usize]) -> Vec<&'static str>;

/// The cases' indices by scenario and name.
fn same_names(cases: &[CaseSpec]) -> BTreeMap<(&'static str, String), Vec<usize>> {
    let mut by_name: BTreeMap<(&'static str, String), Vec<usize>> = BTreeMap::new();
    for (i, case) in cases.iter().enumerate() {
        let key = (case.scenario.name(), case.name());
        by_name.entry(key).or_default().push(i);
    }
    by_name
}

/// The parameters whose values differ among `indices` of `cases`, in the
/// order the cases carry them.
fn differing_params(cases: &[CaseSpec], indices: &[usize]) -> Vec<&'static str> {
    let first = &cases[indices[0]];
    let others = || indices[1..].iter().map(|&i| &cases[i]);
    first
        .values
        .keys()
        .copied()
        .filter(|k| others().any(|c| c.values.get(k) != first.values.get(k)))
        .collect()
}

/// `reps` and `warmup` where they differ among `indices` of `cases`: the
/// last resort, when no parameter tells the cases apart.
fn differing_repetitions(cases: &[CaseSpec], indices: &[usize]) -> Vec<&'static str> {
    let first = &cases[indices[0]];
    let others = || indices[1..].iter().map(|&i| &cases[i]);
    let mut keys = Vec::new();
    if others().any(|c| c.repeat != first.repeat) {
        keys.push("reps");
    }
    if others().any(|c| c.warmup != first.warmup) {
        keys.push("warmup");
    }
    keys
}
