//! Percentile plot: latency against percentile, p0 to p99.99, one line per
//! case, read back from the stored HdrHistograms. The percentile axis is
//! the "nines" scale (p90, p99, p99.9 equally spaced) and latency is
//! log-scaled when it spans decades, as tails usually do.

use super::lines::{self, LineChart};
use super::{line, shared_or, Axis, Chart, Labels, Line, Source};
use crate::format::case_label;
use crate::measure::histogram::Latencies;
use crate::model::CaseResult;

/// How far along the nines scale the plot goes: 4 is p99.99.
const NINES: f64 = 4.0;
/// Points per nine.
const STEPS: usize = 25;

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut names = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let mut kinds = Vec::new();
    for source in sources {
        for result in source.ok() {
            let Some(points) = percentiles(result)? else {
                continue;
            };
            kinds.extend(result.latency.as_ref().map(|l| l.kind.as_str().to_string()));
            lines.push(line(&case_label(&result.case), source, &mut names, points));
        }
    }
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let kind = shared_or(kinds, "");
    let desc = format!("{kind} latency").trim().to_string();
    let y = Axis::new(desc.clone(), Labels::Unit("ns".into()))
        .auto_log(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let mut x = Axis::new("percentile", Labels::Nines);
    x.fixed = Some(vec![0.0, 2f64.log10(), 1.0, 2.0, 3.0, 4.0]);
    let spec = LineChart {
        title: format!("{desc} by percentile"),
        x,
        y,
        lines,
    };
    Ok(vec![lines::draw(spec, sources)?])
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
    let xs: Vec<f64> = (0..=(NINES as usize * STEPS))
        .map(|i| i as f64 / STEPS as f64)
        .collect();
    let qs: Vec<f64> = xs.iter().map(|x| 1.0 - 10f64.powf(-x)).collect();
    let values = latencies.quantiles(&qs);
    Ok(Some(
        xs.into_iter()
            .zip(values)
            .map(|(x, v)| (x, v as f64))
            .collect(),
    ))
}
