//! Percentile plot: latency against percentile, p0 to p99.99, one line per
//! case, read back from the stored HdrHistograms. The percentile axis is
//! the "nines" scale (p90, p99, p99.9 equally spaced) and latency is
//! log-scaled when it spans decades, as tails usually do.

use super::lines::{self, LineChart};
use super::{ident, line, shared_or, Axis, Chart, Labels, Line, Source};
use crate::format::{case_label, human};
use crate::model::CaseResult;
use crate::stats::histogram::Latencies;

/// How far along the nines scale the plot goes: 4 is p99.99.
const NINES: f64 = 4.0;
/// Points per nine.
const STEPS: usize = 25;
/// The named percentiles (ticks and marks): p0, p50, p90, p99, p99.9, p99.99.
const TICKS: [f64; 6] = [0.0, std::f64::consts::LOG10_2, 1.0, 2.0, 3.0, 4.0];

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut lines: Vec<Line> = Vec::new();
    let mut kinds = Vec::new();
    let mut units = Vec::new();
    for source in sources {
        for result in source.ok() {
            let Some(points) = percentiles(result)? else {
                continue;
            };
            let summary = result.latency.as_ref();
            kinds.extend(summary.map(|l| l.kind));
            units.extend(summary.map(|l| l.unit.clone()));
            let mut line = line(result, case_label(&result.case), source, "");
            line.marks = marks(&line, &points);
            line.points = points;
            lines.push(line);
        }
    }
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let kind = kinds
        .first()
        .copied()
        .filter(|k| kinds.iter().all(|o| o == k));
    let unit = shared_or(units, "ns");
    let desc = ident::latency_title(kind, &unit);
    let y = Axis::new(desc, Labels::Unit(unit))
        .auto_log(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let mut x = Axis::new("percentile (%, nines scale)", Labels::Nines);
    x.fixed = Some(TICKS.to_vec());
    let title = match kind {
        Some(k) => format!("{} latency by percentile", k.as_str()),
        None => "latency by percentile".to_string(),
    };
    let spec = LineChart {
        title,
        x,
        y,
        lines,
        joined: true,
        original: None,
    };
    Ok(vec![lines::draw(spec, sources)?])
}

/// The marks of a curve: its points at the named percentiles, titled
/// `pipe/same-cpu/processes/1 B: p99 = 12.3 us`.
fn marks(line: &Line, points: &[(f64, f64)]) -> Vec<(f64, f64, String)> {
    points
        .iter()
        .filter(|(x, _)| TICKS.iter().any(|t| (t - x).abs() < 1e-9))
        .map(|&(x, y)| {
            let q = Axis::new("", Labels::Nines).label(x);
            let title = ident::hover(&line.tag, &line.name, format!("{q} = {}", human(y, "ns")));
            (x, y, title)
        })
        .collect()
}

/// (nines, latency ns) from p0 to p99.99, or None without a histogram.
fn percentiles(result: &CaseResult) -> anyhow::Result<Option<Vec<(f64, f64)>>> {
    let Some(blob) = &result.histogram else {
        return Ok(None);
    };
    let latencies = Latencies::from_v2(blob)?;
    if latencies.count() == 0 {
        return Ok(None);
    }
    let mut xs: Vec<f64> = (0..=(NINES as usize * STEPS))
        .map(|i| i as f64 / STEPS as f64)
        .chain(TICKS)
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    let qs: Vec<f64> = xs.iter().map(|x| 1.0 - 10f64.powf(-x)).collect();
    let values = latencies.quantiles(&qs);
    Ok(Some(
        xs.into_iter()
            .zip(values)
            .map(|(x, v)| (x, v as f64))
            .collect(),
    ))
}
