//! The cases `compare` did not compare, as lines: a case of the same name
//! run with other parameters (`unmatched: poll-scale select/tcp/idle=0:
//! requests 1000 vs 2000`), a case only one run has, and a paired case that
//! could not be compared (failed, no headline). Past a handful, a summary
//! line comes first and the rest is condensed: the cases that differ alike
//! on one line, a few names each, and a cap on the lines.

use super::{CaseRef, Comparison, Mismatch};
use crate::format::plural;

/// Up to this many unmatched cases get a line each.
const DETAILED: usize = 8;
/// The condensed lines shown at most.
const MAX_LINES: usize = 12;
/// The names a condensed line lists before `and N more`.
const NAMES: usize = 4;

/// Every line, the not comparable last.
pub(crate) fn lines(c: &Comparison) -> Vec<String> {
    let total = c.only_in_a.len() + c.only_in_b.len() + c.mismatched.len();
    let mut out = match total {
        0 => Vec::new(),
        n if n <= DETAILED => detailed(c),
        n => condensed(c, n),
    };
    out.extend(
        c.not_comparable
            .iter()
            .map(|n| format!("not comparable: {} {}: {}", n.scenario, n.name, n.reason)),
    );
    out
}

/// `requests 1000 vs 2000, repeat 5 vs 1`.
fn differences(m: &Mismatch) -> String {
    let texts: Vec<String> = m.differences.iter().map(|d| d.text()).collect();
    texts.join(", ")
}

/// One line per case.
fn detailed(c: &Comparison) -> Vec<String> {
    let mut out: Vec<String> = c
        .mismatched
        .iter()
        .map(|m| format!("unmatched: {} {}: {}", m.scenario, m.name, differences(m)))
        .collect();
    for (tag, list) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        out.extend(
            list.iter()
                .map(|k| format!("only in {tag}: {} {}", k.scenario, k.name)),
        );
    }
    out
}

/// The summary line, then one line per scenario and kind of difference,
/// at most `MAX_LINES` of them.
fn condensed(c: &Comparison, total: usize) -> Vec<String> {
    let mut details = grouped(
        c.mismatched.iter(),
        |m| format!("unmatched: {}, {}", m.scenario, differences(m)),
        |m| m.name.as_str(),
    );
    for (tag, list) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        let head = |k: &CaseRef| format!("only in {tag}: {}", k.scenario);
        details.extend(grouped(list.iter(), head, |k| k.name.as_str()));
    }
    let mut out = vec![summary(c, total)];
    let hidden = details.len().saturating_sub(MAX_LINES);
    out.extend(details.into_iter().take(MAX_LINES));
    if hidden > 0 {
        let hidden = plural(hidden, "line");
        out.push(format!("{hidden} not shown: --json lists every case"));
    }
    out
}

/// `37 cases unmatched, not compared: 30 with other parameters (requests
/// in 28, repeat in 5), 5 only in A, 2 only in B`.
fn summary(c: &Comparison, total: usize) -> String {
    let mut parts = Vec::new();
    if !c.mismatched.is_empty() {
        parts.push(format!(
            "{} with other parameters ({})",
            c.mismatched.len(),
            param_counts(&c.mismatched)
        ));
    }
    for (tag, list) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        if !list.is_empty() {
            parts.push(format!("{} only in {tag}", list.len()));
        }
    }
    let cases = plural(total, "case");
    format!("{cases} unmatched, not compared: {}", parts.join(", "))
}

/// `requests in 28, repeat in 5`: how many mismatches each parameter is
/// part of, the most frequent first.
fn param_counts(mismatched: &[Mismatch]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for d in mismatched.iter().flat_map(|m| &m.differences) {
        match counts.iter_mut().find(|(p, _)| *p == d.param) {
            Some((_, n)) => *n += 1,
            None => counts.push((&d.param, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let texts: Vec<String> = counts.iter().map(|(p, n)| format!("{p} in {n}")).collect();
    texts.join(", ")
}

/// One line per distinct `head`, in order of first appearance: the head,
/// then the first `NAMES` names and how many more.
fn grouped<'a, T: 'a>(
    items: impl Iterator<Item = &'a T>,
    head: impl Fn(&T) -> String,
    name: impl Fn(&'a T) -> &'a str,
) -> Vec<String> {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for item in items {
        let h = head(item);
        match groups.iter_mut().find(|(g, _)| *g == h) {
            Some((_, names)) => names.push(name(item)),
            None => groups.push((h, vec![name(item)])),
        }
    }
    groups
        .into_iter()
        .map(|(h, names)| format!("{h}: {}", listed(&names)))
        .collect()
}

/// `a, b, c, d and 5 more`.
fn listed(names: &[&str]) -> String {
    let shown = names[..names.len().min(NAMES)].join(", ");
    match names.len().saturating_sub(NAMES) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}
