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
use super::{palette, Chart, Line, Source};
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
}

pub(crate) fn draw(spec: LineChart, sources: &[Source]) -> anyhow::Result<Chart> {
    let points = |pick: fn(&(f64, f64)) -> f64| -> Vec<f64> {
        spec.lines
            .iter()
            .flat_map(|l| l.points.iter().map(pick))
            .collect()
    };
    let y_range = spec.y.range(points(|p| p.1));
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
                x_range: spec.x.range(points(|p| p.0)),
                y: &spec.y,
                y_range,
                y_label_width: frame::label_width(widest),
                caption: &panel.title,
            };
            let plot = frame::plot(area, &frame)?;
            drawn.push_str(&panel_marks(&plot, &spec, &styles, panel));
        }
        Ok(())
    })?;
    Ok(Chart {
        title: spec.title.clone(),
        svg: marks::append(svg, &drawn),
        legend: styles.legend(&spec.lines, sources),
    })
}

/// (rows, columns) of a grid of `n` small charts.
fn grid(n: usize) -> (usize, usize) {
    match n {
        0 | 1 => (1, 1),
        n if n > MANY => (n.div_ceil(MANY_COLUMNS), MANY_COLUMNS),
        n => (n.div_ceil(COLUMNS), COLUMNS),
    }
}

fn panel_marks(plot: &Plot, spec: &LineChart, styles: &Styles, panel: &Panel) -> String {
    let series: Vec<String> = panel
        .lines
        .iter()
        .map(|&i| line_marks(plot, spec, styles, &spec.lines[i]))
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
