//! Draws a line chart (percentiles, sweeps, time series all are one): one
//! frame, or a grid of small frames on shared axes when there are more
//! lines than one frame reads (`panels.rs`). Each line is coloured by its
//! mechanism, styled by its other dimensions (`style.rs`), and every mark
//! carries a hover title (`marks.rs`).

use super::axis::Axis;
use super::frame::{self, Frame, Plot};
use super::marks::{self, SeriesMarks};
use super::panels::{self, Panel};
use super::style::Styles;
use super::{palette, refmark, Chart, Line, Source};
use crate::scenario::classic::Original;
use plotters::prelude::*;

/// The height of a chart of one frame, and of each row of small charts.
const HEIGHT: u32 = 440;
const ROW_HEIGHT: u32 = 300;
/// Small charts per row, and per row when there are more than `MANY`.
const COLUMNS: usize = 2;
const MANY: usize = 6;
const MANY_COLUMNS: usize = 3;

/// What a line chart shows; `joined` false draws dots without lines.
pub(crate) struct LineChart {
    pub(crate) title: String,
    pub(crate) x: Axis,
    pub(crate) y: Axis,
    pub(crate) lines: Vec<Line>,
    pub(crate) joined: bool,
    /// The original's figure, marked on every frame (classic graphs).
    pub(crate) original: Option<&'static Original>,
}

pub(crate) fn draw(spec: LineChart, sources: &[Source]) -> anyhow::Result<Chart> {
    let points = |pick: fn(&(f64, f64)) -> f64| -> Vec<f64> {
        spec.lines
            .iter()
            .flat_map(|l| l.points.iter().map(pick))
            .collect()
    };
    let (ref_x, ref_y) = refmark::extent(spec.original);
    let y_range = spec.y.range(points(|p| p.1).into_iter().chain(ref_y));
    let x_range = spec.x.range(points(|p| p.0).into_iter().chain(ref_x));
    let widest = spec
        .y
        .ticks(y_range.0, y_range.1)
        .iter()
        .map(|t| spec.y.label(*t).len())
        .max()
        .unwrap_or(4);
    let panels = panels::split(&spec.lines);
    let styles = Styles::of(&spec.lines, spec.joined, &panels);
    let (rows, columns) = grid(panels.len());
    let height = match panels.len() {
        1 => HEIGHT,
        _ => ROW_HEIGHT * rows as u32,
    };
    let mut drawn = String::new();
    let svg = frame::svg(height, |root| {
        root.fill(&WHITE)?;
        let areas = root.split_evenly((rows, columns));
        for (panel, area) in panels.iter().zip(&areas) {
            let frame = Frame {
                x: &spec.x,
                x_range,
                y: &spec.y,
                y_range,
                y_label_width: frame::label_width(widest),
                caption: &panel.title,
            };
            let plot = frame::plot(area, &frame)?;
            let reference = spec
                .original
                .map(|o| refmark::svg(&plot, (&spec.x, &spec.y), (x_range, y_range), o));
            drawn.push_str(&panel_marks(&plot, &spec, &styles, panel, reference));
        }
        Ok(())
    })?;
    let mut legend = styles.legend(&spec.lines, sources);
    legend.extend(spec.original.map(refmark::swatch));
    Ok(Chart {
        title: spec.title.clone(),
        note: String::new(),
        svg: marks::append(svg, &drawn),
        legend,
    })
}

/// (rows, columns) of a grid of `n` small charts.
pub(crate) fn grid(n: usize) -> (usize, usize) {
    match n {
        0 | 1 => (1, 1),
        n if n > MANY => (n.div_ceil(MANY_COLUMNS), MANY_COLUMNS),
        n => (n.div_ceil(COLUMNS), COLUMNS),
    }
}

fn panel_marks(
    plot: &Plot,
    spec: &LineChart,
    styles: &Styles,
    panel: &Panel,
    reference: Option<String>,
) -> String {
    let series: Vec<String> = panel
        .lines
        .iter()
        .map(|&i| line_marks(plot, spec, styles, &spec.lines[i]))
        .chain(reference)
        .collect();
    marks::panel(&panel.title, &spec.x.desc, &spec.y.desc, &series)
}

fn line_marks(plot: &Plot, spec: &LineChart, styles: &Styles, line: &Line) -> String {
    let pixel = |x: f64, y: f64| -> Option<(i32, i32)> {
        Some(plot.backend_coord(&(spec.x.to_plot(x)?, spec.y.to_plot(y)?)))
    };
    let path: Vec<(i32, i32)> = match spec.joined {
        true => line
            .points
            .iter()
            .filter_map(|&(x, y)| pixel(x, y))
            .collect(),
        false => Vec::new(),
    };
    let points: Vec<(i32, i32, String)> = line
        .marks
        .iter()
        .filter_map(|(x, y, title)| {
            let (px, py) = pixel(*x, *y)?;
            Some((px, py, title.clone()))
        })
        .collect();
    SeriesMarks {
        key: &line.key,
        name: &line.name,
        color: palette::color(&line.key),
        dash: styles.dash(line),
        marker: styles.marker(line),
        baseline: line.baseline,
    }
    .svg(&path, &points)
}
