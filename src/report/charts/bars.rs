//! Headline bars: one horizontal bar per case at its headline (the median
//! of repetitions) with the min-max of the repetitions as an error bar;
//! one chart per unit, so a scenario whose cases lead with different kinds
//! of numbers still gets comparable bars. A baseline run's bar sits above
//! the other's, lighter.

use super::frame::{self, Frame};
use super::{hex, rgb, shared_or, Axis, Chart, Labels, Source, Swatch};
use crate::format::case_label;
use crate::model::Metric;
use plotters::prelude::*;

/// One bar: its row, which source it came from, the metric it shows.
struct Bar<'a> {
    row: usize,
    source: usize,
    metric_name: &'a str,
    metric: &'a Metric,
}

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut units: Vec<String> = Vec::new();
    for source in sources {
        for r in source.ok() {
            if let Some((_, m)) = r.headline_metric() {
                if !units.contains(&m.unit) {
                    units.push(m.unit.clone());
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

/// The bar chart of the headlines in `unit`, or None when no case has one.
fn chart(sources: &[Source], unit: &str) -> anyhow::Result<Option<Chart>> {
    let mut rows: Vec<String> = Vec::new();
    let mut bars: Vec<Bar> = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        for r in source.ok() {
            let Some((name, metric)) = r.headline_metric().filter(|(_, m)| m.unit == unit) else {
                continue;
            };
            let row = super::color_of(&mut rows, &case_label(&r.case));
            bars.push(Bar {
                row,
                source: index,
                metric_name: name,
                metric,
            });
        }
    }
    if bars.is_empty() {
        return Ok(None);
    }
    let metric = shared_or(bars.iter().map(|b| b.metric_name.to_string()), "headline");
    let title = format!("{metric}: median of repetitions, whiskers min to max");
    Ok(Some(draw(sources, &rows, &bars, unit, metric, title)?))
}

fn draw(
    sources: &[Source],
    rows: &[String],
    bars: &[Bar],
    unit: &str,
    metric: String,
    title: String,
) -> anyhow::Result<Chart> {
    let values = bars.iter().flat_map(|b| {
        let m = b.metric;
        [m.value, m.min.unwrap_or(m.value), m.max.unwrap_or(m.value)]
    });
    let x =
        Axis::new(format!("{metric} ({unit})"), Labels::Unit(unit.into())).auto_log(values.clone());
    let x_range = x.range(values);
    // Row 0 at the top: category i is drawn at y = n - 1 - i.
    let names: Vec<String> = rows.iter().rev().cloned().collect();
    let mut y = Axis::new("", Labels::Names(names));
    let n = rows.len();
    y.fixed = Some((0..n).map(|i| i as f64).collect());
    let frame = Frame {
        x: &x,
        x_range,
        y: &y,
        y_range: (-0.6, n as f64 - 0.4),
        y_label_width: frame::label_width(rows.iter().map(|r| r.len()).max().unwrap_or(4)),
    };
    let per_row = if sources.len() > 1 { 40 } else { 28 };
    let height = 90 + per_row * n as u32;
    let svg = frame::svg(height, |root| {
        let mut plot = frame::plot(root, &frame)?;
        for bar in bars {
            draw_bar(&mut plot, &x, x_range.0, bar, n, sources.len())?;
        }
        Ok(())
    })?;
    Ok(Chart {
        title,
        svg,
        legend: legend(sources),
    })
}

fn draw_bar(
    plot: &mut frame::Plot,
    x: &Axis,
    base: f64,
    bar: &Bar,
    rows: usize,
    sources: usize,
) -> anyhow::Result<()> {
    let m = bar.metric;
    let Some(value) = x.to_plot(m.value) else {
        return Ok(());
    };
    let centre = (rows - 1 - bar.row) as f64;
    let (lo, hi) = slot(centre, bar.source, sources);
    let (r, g, b) = rgb(0);
    let fill = RGBColor(r, g, b).mix(opacity(bar.source, sources)).filled();
    plot.draw_series([Rectangle::new([(base, lo), (value, hi)], fill)])?;
    let min = m.min.and_then(|v| x.to_plot(v));
    let max = m.max.and_then(|v| x.to_plot(v));
    if let (Some(min), Some(max)) = (min, max) {
        let mid = (lo + hi) / 2.0;
        let whisker = ErrorBar::new_horizontal(mid, min, value, max, BLACK.stroke_width(1), 8);
        plot.draw_series([whisker])?;
    }
    Ok(())
}

/// The vertical extent of a bar in its row: the whole row for one run, the
/// upper half for the baseline of two.
fn slot(centre: f64, source: usize, sources: usize) -> (f64, f64) {
    if sources < 2 {
        return (centre - 0.32, centre + 0.32);
    }
    let upper = source == 0;
    if upper {
        (centre + 0.02, centre + 0.4)
    } else {
        (centre - 0.4, centre - 0.02)
    }
}

fn opacity(source: usize, sources: usize) -> f64 {
    if sources > 1 && source == 0 {
        0.35
    } else {
        0.85
    }
}

fn legend(sources: &[Source]) -> Vec<Swatch> {
    if sources.len() < 2 {
        return Vec::new();
    }
    let (r, g, b) = rgb(0);
    sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let light = opacity(i, sources.len()) < 0.5;
            let color = if light {
                format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
            } else {
                hex(0)
            };
            Swatch {
                color,
                dashed: false,
                name: format!(
                    "run {} ({} bar)",
                    s.tag,
                    if light { "upper" } else { "lower" }
                ),
            }
        })
        .collect()
}

/// A channel at 35% over white, as the baseline bars are drawn.
fn mix(channel: u8) -> u8 {
    (255.0 - (255.0 - f64::from(channel)) * 0.35).round() as u8
}
