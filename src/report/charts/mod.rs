//! SVG charts drawn from the shape of the data, not from knowledge of a
//! scenario: a latency histogram gets a percentile plot, a headline gets
//! bars with its repetition spread, a numeric parameter that varies gets
//! sweep lines, open-loop cases get latency percentiles by offered rate,
//! a result with series gets a time chart, a result with a matrix over
//! CPUs a heatmap, a result of interleaved rounds its headline per round
//! (and an `ab` run's two cases their ratio per round, `ratio_strip.rs`).
//! A new scenario gets charts without touching this module. One file per chart kind; `lines.rs`
//! and `bars.rs` draw, the others only shape data. `palette.rs` and
//! `style.rs` keep one visual language (a mechanism's colour is the same on
//! every chart), `panels.rs` splits crowded charts into small multiples,
//! `marks.rs` draws the data as SVG with a hover title on every mark.
//! The classic graphs a scenario declares (`classic.rs`) come first, with
//! the original's figure marked (`refmark.rs`).

mod axis;
mod bars;
mod classic;
mod classic_bars;
pub(crate) mod fleet;
mod frame;
mod heatmap;
mod ident;
mod lines;
mod load;
mod marks;
mod palette;
mod panels;
mod percentile;
mod ratio_strip;
mod refmark;
mod rounds;
mod series;
mod style;
mod sweep;
#[cfg(test)]
mod tests;

pub(crate) use axis::{Axis, Labels};

use crate::model::{CaseResult, Status};
use serde::Serialize;

/// One drawn chart: its title, the SVG markup (text in it escaped by
/// plotters) and the legend, rendered as HTML next to it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Chart {
    pub(crate) title: String,
    /// A sentence under the title: what a fuller run would show.
    pub(crate) note: String,
    pub(crate) svg: String,
    pub(crate) legend: Vec<Swatch>,
}

/// One legend entry: a colour (CSS hex), a line style, a name, and the
/// icon that draws them (a small inline SVG with the line and marker).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Swatch {
    pub(crate) color: String,
    pub(crate) dashed: bool,
    pub(crate) name: String,
    pub(crate) icon: String,
}

/// The results of one scenario from one run; a baseline run is drawn
/// lighter, with hollow markers, on the same charts.
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

/// A line of a line chart: what it shows, its points in data units, and
/// its marks (points with a hover title; all points, or the named
/// percentiles of a dense curve).
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub(crate) name: String,
    /// What decides the colour: the mechanism, poller or copier.
    pub(crate) key: String,
    /// The case's other dimensions: style, marker, small chart.
    pub(crate) dims: Vec<(String, String)>,
    pub(crate) tag: String,
    pub(crate) baseline: bool,
    pub(crate) points: Vec<(f64, f64)>,
    pub(crate) marks: Vec<(f64, f64, String)>,
}

/// Every chart the data of one scenario supports, in a fixed order.
pub(crate) fn for_group(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut charts = classic::charts(sources)?;
    charts.extend(percentile::charts(sources)?);
    charts.extend(bars::charts(sources)?);
    charts.extend(sweep::charts(sources)?);
    charts.extend(load::charts(sources)?);
    charts.extend(series::charts(sources)?);
    charts.extend(rounds::charts(sources)?);
    charts.extend(ratio_strip::charts(sources)?);
    charts.extend(heatmap::charts(sources)?);
    Ok(charts)
}

/// The index of `name` in `names`, appended when new: rows of a bar
/// chart keep one place across both runs of a comparison.
pub(crate) fn index_of(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    }
}

/// A line of `result` from `source`: coloured by its family, its name the case's.
fn line(result: &CaseResult, name: String, source: &Source, skip: &str) -> Line {
    Line {
        key: ident::family(result).unwrap_or_else(|| name.clone()),
        dims: ident::dims(result, skip),
        name,
        tag: source.tag.clone(),
        baseline: source.baseline,
        points: Vec::new(),
        marks: Vec::new(),
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
