//! One-line findings shared by scenarios: which mechanism wins within each
//! placement and message size, and what crossing CPUs costs. A difference
//! inside the repetition spread is said to be so.

use crate::format::{plural, ratio as times, size};
use crate::measure::metric::clearly_differs;
use crate::mechanism;
use crate::model::{CaseResult, Finding, Metric, Status};
use crate::stats::estimators::median;
use std::collections::BTreeMap;

fn headline(r: &CaseResult) -> Option<&Metric> {
    r.headline_metric().map(|(_, m)| m)
}

fn ok_results<'a>(results: &[&'a CaseResult]) -> Vec<&'a CaseResult> {
    results
        .iter()
        .copied()
        .filter(|r| r.status == Status::Ok && headline(r).is_some())
        .collect()
}

/// "placement, 64 B" for grouping and for the verdict's parenthesis.
fn group_key(r: &CaseResult) -> String {
    let placement = r.param_str("placement").unwrap_or_default();
    match r.params.get(mechanism::SIZE.name).and_then(|v| v.as_u64()) {
        Some(bytes) => format!("{placement}, {}", size(bytes)),
        None => placement,
    }
}

/// The mechanism with its own parameters, e.g. "shm wake=futex".
pub(crate) fn mech(r: &CaseResult) -> String {
    let name = r.param_str("mech").unwrap_or_else(|| r.case.clone());
    let own = mechanism::find(&name)
        .map(|m| m.params())
        .unwrap_or_default();
    // A far side ran on the peer: its name says so, as the case's does.
    let here = match r.params.contains_key("peer") {
        true => format!("{name}@peer"),
        false => name.clone(),
    };
    own.iter()
        .filter_map(|p| r.param_str(p.name).map(|v| format!(" {}={v}", p.name)))
        .fold(here, |acc, part| acc + &part)
}

/// Per placement and size: the best mechanism against pipe (or against the
/// worst when pipe is best).
pub(crate) fn fastest_per_group(
    results: &[&CaseResult],
    scenario: &str,
    what: &str,
    higher_is_better: bool,
) -> Vec<Finding> {
    let better = |a: &Metric, b: &Metric| {
        if higher_is_better {
            a.value > b.value
        } else {
            a.value < b.value
        }
    };
    let mut lines = Vec::new();
    for (key, group) in groups(results).into_iter().filter(|(_, g)| g.len() >= 2) {
        let best = *group
            .iter()
            .reduce(|a, b| {
                if better(headline(b).unwrap(), headline(a).unwrap()) {
                    b
                } else {
                    a
                }
            })
            .unwrap();
        let worst = *group
            .iter()
            .reduce(|a, b| {
                if better(headline(a).unwrap(), headline(b).unwrap()) {
                    b
                } else {
                    a
                }
            })
            .unwrap();
        let pipe = group.iter().find(|r| mech(r) == "pipe").copied();
        let other = match pipe {
            Some(p) if mech(p) != mech(best) => p,
            _ => worst,
        };
        lines.push(compare_line(
            best,
            other,
            scenario,
            &key,
            what,
            higher_is_better,
        ));
    }
    lines
}

/// Ok results grouped by placement and message size. A counter mechanism
/// (eventfd) carries 8 bytes whatever the size asked for, so it joins the
/// groups of its placement whose messages are no larger than that.
fn groups<'a>(results: &[&'a CaseResult]) -> BTreeMap<String, Vec<&'a CaseResult>> {
    let ok = ok_results(results);
    let is_counter = |r: &CaseResult| {
        r.param_str("mech")
            .and_then(|m| mechanism::find(&m))
            .is_some_and(|m| m.caps().counter)
    };
    let mut groups: BTreeMap<String, Vec<&CaseResult>> = BTreeMap::new();
    for r in ok.iter().filter(|r| !is_counter(r)) {
        groups.entry(group_key(r)).or_default().push(r);
    }
    for r in ok.iter().filter(|r| is_counter(r)) {
        let placement = r.param_str("placement").unwrap_or_default();
        let mut joined = false;
        for group in groups.values_mut() {
            let small = group[0]
                .params
                .get(mechanism::SIZE.name)
                .and_then(|v| v.as_u64())
                .is_some_and(|s| s <= 8);
            if small
                && group[0].param_str("placement").unwrap_or_default() == placement
                && !group.iter().any(|g| is_counter(g))
            {
                group.push(r);
                joined = true;
            }
        }
        if !joined {
            groups.entry(group_key(r)).or_default().push(r);
        }
    }
    groups
}

fn compare_line(
    best: &CaseResult,
    other: &CaseResult,
    scenario: &str,
    key: &str,
    what: &str,
    higher: bool,
) -> Finding {
    let (b, o) = (headline(best).unwrap(), headline(other).unwrap());
    let ratio = if higher {
        b.value / o.value
    } else {
        o.value / b.value
    };
    let spread = if clearly_differs(b, o) {
        ""
    } else {
        " (within the repetition spread)"
    };
    let text = match times(ratio) == times(1.0) {
        true => format!(
            "{} and {} are about the same ({scenario}, {key}, {what})",
            mech(best),
            mech(other)
        ),
        false => format!(
            "{} is {} faster than {} ({scenario}, {key}, {what}){spread}",
            mech(best),
            times(ratio),
            mech(other)
        ),
    };
    Finding::new(format!("fastest/{key}, {what}"), text)
        .with(&mech(best), b.value, &b.unit)
        .with(&mech(other), o.value, &o.unit)
        .with("ratio", ratio, "x")
}

