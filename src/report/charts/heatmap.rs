//! Heatmaps: a result that carries a matrix over CPUs (`CaseResult.matrix`,
//! `c2c`'s core-to-core map) gets one, a cell per CPU pair coloured on the
//! viridis scale (colour-blind safe, dark = fast) from the matrix's lowest
//! to its highest value, each cell with its value as a hover title. Empty
//! cells (the diagonal) stay white. The legend gives the two ends.

use super::frame::{self, Frame};
use super::{marks, style, Axis, Chart, Labels, Source, Swatch};
use crate::format::{case_label, human};
use crate::model::{CaseResult, Matrix};
use minijinja::HtmlEscape;
use plotters::style::colors::colormaps::{ColorMap, ViridisRGB};
use plotters::style::RGBColor;

/// Cells of maps this wide or narrower show their value as text.
const WRITTEN: usize = 16;

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut charts = Vec::new();
    for source in sources {
        for r in source.ok() {
            if let Some(m) = r.matrix.as_ref().filter(|m| !m.cpus.is_empty()) {
                charts.push(chart(source, r, m)?);
            }
        }
    }
    Ok(charts)
}

/// The lowest and highest value of `m`, None when it has none.
fn span(m: &Matrix) -> Option<(f64, f64)> {
    let values = m.values.iter().flatten().flatten().copied();
    let (lo, hi) = super::axis::bounds(values);
    lo.is_finite().then_some((lo, hi))
}

