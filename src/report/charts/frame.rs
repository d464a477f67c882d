//! The canvas every chart kind draws on: an SVG string, white background,
//! both axes from `Axis` (ticks at exactly the positions it asks for, its
//! tick texts and its description), so line and bar charts look alike.

use super::axis::Axis;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use std::ops::Range;

pub(crate) const WIDTH: u32 = 960;
pub(crate) const FONT: &str = "sans-serif";

/// The plot's coordinate system: plain f64 both ways (log scales are
/// already applied by `Axis`), with our own tick positions.
pub(crate) type Coords = Cartesian2d<Ticked, Ticked>;

/// A linear f64 coordinate whose grid lines and labels sit exactly at
/// `ticks` (plotters' own f64 ranges pick their own).
pub(crate) struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = if self.hi > self.lo {
            self.hi - self.lo
        } else {
            1.0
        };
        let share = (value - self.lo) / span;
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}
pub(crate) type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Coords>;

/// Where the data goes: both axes with their plotted ranges, and the
/// width reserved left of the plot for the y tick labels.
pub(crate) struct Frame<'a> {
    pub(crate) x: &'a Axis,
    pub(crate) x_range: (f64, f64),
    pub(crate) y: &'a Axis,
    pub(crate) y_range: (f64, f64),
    pub(crate) y_label_width: u32,
    /// A small chart's own title, drawn above it.
    pub(crate) caption: &'a str,
}

/// Draw the axes onto `root` and hand back the plot to draw data on.
pub(crate) fn plot<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    frame: &Frame,
) -> anyhow::Result<Plot<'a, 'b>> {
    root.fill(&WHITE)?;
    let (x0, x1) = frame.x_range;
    let (y0, y1) = frame.y_range;
    let x_ticks = frame.x.ticks(x0, x1);
    let y_ticks = frame.y.ticks(y0, y1);
    let (x_count, y_count) = (x_ticks.len(), y_ticks.len());
    let mut builder = ChartBuilder::on(root);
    builder
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(frame.y_label_width);
    if !frame.caption.is_empty() {
        builder.caption(frame.caption, (FONT, 14));
    }
    let mut chart = builder.build_cartesian_2d(
        Ticked {
            lo: x0,
            hi: x1,
            ticks: x_ticks,
        },
        Ticked {
            lo: y0,
            hi: y1,
            ticks: y_ticks,
        },
    )?;
    let x_label = |v: &f64| frame.x.label(*v);
    let y_label = |v: &f64| frame.y.label(*v);
    chart
        .configure_mesh()
        .x_labels(x_count)
        .y_labels(y_count)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .x_desc(frame.x.desc.as_str())
        .y_desc(frame.y.desc.as_str())
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .bold_line_style(RGBColor(225, 225, 225))
        .light_line_style(TRANSPARENT)
        .draw()?;
    Ok(chart)
}

/// Render `draw` onto a fresh SVG of `height` pixels and return its text.
pub(crate) fn svg(
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
        draw(&root)?;
        root.present()?;
    }
    Ok(out)
}

/// Room for tick labels of `chars` characters at the label font, plus the
/// axis description.
pub(crate) fn label_width(chars: usize) -> u32 {
    (chars as u32) * 8 + 36
}
