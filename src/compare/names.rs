//! The printed name of each result among others: the stored case name as
//! it reads (`format::case_label`), and, where other results of the same
//! scenario read the same, every input parameter in which they differ that
//! the name leaves out (`poll/tcp/idle=0/active=100`), the repetitions
//! last and only when nothing else tells two apart (`reps=20`). Results
//! with the same inputs get the same name, so a comparison can name a case
//! both runs have once. The one naming of the terminal table, its notes,
//! the documents and `compare`.

use super::identity::{self, Inputs, REPEAT};
use crate::format::case_label;
use crate::model::CaseResult;
use std::collections::HashMap;

/// The printed name of each of `results`, in their order.
pub(crate) fn printed(results: &[&CaseResult]) -> Vec<String> {
    let inputs: Vec<Inputs> = results.iter().map(|r| identity::inputs(r)).collect();
    let mut names: Vec<String> = results.iter().map(|r| case_label(&r.case)).collect();
    for group in groups(results, &names) {
        let suffixes = suffixes(results, &inputs, &group);
        for (&i, suffix) in group.iter().zip(suffixes) {
            names[i].push_str(&suffix);
        }
    }
    names
}

/// The indices of results sharing a scenario and a name, for each name
/// more than one result with different inputs reads; in the order the
/// names first appear, in one pass (a run holds up to 10,000 results).
fn groups(results: &[&CaseResult], names: &[String]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut by_name: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, r) in results.iter().enumerate() {
        let key = (r.scenario.as_str(), names[i].as_str());
        match by_name.get(&key) {
            Some(&group) => out[group].push(i),
            None => {
                by_name.insert(key, out.len());
                out.push(vec![i]);
            }
        }
    }
    out.retain(|g| g.len() > 1);
    out
}

/// What each member of `group` adds to its name: the inputs that vary
/// across the group, then its repetitions where those alone differ.
fn suffixes(results: &[&CaseResult], inputs: &[Inputs], group: &[usize]) -> Vec<String> {
    let keys = varying(inputs, group);
    let part = |i: usize, key: &str| -> String {
        let value = inputs[i].get(key).map_or("none", String::as_str);
        let spec = identity::spec(results[i], key);
        format!("/{}", identity::shown(spec, key, value))
    };
    let mut out: Vec<String> = group
        .iter()
        .map(|&i| keys.iter().map(|k| part(i, k)).collect())
        .collect();
    for x in clashing(&out, |x| &inputs[group[x]]) {
        out[x].push_str(&part(group[x], REPEAT));
    }
    out
}

/// The members whose suffix another member with other inputs shares: in
/// a set of equal suffixes, all of them once two inputs differ.
fn clashing<'a>(suffixes: &[String], inputs: impl Fn(usize) -> &'a Inputs) -> Vec<usize> {
    let mut same: HashMap<&str, Vec<usize>> = HashMap::new();
    for (x, suffix) in suffixes.iter().enumerate() {
        same.entry(suffix.as_str()).or_default().push(x);
    }
    let mut out: Vec<usize> = same
        .into_values()
        .filter(|set| set.iter().any(|&x| inputs(x) != inputs(set[0])))
        .flatten()
        .collect();
    out.sort_unstable();
    out
}

/// The inputs, other than the repetitions, whose values are not the same
/// across `group`.
fn varying(inputs: &[Inputs], group: &[usize]) -> Vec<String> {
    let mut keys: Vec<&String> = group.iter().flat_map(|&i| inputs[i].keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| k.as_str() != REPEAT)
        .filter(|k| {
            let first = inputs[group[0]].get(*k);
            group.iter().any(|&i| inputs[i].get(*k) != first)
        })
        .cloned()
        .collect()
}
