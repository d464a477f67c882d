//! SVG charts drawn from the shape of the data, not from knowledge of a
//! scenario: a latency histogram gets a percentile plot, a headline gets
//! bars with its repetition spread, a numeric parameter that varies gets
//! sweep lines, a result with series gets a time chart. A new scenario gets
//! charts without touching this module. One file per chart kind; `lines.rs`
//! and `bars.rs` draw, the others only shape data.

mod axis;
mod bars;
mod frame;
mod lines;
mod percentile;
mod series;
mod sweep;

pub(crate) use axis::{Axis, Labels};

use crate::model::{CaseResult, Status};
use serde::Serialize;

/// One drawn chart: its title, the SVG markup (text in it escaped by
/// plotters) and the legend, rendered as HTML next to it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Chart {
    pub(crate) title: String,
    pub(crate) svg: String,
    pub(crate) legend: Vec<Swatch>,
}

/// One legend entry: a colour (CSS hex), a line style and a name.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Swatch {
    pub(crate) color: String,
    pub(crate) dashed: bool,
    pub(crate) name: String,
}

/// The results of one scenario from one run; a baseline run is drawn
/// dashed (lines) or lighter (bars) on the same charts.
pub(crate) struct Source<'a> {
    /// "A" or "B" in a comparison, empty for a single run.
    pub(crate) tag: String,
    pub(crate) results: Vec<&'a CaseResult>,
    pub(crate) baseline: bool,
}

impl Source<'_> {
    /// The results that are `ok`: only they carry numbers worth drawing.
    fn ok(&self) -> impl Iterator<Item = &CaseResult> {
        self.results
            .iter()
            .copied()
            .filter(|r| r.status == Status::Ok)
    }
}

/// A line of a line chart: points in data units, drawn in `color`.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub(crate) name: String,
    pub(crate) color: usize,
    pub(crate) dashed: bool,
    pub(crate) points: Vec<(f64, f64)>,
}

/// Every chart the data of one scenario supports, in a fixed order.
pub(crate) fn for_group(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut charts = Vec::new();
    charts.extend(percentile::charts(sources)?);
    charts.extend(bars::charts(sources)?);
    charts.extend(sweep::charts(sources)?);
    charts.extend(series::charts(sources)?);
    Ok(charts)
}

/// Tableau 10, then darker companions of each: twenty lines (a quick
/// run's 14 pingpong cases) stay apart, and all read on white.
const PALETTE: [(u8, u8, u8); 20] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (16, 60, 110),
    (160, 82, 0),
    (20, 90, 20),
    (120, 10, 20),
    (80, 50, 120),
    (80, 45, 35),
    (160, 40, 120),
    (40, 40, 40),
    (110, 110, 0),
    (0, 110, 120),
];

pub(crate) fn rgb(index: usize) -> (u8, u8, u8) {
    PALETTE[index % PALETTE.len()]
}

pub(crate) fn hex(index: usize) -> String {
    let (r, g, b) = rgb(index);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Colour index per line name, in order of first appearance, so a case
/// keeps its colour across both runs of a comparison. Past the palette's
/// end lines repeat colours, told apart by the legend order.
pub(crate) fn color_of(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    }
}

/// Legend: one entry per colour, then, in a comparison, what dashed means.
fn legend(lines: &[Line], sources: &[Source]) -> Vec<Swatch> {
    let mut out: Vec<Swatch> = Vec::new();
    for line in lines {
        if !out.iter().any(|s| s.name == line.name) {
            out.push(Swatch {
                color: hex(line.color),
                dashed: false,
                name: line.name.clone(),
            });
        }
    }
    if sources.len() > 1 {
        out.extend(sources.iter().map(|s| Swatch {
            color: "#444444".into(),
            dashed: s.baseline,
            name: format!("run {}", s.tag),
        }));
    }
    out
}

/// The line name in a comparison keeps the case name; the run shows in the style.
fn line(name: &str, source: &Source, names: &mut Vec<String>, points: Vec<(f64, f64)>) -> Line {
    Line {
        name: name.to_string(),
        color: color_of(names, name),
        dashed: source.baseline,
        points,
    }
}

/// A value shared by every item, or the fallback when they differ or there are none.
pub(crate) fn shared_or(values: impl IntoIterator<Item = String>, fallback: &str) -> String {
    let mut values = values.into_iter();
    match values.next() {
        Some(first) if values.all(|v| v == first) => first,
        _ => fallback.to_string(),
    }
}
