//! The original's figure on a classic graph: a labelled reference line
//! (or band) drawn over the data, with a hover title, and its entry in the
//! legend. The chart's ranges include it, so a run far from the original
//! shows how far.

use super::axis::Axis;
use super::frame::Plot;
use super::palette::{self, NEUTRAL};
use super::{style, Swatch};
use crate::model::CaseResult;
use crate::scenario::classic::{Mark, Original};
use minijinja::HtmlEscape;

/// The word drawn next to the mark; the whole label is its hover title.
const TAG: &str = "original";
const DASH: &str = "6 3";

/// The x values (first) and y values (second) the mark needs to show.
pub(crate) fn extent(original: Option<&Original>) -> (Vec<f64>, Vec<f64>) {
    match original.map(|o| &o.mark) {
        Some(Mark::X(x)) => (vec![*x], Vec::new()),
        Some(Mark::Y(lo, hi)) => (Vec::new(), vec![*lo, *hi]),
        _ => (Vec::new(), Vec::new()),
    }
}

/// True when the original's figure is about the cases of this frame:
/// every one of them has the parameter values it names.
pub(crate) fn applies(original: &Original, results: &[&CaseResult]) -> bool {
    !results.is_empty()
        && results.iter().all(|r| {
            original
                .only
                .iter()
                .all(|(k, v)| r.param_str(k).as_deref() == Some(*v))
        })
}

/// The mark as SVG on `plot`, whose ranges are `x_range` and `y_range`
/// (plot coordinates); empty when it has nothing to draw or falls outside.
pub(crate) fn svg(
    plot: &Plot,
    axes: (&Axis, &Axis),
    ranges: ((f64, f64), (f64, f64)),
    original: &Original,
) -> String {
    let (x, y) = axes;
    let ((x0, x1), (y0, y1)) = ranges;
    let px = |a: f64, b: f64| plot.backend_coord(&(a, b));
    let paint = format!("stroke=\"{NEUTRAL}\" stroke-width=\"1.5\" stroke-dasharray=\"{DASH}\"");
    let (shape, (tx, ty, anchor)) = match original.mark {
        Mark::None => return String::new(),
        Mark::X(v) => {
            let Some(v) = x.to_plot(v) else {
                return String::new();
            };
            let ((a, top), (_, bottom)) = (px(v, y1), px(v, y0));
            let line = format!("<path fill=\"none\" {paint} d=\"M{a} {top}V{bottom}\"/>");
            (line, (a - 4, top + 12, "end"))
        }
        Mark::Y(lo, hi) => {
            let (Some(lo), Some(hi)) = (y.to_plot(lo), y.to_plot(hi)) else {
                return String::new();
            };
            let ((left, low), (right, high)) = (px(x0, lo), px(x1, hi));
            let shape = match low == high {
                true => format!("<path fill=\"none\" {paint} d=\"M{left} {low}H{right}\"/>"),
                false => format!(
                    "<rect x=\"{left}\" y=\"{high}\" width=\"{}\" height=\"{}\" fill=\"{NEUTRAL}\" \
                     fill-opacity=\"0.12\" {paint}/>",
                    right - left,
                    low - high
                ),
            };
            (shape, (left + 4, high - 4, "start"))
        }
    };
    format!(
        "<g class=\"reference\" data-name=\"{label}\"><title>{label}</title>{shape}\
         <text x=\"{tx}\" y=\"{ty}\" text-anchor=\"{anchor}\" font-family=\"sans-serif\" font-size=\"12\" \
         fill=\"{NEUTRAL}\">{TAG}</text></g>",
        label = HtmlEscape(original.label)
    )
}

/// The legend entry: a grey dashed line (a band's outline) and the label.
pub(crate) fn swatch(original: &Original) -> Swatch {
    let icon = palette::icon(NEUTRAL, DASH, None, false);
    style::swatch(NEUTRAL, icon, original.label.to_string())
}
