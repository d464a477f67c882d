//! Time series: when results carry values over time (`CaseResult.series`),
//! one chart per unit with a line per case and series, seconds on x.

use super::lines::{self, LineChart};
use super::{line, Axis, Chart, Labels, Line, Source};
use crate::format::case_label;

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
    units.iter().map(|unit| chart(sources, unit)).collect()
}

fn chart(sources: &[Source], unit: &str) -> anyhow::Result<Chart> {
    let mut names = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let mut series_names = Vec::new();
    for source in sources {
        for r in source.ok() {
            for s in r.series.iter().filter(|s| s.unit == unit) {
                let name = format!("{} {}", case_label(&r.case), s.name);
                let points = s.points.iter().map(|p| (p[0], p[1])).collect();
                lines.push(line(&name, source, &mut names, points));
                series_names.push(s.name.clone());
            }
        }
    }
    let what = super::shared_or(series_names, "series");
    let x = Axis::new("time since start (s)", Labels::Unit("s".into()));
    let y = Axis::new(format!("{what} ({unit})"), Labels::Unit(unit.into()))
        .auto_log(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let spec = LineChart {
        title: format!("{what} over time"),
        x,
        y,
        lines,
    };
    lines::draw(spec, sources)
}
