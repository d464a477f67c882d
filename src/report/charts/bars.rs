//! Headline bars: one horizontal bar per case at its headline (the median
//! of repetitions) with the min-max of the repetitions as an error bar, a
//! dot instead of the bar when the axis is logarithmic (where a bar's
//! length means nothing);
//! one chart per unit, so a scenario whose cases lead with different kinds
//! of numbers still gets comparable bars. A bar has its mechanism's colour
//! (as on every chart) and a hover title; a baseline run's bar sits above
//! the other's, lighter.

use super::frame::{self, Frame};
use super::{ident, marks, palette, shared_or, style, Axis, Chart, Labels, Source};
use crate::format::{case_label, human};
use crate::model::Metric;

/// One bar: its row, which source it came from, the metric it shows, its
/// colour's name (the mechanism, or the scenario) and its hover title.
struct Bar<'a> {
    row: usize,
    source: usize,
    metric_name: &'a str,
    metric: &'a Metric,
    key: String,
    title: String,
}

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut units: Vec<String> = Vec::new();
    for source in sources {
        for r in barred(source) {
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

/// The ok results with a bar: not a `probe` case, whose headline only
/// counts the observations listed under its table.
fn barred<'a>(source: &'a Source) -> impl Iterator<Item = &'a crate::model::CaseResult> + 'a {
    source.ok().filter(|r| r.observations.is_empty())
}

/// The bar chart of the headlines in `unit`, or None when no case has one.
fn chart(sources: &[Source], unit: &str) -> anyhow::Result<Option<Chart>> {
    let mut rows: Vec<String> = Vec::new();
    let mut bars: Vec<Bar> = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        for r in barred(source) {
            let Some((name, metric)) = r.headline_metric().filter(|(_, m)| m.unit == unit) else {
                continue;
            };
            let label = case_label(&r.case);
            let row = super::index_of(&mut rows, &label);
            bars.push(Bar {
                row,
                source: index,
                metric_name: name,
                metric,
                key: ident::family(r).unwrap_or_else(|| r.scenario.clone()),
                title: ident::hover(&source.tag, &label, spread(name, metric)),
            });
        }
    }
    if bars.is_empty() {
        return Ok(None);
    }
    let metric = shared_or(bars.iter().map(|b| b.metric_name.to_string()), "headline");
    let scenario = sources
        .iter()
        .find_map(|s| s.results.first())
        .map_or("", |r| r.scenario.as_str());
    let what = ident::metric_what(scenario, &metric);
    let title = format!("{what}: median of repetitions, whiskers min to max");
    let x_title = ident::metric_title(scenario, &metric, unit);
    Ok(Some(draw(sources, &rows, &bars, unit, x_title, title)?))
}

fn draw(
    sources: &[Source],
    rows: &[String],
    bars: &[Bar],
    unit: &str,
    x_title: String,
    title: String,
) -> anyhow::Result<Chart> {
    let values = bars.iter().flat_map(|b| {
        let m = b.metric;
        [m.value, m.min.unwrap_or(m.value), m.max.unwrap_or(m.value)]
    });
    let x = Axis::new(x_title, Labels::Unit(unit.into())).auto_log(values.clone());
    let x_range = x.range(values);
    // Row 0 at the top: category i is drawn at y = n - 1 - i.
    let names: Vec<String> = rows.iter().rev().cloned().collect();
    let mut y = Axis::new("case", Labels::Names(names));
    let n = rows.len();
    y.fixed = Some((0..n).map(|i| i as f64).collect());
    let frame = Frame {
        x: &x,
        x_range,
        y: &y,
        y_range: (-0.6, n as f64 - 0.4),
        y_label_width: frame::label_width(rows.iter().map(|r| r.len()).max().unwrap_or(4)),
        caption: "",
    };
    let per_row = if sources.len() > 1 { 40 } else { 28 };
    let height = 90 + per_row * n as u32;
    let mut drawn = Vec::new();
    let svg = frame::svg(height, |root| {
        let plot = frame::plot(root, &frame)?;
        for bar in bars {
            drawn.extend(draw_bar(&plot, &x, x_range.0, bar, n, sources.len())?);
        }
        Ok(())
    })?;
    let drawn = marks::panel("", &x.desc, &y.desc, &drawn);
    Ok(Chart {
        title,
        note: String::new(),
        svg: marks::append(svg, &drawn),
        legend: style::runs(sources),
    })
}

/// `bar` with its whisker (min to max of the repetitions) as SVG, the bar
/// with its hover title.
fn draw_bar(
    plot: &frame::Plot,
    x: &Axis,
    base: f64,
    bar: &Bar,
    rows: usize,
    sources: usize,
) -> anyhow::Result<Option<String>> {
    let m = bar.metric;
    let Some(value) = x.to_plot(m.value) else {
        return Ok(None);
    };
    let centre = (rows - 1 - bar.row) as f64;
    let (lo, hi) = slot(centre, bar.source, sources);
    let corners = [
        plot.backend_coord(&(base, lo)),
        plot.backend_coord(&(value, hi)),
    ];
    let color = palette::color(&bar.key);
    let alpha = opacity(bar.source, sources);
    let mut svg = match x.log {
        true => marks::dot(
            plot.backend_coord(&(value, (lo + hi) / 2.0)),
            &bar.key,
            color,
            alpha,
            &bar.title,
        ),
        false => marks::bar(corners, &bar.key, color, alpha, &bar.title),
    };
    let min = m.min.and_then(|v| x.to_plot(v));
    let max = m.max.and_then(|v| x.to_plot(v));
    if let (Some(min), Some(max)) = (min, max) {
        let mid = (lo + hi) / 2.0;
        let ends = [
            plot.backend_coord(&(min, mid)),
            plot.backend_coord(&(max, mid)),
        ];
        svg.push_str(&marks::whisker(ends));
    }
    Ok(Some(svg))
}

/// `rtt_ns = 12.3 us (min 12 us, max 13 us)`.
fn spread(name: &str, m: &Metric) -> String {
    let value = format!("{name} = {}", human(m.value, &m.unit));
    match (m.min, m.max) {
        (Some(lo), Some(hi)) => format!(
            "{value} (min {}, max {})",
            human(lo, &m.unit),
            human(hi, &m.unit)
        ),
        _ => value,
    }
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
        palette::BASELINE_OPACITY
    } else {
        0.9
    }
}
