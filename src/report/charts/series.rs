//! Time series: when results carry values over time (`CaseResult.series`),
//! one chart per unit with a line per case and series, seconds on x. The
//! series name is a dimension of the line (a marker, or its own small
//! chart); series of fewer than `JOINED` points are drawn as dots only.
//! Series that never span time (every point at one instant, as a quick
//! run's single samples) get no chart: a time axis would draw them all
//! at its origin, and their values are in the tables.

use super::lines::{self, LineChart};
use super::{ident, line, panels, Axis, Chart, Labels, Line, Source};
use crate::format::{case_label, human};

/// Series of at least this many points are drawn as lines.
const JOINED: usize = 5;

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut units: Vec<&str> = Vec::new();
    for source in sources {
        for r in source.ok() {
            for s in &r.series {
                if !units.contains(&s.unit.as_str()) {
                    units.push(&s.unit);
                }
            }
        }
    }
    units
        .iter()
        .map(|unit| chart(sources, unit))
        .filter_map(Result::transpose)
        .collect()
}

/// Whether some line has points at two different times.
fn spans_time(lines: &[Line]) -> bool {
    lines.iter().any(|l| {
        let mut times = l.points.iter().map(|p| p.0);
        let first = times.next();
        times.any(|t| Some(t) != first)
    })
}

fn chart(sources: &[Source], unit: &str) -> anyhow::Result<Option<Chart>> {
    let mut lines: Vec<Line> = Vec::new();
    let mut series_names = Vec::new();
    for source in sources {
        for r in source.ok() {
            for s in r.series.iter().filter(|s| s.unit == unit) {
                let name = format!("{} {}", case_label(&r.case), s.name);
                let mut line = line(r, name, source, "");
                line.dims.push((panels::SERIES.into(), s.name.clone()));
                line.points = s.points.iter().map(|p| (p[0], p[1])).collect();
                line.marks = line
                    .points
                    .iter()
                    .map(|&(t, v)| {
                        let what = format!("{} at {}", line.name, human(t, "s"));
                        (t, v, ident::hover(&line.tag, &what, human(v, unit)))
                    })
                    .collect();
                lines.push(line);
                series_names.push(s.name.clone());
            }
        }
    }
    if !spans_time(&lines) {
        return Ok(None);
    }
    let what = super::shared_or(series_names, "series value");
    let x = Axis::new("time since start (s)", Labels::Unit("s".into()));
    let y = Axis::new(format!("{what} ({unit})"), Labels::Unit(unit.into()))
        .auto_log(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let joined = lines.iter().all(|l| l.points.len() >= JOINED);
    let title = match joined {
        true => format!("{what} over time"),
        false => format!("{what} over time (dots: under {JOINED} points each)"),
    };
    let spec = LineChart {
        title,
        x,
        y,
        lines,
        joined,
        original: None,
    };
    lines::draw(spec, sources).map(Some)
}
