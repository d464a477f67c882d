//! Draws a line chart (percentiles, sweeps, time series all are one): a
//! line per case, markers where points are few, a baseline run dashed.

use super::axis::Axis;
use super::frame::{self, Frame};
use super::{legend, rgb, Chart, Line, Source};
use plotters::prelude::*;

const HEIGHT: u32 = 440;
/// Up to this many points a line also gets a dot at each.
const MARKED: usize = 16;

/// What a line chart shows.
pub(crate) struct LineChart {
    pub(crate) title: String,
    pub(crate) x: Axis,
    pub(crate) y: Axis,
    pub(crate) lines: Vec<Line>,
}

pub(crate) fn draw(spec: LineChart, sources: &[Source]) -> anyhow::Result<Chart> {
    let points = |pick: fn(&(f64, f64)) -> f64| -> Vec<f64> {
        spec.lines
            .iter()
            .flat_map(|l| l.points.iter().map(pick))
            .collect()
    };
    let y_values = points(|p| p.1);
    let y_range = spec.y.range(y_values.iter().copied());
    let widest = spec
        .y
        .ticks(y_range.0, y_range.1)
        .iter()
        .map(|t| spec.y.label(*t).len())
        .max()
        .unwrap_or(4);
    let frame = Frame {
        x: &spec.x,
        x_range: spec.x.range(points(|p| p.0)),
        y: &spec.y,
        y_range,
        y_label_width: frame::label_width(widest),
    };
    let svg = frame::svg(HEIGHT, |root| {
        let mut plot = frame::plot(root, &frame)?;
        for line in &spec.lines {
            draw_line(&mut plot, &spec, line)?;
        }
        Ok(())
    })?;
    Ok(Chart {
        title: spec.title.clone(),
        svg,
        legend: legend(&spec.lines, sources),
    })
}

fn draw_line(plot: &mut frame::Plot, spec: &LineChart, line: &Line) -> anyhow::Result<()> {
    let points: Vec<(f64, f64)> = line
        .points
        .iter()
        .filter_map(|&(x, y)| Some((spec.x.to_plot(x)?, spec.y.to_plot(y)?)))
        .collect();
    let (r, g, b) = rgb(line.color);
    let style = RGBColor(r, g, b).stroke_width(2);
    if line.dashed {
        plot.draw_series(DashedLineSeries::new(points.clone(), 7, 5, style))?;
    } else {
        plot.draw_series(LineSeries::new(points.clone(), style))?;
    }
    if points.len() <= MARKED {
        let dot = RGBColor(r, g, b).filled();
        plot.draw_series(points.iter().map(|p| Circle::new(*p, 3, dot)))?;
    }
    Ok(())
}