/// The viridis colour of `v` between `lo` and `hi`, as CSS hex. Where `v`
/// lies is worked out in f64: a figure past f32's range made plotters'
/// colour map index with NaN and panic.
fn shade(v: f64, (lo, hi): (f64, f64)) -> String {
    let at = match hi > lo {
        true => (v - lo) / (hi - lo),
        false => 0.0,
    };
    let at = if at.is_nan() { 0.0 } else { at.clamp(0.0, 1.0) };
    let RGBColor(r, g, b) = ViridisRGB.get_color_normalized(at as f32, 0.0, 1.0);
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn chart(source: &Source, r: &CaseResult, m: &Matrix) -> anyhow::Result<Chart> {
    let n = m.cpus.len();
    let names: Vec<String> = m.cpus.iter().map(|c| c.to_string()).collect();
    let mut x = Axis::new("CPU (number)", Labels::Names(names.clone()));
    x.fixed = Some((0..n).map(|i| i as f64).collect());
    // Row 0 at the top: CPU i is drawn at y = n - 1 - i.
    let mut y = Axis::new(
        "CPU (number)",
        Labels::Names(names.into_iter().rev().collect()),
    );
    y.fixed = x.fixed.clone();
    let range = (-0.5, n as f64 - 0.5);
    let frame = Frame {
        x: &x,
        x_range: range,
        y: &y,
        y_range: range,
        y_label_width: frame::label_width(4),
        caption: "",
    };
    let span = span(m);
    let mut cells = Vec::new();
    let height = 120 + (36 * n as u32).clamp(180, 900);
    let svg = frame::svg(height, |root| {
        let plot = frame::plot(root, &frame)?;
        for (i, row) in m.values.iter().enumerate() {
            for (j, value) in row.iter().enumerate() {
                let (Some(v), Some(span)) = (value, span) else {
                    continue;
                };
                let (cx, cy) = (j as f64, (n - 1 - i) as f64);
                let corners = [
                    plot.backend_coord(&(cx - 0.5, cy + 0.5)),
                    plot.backend_coord(&(cx + 0.5, cy - 0.5)),
                ];
                let what = format!("CPU {} <-> CPU {}", m.cpus[i], m.cpus[j]);
                let title = super::ident::hover(&source.tag, &what, human(*v, &m.unit));
                let pair = format!("{}-{}", m.cpus[i], m.cpus[j]);
                cells.push(cell(corners, &pair, &shade(*v, span), &title));
                if n <= WRITTEN {
                    cells.push(text(plot.backend_coord(&(cx, cy)), &human(*v, &m.unit)));
                }
            }
        }
        Ok(())
    })?;
    let drawn = marks::panel("", &x.desc, &y.desc, &cells);
    let title = format!(
        "{}: core-to-core map ({}, {})",
        case_label(&r.case),
        m.unit,
        m.note
    );
    Ok(Chart {
        title,
        note: "each cell: the median round trip between two CPUs; the diagonal is not measured"
            .into(),
        svg: marks::append(svg, &drawn),
        legend: legend(span, &m.unit),
    })
}

/// One cell: a rectangle between two pixel corners, its CPU pair in
/// `data-cpus` and its hover title (both escaped here). Not a `bar`: its
/// colour is a value, not a mechanism's.
fn cell(corners: [(i32, i32); 2], pair: &str, color: &str, title: &str) -> String {
    let [(x0, y0), (x1, y1)] = corners;
    format!(
        "<rect class=\"cell\" data-cpus=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
         fill=\"{color}\"><title>{}</title></rect>",
        HtmlEscape(pair),
        x0.min(x1),
        y0.min(y1),
        (x1 - x0).abs().max(1),
        (y1 - y0).abs().max(1),
        HtmlEscape(title)
    )
}

/// A cell's value written in its middle, in white on a dark halo so it
/// reads on every shade.
fn text((x, y): (i32, i32), value: &str) -> String {
    format!(
        "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" font-family=\"{}\" font-size=\"12\" \
         fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"3\" paint-order=\"stroke\">{}</text>",
        y + 4,
        frame::FONT,
        HtmlEscape(value)
    )
}

/// The scale's two ends as legend entries.
fn legend(span: Option<(f64, f64)>, unit: &str) -> Vec<Swatch> {
    let Some((lo, hi)) = span else {
        return Vec::new();
    };
    [(lo, "fastest"), (hi, "slowest")]
        .into_iter()
        .map(|(v, what)| {
            let color = shade(v, (lo, hi));
            let icon = format!(
                "<svg width=\"30\" height=\"12\" aria-hidden=\"true\"><rect width=\"30\" \
                 height=\"12\" fill=\"{color}\"/></svg>"
            );
            style::swatch(&color, icon, format!("{what}: {}", human(v, unit)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c2c() -> CaseResult {
        let mut r = CaseResult::new("c2c", "c2c", Default::default());
        r.matrix = Some(Matrix {
            cpus: vec![0, 1],
            unit: "ns".into(),
            values: vec![vec![None, Some(80.0)], vec![Some(120.0), None]],
            note: "all 2 CPUs".into(),
        });
        r
    }

    #[test]
    fn a_matrix_gets_one_cell_per_measured_pair_and_the_ends_in_the_legend() {
        let r = c2c();
        let source = Source {
            tag: String::new(),
            results: vec![&r],
            baseline: false,
        };
        let charts = charts(&[source]).unwrap();
        assert_eq!(charts.len(), 1);
        let chart = &charts[0];
        assert_eq!(chart.title, "c2c: core-to-core map (ns, all 2 CPUs)");
        assert_eq!(chart.svg.matches("<rect class=\"cell\"").count(), 2);
        assert!(chart.svg.contains("data-cpus=\"0-1\""), "{}", chart.svg);
        assert!(chart.svg.contains("data-cpus=\"1-0\""));
        assert!(chart
            .svg
            .contains("<title>CPU 0 &lt;-&gt; CPU 1: 80.0 ns</title>"));
        let names: Vec<&str> = chart.legend.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["fastest: 80.0 ns", "slowest: 120 ns"]);
        assert_ne!(chart.legend[0].color, chart.legend[1].color);
    }

    #[test]
    fn results_without_a_matrix_get_no_heatmap() {
        let r = CaseResult::new("limits", "clock", Default::default());
        let source = Source {
            tag: String::new(),
            results: vec![&r],
            baseline: false,
        };
        assert!(charts(&[source]).unwrap().is_empty());
    }

    /// A figure past f32's range (2.4e174 ns, from an imported run) made
    /// plotters' colour map panic; the ends of any span read as its ends.
    #[test]
    fn figures_past_f32_and_spans_past_f64_get_the_ends_colours() {
        let (first, last) = (shade(0.0, (0.0, 1.0)), shade(1.0, (0.0, 1.0)));
        assert_eq!(shade(2.4e174, (40.0, 2.4e174)), last);
        assert_eq!(shade(40.0, (40.0, 2.4e174)), first);
        assert_eq!(
            shade(f64::MAX, (-f64::MAX, f64::MAX)),
            first,
            "an infinite span"
        );
        assert_eq!(shade(5.0, (5.0, 5.0)), first);
    }
}