/// How much more a cross-cpu case costs than the same mechanism same-cpu.
pub(crate) fn cross_cpu_cost(results: &[&CaseResult], what: &str) -> Option<Finding> {
    let ok = ok_results(results);
    let find = |m: &str, size: &Option<String>, placement: &str| {
        ok.iter().find(|r| {
            mech(r) == m
                && &r.param_str(mechanism::SIZE.name) == size
                && r.param_str("placement").as_deref() == Some(placement)
        })
    };
    let mut ratios: Vec<(String, f64)> = Vec::new();
    for cross in ok
        .iter()
        .filter(|r| r.param_str("placement").as_deref() == Some("cross-cpu"))
    {
        let size = cross.param_str(mechanism::SIZE.name);
        if let Some(same) = find(&mech(cross), &size, "same-cpu") {
            ratios.push((mech(cross), headline(cross)?.value / headline(same)?.value));
        }
    }
    if ratios.is_empty() {
        return None;
    }
    let mut values: Vec<f64> = ratios.iter().map(|(_, r)| *r).collect();
    let mid = median(&mut values);
    let (lo, hi) = (values[0], values[values.len() - 1]);
    let text = format!(
        "cross-cpu {what} cost {}-{} the same-cpu ones (median {} over {})",
        times(lo),
        times(hi),
        times(mid),
        plural(ratios.len(), "case")
    );
    let finding = Finding::new("cross-cpu-cost", text).with("median", mid, "x");
    Some(finding.with("lowest", lo, "x").with("highest", hi, "x"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metric::metric;

    fn texts(found: Vec<Finding>) -> Vec<String> {
        found.into_iter().map(|f| f.text).collect()
    }

    fn result(mech: &str, placement: &str, rtt: &[f64]) -> CaseResult {
        let mut params = BTreeMap::new();
        params.insert("mech".to_string(), mech.into());
        params.insert("placement".to_string(), placement.into());
        params.insert("size".to_string(), 1.into());
        let mut r = CaseResult::new("pingpong", &format!("{mech}/{placement}"), params);
        r.metrics
            .insert("rtt_ns".into(), metric(rtt.to_vec(), "ns"));
        r.headline = Some("rtt_ns".into());
        r
    }

    #[test]
    fn fastest_is_compared_with_pipe() {
        let (a, b, c) = (
            result("pipe", "same-cpu", &[1000.0, 1010.0]),
            result("eventfd", "same-cpu", &[500.0, 505.0]),
            result("tcp", "same-cpu", &[3000.0, 3100.0]),
        );
        let lines = texts(fastest_per_group(
            &[&a, &b, &c],
            "pingpong",
            "median RTT",
            false,
        ));
        assert_eq!(
            lines,
            vec!["eventfd is 2.00x faster than pipe (pingpong, same-cpu, 1 B, median RTT)"]
        );
    }

    #[test]
    fn overlapping_spreads_are_flagged_and_pipe_best_compares_with_worst() {
        let (a, b) = (
            result("pipe", "same-cpu", &[900.0, 1100.0]),
            result("tcp", "same-cpu", &[1000.0, 1200.0]),
        );
        let lines = texts(fastest_per_group(
            &[&a, &b],
            "pingpong",
            "median RTT",
            false,
        ));
        assert_eq!(
            lines,
            vec!["pipe is 1.10x faster than tcp (pingpong, same-cpu, 1 B, median RTT) (within the repetition spread)"]
        );
    }

    #[test]
    fn failed_results_take_no_part() {
        let a = result("pipe", "same-cpu", &[1000.0]);
        let mut b = result("eventfd", "same-cpu", &[1.0]);
        b.status = Status::Failed;
        assert!(fastest_per_group(&[&a, &b], "pingpong", "x", false).is_empty());
    }

    #[test]
    fn a_counter_mechanism_joins_the_size_groups_of_its_placement() {
        let a = result("pipe", "same-cpu", &[1000.0]);
        let mut b = result("eventfd", "same-cpu", &[500.0]);
        b.params.insert("size".into(), 8.into());
        let lines = texts(fastest_per_group(
            &[&a, &b],
            "pingpong",
            "median RTT",
            false,
        ));
        assert_eq!(
            lines,
            vec!["eventfd is 2.00x faster than pipe (pingpong, same-cpu, 1 B, median RTT)"]
        );
    }

    #[test]
    fn cross_cpu_cost_summarises_ratios() {
        let (a, b) = (
            result("pipe", "same-cpu", &[1000.0]),
            result("pipe", "cross-cpu", &[8000.0]),
        );
        let line = cross_cpu_cost(&[&a, &b], "round trips").unwrap().text;
        assert!(
            line.starts_with(
                "cross-cpu round trips cost 8.00x-8.00x the same-cpu ones (median 8.00x over 1 case)"
            ),
            "{line}"
        );
    }
}
