//! The finding of `contention` per mechanism: how much slower each side's
//! calls get when both run (mean and p99.9, against each side alone), how
//! many calls were slow, how busy the reader stayed, and whether that
//! amounts to the original's stalls, as E3's stall test decides it
//! (`stall.rs`): the finding and E3-fifo-stalls read one criterion.

use super::stall;
use crate::model::{CaseResult, Finding, Status};
use crate::scenario::common::verdict::mech;
use crate::scenario::contention::{RoleMetrics, READER, SLOW, TEST, WRITER};
use crate::scenario::MetricSpec;
use std::collections::BTreeMap;

/// The results of one mechanism (and placement, mode), by test name.
type Tests<'a> = BTreeMap<String, &'a CaseResult>;

fn by_mechanism<'a>(results: &[&'a CaseResult]) -> BTreeMap<String, Tests<'a>> {
    let mut out: BTreeMap<String, Tests<'a>> = BTreeMap::new();
    for r in results.iter().filter(|r| r.status == Status::Ok) {
        let test = r.param_str(TEST.name).unwrap_or_default();
        let key = r.case.replacen(&format!("/{test}"), "", 1);
        out.entry(key).or_default().insert(test, r);
    }
    out
}

/// The findings of `contention`: one per mechanism (and placement, mode),
/// then which mechanisms stall.
pub(crate) fn findings(results: &[&CaseResult]) -> Vec<Finding> {
    let mut found = Vec::new();
    let (mut stalled, mut calm, mut unclear) = (Vec::new(), Vec::new(), Vec::new());
    for (key, tests) in by_mechanism(results) {
        let Some(finding) = compare(&key, &tests) else {
            continue;
        };
        let mech = tests.values().next().map(|r| mech(r)).unwrap_or_default();
        match finding.stalls {
            Some(true) => stalled.push(mech),
            Some(false) => calm.push(mech),
            None => unclear.push(mech),
        }
        found.push(finding.finding);
    }
    for list in [&mut stalled, &mut calm, &mut unclear] {
        list.sort();
        list.dedup();
    }
    if !stalled.is_empty() || !calm.is_empty() || !unclear.is_empty() {
        let text = summary(&stalled, &calm, &unclear);
        found.push(Finding::new("stalls", text));
    }
    found
}

/// Which mechanisms stall, which do not, and which the test left unclear.
fn summary(stalled: &[String], calm: &[String], unclear: &[String]) -> String {
    let tried = |names: &[String]| names.join(", ");
    let said = match (stalled.is_empty(), calm.is_empty(), unclear.is_empty()) {
        (false, true, true) => format!(
            "this kernel still shows the original's stalls, for every mechanism tried: {}",
            tried(stalled)
        ),
        (false, true, false) => format!(
            "this kernel still shows the original's stalls for {}",
            tried(stalled)
        ),
        (false, false, _) => format!(
            "this kernel still shows the original's stalls for {}; not for {}",
            tried(stalled),
            tried(calm)
        ),
        (true, false, true) => format!(
            "this kernel does not show the original's stalls for any mechanism tried ({})",
            tried(calm)
        ),
        (true, false, false) => format!(
            "this kernel does not show the original's stalls for {}",
            tried(calm)
        ),
        (true, true, _) => "this kernel shows the original's stalls clearly for none".to_string(),
    };
    match unclear.is_empty() {
        true => said,
        false => format!("{said}; unclear for {}", tried(unclear)),
    }
}

/// One mechanism's finding, and what the stall test said of it.
struct Compared {
    finding: Finding,
    stalls: Option<bool>,
}

fn ratio(tests: &Tests, test: &str, alone: &str, metric: &MetricSpec) -> Option<f64> {
    Some(metric.value(tests.get(test)?)? / metric.value(tests.get(alone)?)?)
}

/// `both` against `reader-only` and `writer-only`.
fn compare(key: &str, tests: &Tests) -> Option<Compared> {
    let both = tests.get("both")?;
    let mut figures = Vec::new();
    let mut slowdown = |side: &RoleMetrics| -> Option<String> {
        let alone = format!("{}-only", side.role);
        let mean = ratio(tests, "both", &alone, &side.mean_ns)?;
        let p999 = ratio(tests, "both", &alone, &side.p99_9_ns)?;
        figures.push((format!("{}_mean_slowdown", side.role), mean, "x"));
        figures.push((format!("{}_p99_9_slowdown", side.role), p999, "x"));
        Some(format!(
            "{} calls {} slower on average (p99.9 {})",
            side.role,
            crate::format::ratio(mean),
            crate::format::ratio(p999)
        ))
    };
    let slow_both = READER.slow_calls.value(both)? + WRITER.slow_calls.value(both)?;
    let slow_alone = tests
        .get("reader-only")
        .and_then(|r| READER.slow_calls.value(r))
        .unwrap_or(0.0)
        + tests
            .get("writer-only")
            .and_then(|r| WRITER.slow_calls.value(r))
            .unwrap_or(0.0);
    let test = tests
        .get("reader-only")
        .map(|alone| stall::test(both, alone));
    let stalls = test.as_ref().and_then(|t| t.as_ref().ok()?.stalls);
    let busy = READER.cpu_util.value(both).unwrap_or(f64::NAN) * 100.0;
    let slow_ns = both
        .params
        .get(SLOW.name)
        .and_then(|v| v.as_u64())
        .unwrap_or(1_000_000);
    let slow = humantime::format_duration(std::time::Duration::from_nanos(slow_ns));
    let mut parts: Vec<String> = [slowdown(&READER), slowdown(&WRITER)]
        .into_iter()
        .flatten()
        .collect();
    figures.push(("slow_calls_together".into(), slow_both, "calls"));
    figures.push(("slow_calls_alone".into(), slow_alone, "calls"));
    parts.push(format!(
        "{} over {slow} together (alone {}), reader on CPU {busy:.0}% of the time",
        crate::format::human(slow_both, "calls"),
        slow_alone.round()
    ));
    if let Some(hogs) = tests.get("both+hogs").and_then(|h| READER.mean_ns.value(h)) {
        if let Some(mean) = READER.mean_ns.value(both) {
            parts.push(format!(
                "with hogs the reader's mean is {} that without",
                crate::format::ratio(hogs / mean)
            ));
        }
    }
    let verdict = match (stalls, test) {
        (Some(true), _) => "stalls as in the original".to_string(),
        (Some(false), _) => "no stalls like the original's".to_string(),
        (None, Some(Ok(_))) => {
            "stalls unclear: some signs of the original's (a call over 1 ms, a mean 3x alone, \
             a side that sleeps) without the others, or one near its bound"
                .to_string()
        }
        (None, Some(Err(why))) => format!("stalls not tested: {why}"),
        (None, None) => "stalls not tested: no reader-only case to compare".to_string(),
    };
    let text = format!(
        "{key}: both sides together: {}: {verdict}",
        parts.join(", ")
    );
    let finding = figures
        .into_iter()
        .fold(Finding::new(key, text), |f, (name, value, unit)| {
            f.with(&name, value, unit)
        });
    Some(Compared { finding, stalls })
}
