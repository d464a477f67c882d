//! The finding of `contention` per mechanism: how much slower each side's
//! calls get when both run (mean and p99.9, against each side alone), how
//! many calls were slow, how busy the reader stayed, and whether that
//! amounts to the original's stalls: with both sides running, at least 10
//! slow calls and over 4x as many as the two sides had alone.

use super::result::{RoleMetrics, READER, WRITER};
use super::{SLOW, TEST};
use crate::model::{CaseResult, Status};
use crate::scenario::common::verdict::mech;
use crate::scenario::MetricSpec;
use std::collections::BTreeMap;

const MIN_STALLS: f64 = 10.0;
const STALL_FACTOR: f64 = 4.0;

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

pub(crate) fn lines(results: &[&CaseResult]) -> Vec<String> {
    let mut lines = Vec::new();
    let (mut stalled, mut calm) = (Vec::new(), Vec::new());
    for (key, tests) in by_mechanism(results) {
        let Some(finding) = compare(&tests) else {
            continue;
        };
        let mech = tests.values().next().map(|r| mech(r)).unwrap_or_default();
        lines.push(format!("{key}: {}", finding.text));
        if finding.stalls {
            stalled.push(mech);
        } else {
            calm.push(mech);
        }
    }
    stalled.sort();
    stalled.dedup();
    calm.sort();
    calm.dedup();
    if !stalled.is_empty() || !calm.is_empty() {
        lines.push(summary(&stalled, &calm));
    }
    lines
}

fn summary(stalled: &[String], calm: &[String]) -> String {
    match (stalled.is_empty(), calm.is_empty()) {
        (false, true) => format!(
            "this kernel still shows the original's stalls, for every mechanism tried: {}",
            stalled.join(", ")
        ),
        (false, false) => format!(
            "this kernel still shows the original's stalls for {}; not for {}",
            stalled.join(", "),
            calm.join(", ")
        ),
        _ => format!(
            "this kernel does not show the original's stalls for any mechanism tried ({})",
            calm.join(", ")
        ),
    }
}

struct Finding {
    text: String,
    stalls: bool,
}

fn ratio(tests: &Tests, test: &str, alone: &str, metric: &MetricSpec) -> Option<f64> {
    Some(metric.value(tests.get(test)?)? / metric.value(tests.get(alone)?)?)
}

/// `both` against `reader-only` and `writer-only`.
fn compare(tests: &Tests) -> Option<Finding> {
    let both = tests.get("both")?;
    let slowdown = |side: &RoleMetrics| -> Option<String> {
        let alone = format!("{}-only", side.role);
        let mean = ratio(tests, "both", &alone, &side.mean_ns)?;
        let p999 = ratio(tests, "both", &alone, &side.p99_9_ns)?;
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
    let stalls = slow_both >= MIN_STALLS && slow_both > STALL_FACTOR * slow_alone.max(1.0);
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
    let verdict = if stalls {
        "stalls as in the original"
    } else {
        "no stalls like the original's"
    };
    Some(Finding {
        text: format!("both sides together: {}: {verdict}", parts.join(", ")),
        stalls,
    })
}
