//! Latency under offered load: the cases run open loop (`rate=R`; they
//! carry the offered rate) drawn as p50, p99 and p99.9 of their latency
//! against the rate offered, one line per case and percentile, so the knee
//! where a mechanism's tail turns up shows. A point whose achieved rate
//! fell short of the offered one says so in its hover title.

use super::lines::{self, LineChart};
use super::sweep::line_name;
use super::{ident, line, Axis, Chart, Labels, Line, Source};
use crate::format::human;
use crate::model::{CaseResult, LatencySummary};
use crate::scenario::common::open_loop::{OFFERED_PER_S, RATE};
use std::collections::BTreeSet;

/// How to read one percentile from a latency summary.
type Read = fn(&LatencySummary) -> u64;

/// The percentiles drawn, by name and how to read them from a summary.
const PERCENTILES: [(&str, Read); 3] = [
    ("p50", |l| l.p50),
    ("p99", |l| l.p99),
    ("p99.9", |l| l.p99_9),
];
/// Up to this many offered rates each get a tick of their own.
const OWN_TICKS: usize = 8;

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let all: Vec<&CaseResult> = sources
        .iter()
        .flat_map(|s| s.ok())
        .filter(|r| offered(r).is_some() && r.latency.is_some())
        .collect();
    let lines = load_lines(sources, &all);
    if !lines.iter().any(|l| l.points.len() > 1) {
        return Ok(Vec::new());
    }
    let xs: BTreeSet<u64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0.to_bits()))
        .collect();
    let xs: Vec<f64> = xs.into_iter().map(f64::from_bits).collect();
    let mut x = Axis::new("offered rate (requests/s)", Labels::Unit("1/s".into()))
        .auto_log(xs.iter().copied());
    if xs.len() <= OWN_TICKS {
        x.fixed = Some(xs);
    }
    let kind = all.iter().find_map(|r| r.latency.as_ref().map(|l| l.kind));
    let y = Axis::new(ident::latency_title(kind, "ns"), Labels::Unit("ns".into()))
        .auto_log(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let spec = LineChart {
        title: "latency percentiles by offered rate".into(),
        x,
        y,
        lines,
        joined: true,
        original: None,
    };
    Ok(vec![lines::draw(spec, sources)?])
}

/// The rate offered to `r`, if it ran open loop.
fn offered(r: &CaseResult) -> Option<f64> {
    OFFERED_PER_S.of(r).map(|m| m.value)
}

/// One line per source, case (without its rate) and percentile.
fn load_lines(sources: &[Source], all: &[&CaseResult]) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    for source in sources {
        let first = lines.len();
        for r in source
            .ok()
            .filter(|r| all.iter().any(|a| std::ptr::eq(*a, *r)))
        {
            let (Some(x), Some(latency)) = (offered(r), r.latency.as_ref()) else {
                continue;
            };
            let case = line_name(r, RATE.name, all);
            let short = r.flags.iter().any(|f| f.name == "rate_short");
            for (pct, read) in PERCENTILES {
                let name = format!("{case} {pct}");
                let y = read(latency) as f64;
                let what = format!("{name}, offered {}", human(x, "1/s"));
                let note = if short {
                    " (achieved rate fell short)"
                } else {
                    ""
                };
                let title = ident::hover(&source.tag, &what, format!("{}{note}", human(y, "ns")));
                let index = match lines[first..].iter().position(|l| l.name == name) {
                    Some(i) => first + i,
                    None => {
                        let mut new = line(r, name, source, RATE.name);
                        new.dims.push(("percentile".into(), pct.into()));
                        lines.push(new);
                        lines.len() - 1
                    }
                };
                lines[index].points.push((x, y));
                lines[index].marks.push((x, y, title));
            }
        }
    }
    for l in &mut lines {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Flag, LatencyKind};
    use serde_json::json;

    fn open_loop(mech: &str, rate: u64, p50: u64, short: bool) -> CaseResult {
        let params = [
            ("mech", json!(mech)),
            ("placement", json!("same-cpu")),
            ("mode", json!("processes")),
            ("rate", json!(rate)),
        ];
        let params = params
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let mut r = CaseResult::new("pingpong", &format!("{mech}/rate={rate}"), params);
        OFFERED_PER_S.set(&mut r, vec![rate as f64]);
        r.latency = Some(LatencySummary {
            kind: LatencyKind::RoundTrip,
            unit: "ns".into(),
            count: 100,
            mean: p50 as f64,
            p50,
            p90: 2 * p50,
            p99: 3 * p50,
            p99_9: 4 * p50,
            max: 5 * p50,
        });
        if short {
            r.flags.push(Flag {
                name: "rate_short".into(),
                reason: "short".into(),
            });
        }
        r
    }

    fn source(results: &[CaseResult]) -> Source<'_> {
        Source {
            tag: String::new(),
            results: results.iter().collect(),
            baseline: false,
        }
    }

    #[test]
    fn each_case_gets_three_percentile_lines_by_offered_rate() {
        let mut results = vec![
            open_loop("pipe", 10_000, 100, false),
            open_loop("pipe", 1_000, 50, false),
            open_loop("tcp", 1_000, 70, false),
            open_loop("tcp", 10_000, 900, true),
        ];
        // A closed-loop case has no offered rate and no place on this chart.
        let mut closed = open_loop("pipe", 1, 10, false);
        closed.metrics.clear();
        results.push(closed);
        let sources = [source(&results)];
        let all: Vec<&CaseResult> = results[..4].iter().collect();
        let lines = load_lines(&sources, &all);
        let names: Vec<&str> = lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "pipe/same-cpu/processes p50",
                "pipe/same-cpu/processes p99",
                "pipe/same-cpu/processes p99.9",
                "tcp/same-cpu/processes p50",
                "tcp/same-cpu/processes p99",
                "tcp/same-cpu/processes p99.9",
            ]
        );
        assert_eq!(lines[1].points, vec![(1_000.0, 150.0), (10_000.0, 300.0)]);
        assert!(lines[3].marks[1].2.contains("(achieved rate fell short)"));
        assert!(!lines[0].marks[0].2.contains("short"));
        let charts = charts(&sources).unwrap();
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].title, "latency percentiles by offered rate");
    }

    #[test]
    fn no_chart_without_a_swept_rate() {
        let results = vec![open_loop("pipe", 1_000, 50, false)];
        assert!(charts(&[source(&results)]).unwrap().is_empty());
    }
}
