//! The data marks of a chart as SVG elements of our own, appended to the
//! frame plotters draws: plotters cannot give a point or a bar a `<title>`
//! (the browser's hover text), and our own elements also name what they
//! show (`data-key` = the colour's mechanism), which the tests read back.
//! Every text is escaped here.

use minijinja::HtmlEscape;
use std::fmt::Write;

/// A marker shape; the dimensions beyond colour and dash pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Down,
}

pub(crate) const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Down,
];

impl Marker {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Marker::Circle => "circle",
            Marker::Square => "square",
            Marker::Triangle => "triangle",
            Marker::Diamond => "diamond",
            Marker::Down => "down triangle",
        }
    }

    /// The marker centred on (x, y), filled with `color` or white (hollow).
    pub(crate) fn svg(self, x: f64, y: f64, color: &str, hollow: bool) -> String {
        self.svg_titled(x, y, color, hollow, "")
    }

    /// The marker with a hover title (escaped here); empty titles are left out.
    pub(crate) fn svg_titled(
        self,
        x: f64,
        y: f64,
        color: &str,
        hollow: bool,
        title: &str,
    ) -> String {
        let fill = if hollow { "#ffffff" } else { color };
        let paint = format!("fill=\"{fill}\" stroke=\"{color}\" stroke-width=\"1.5\"");
        let r = 4.0;
        let shape = match self {
            Marker::Circle => format!("circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\""),
            Marker::Square => format!(
                "rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{}\"",
                x - r,
                y - r,
                2.0 * r,
                2.0 * r
            ),
            Marker::Triangle => {
                polygon(&[(x, y - r - 1.0), (x + r + 1.0, y + r), (x - r - 1.0, y + r)])
            }
            Marker::Diamond => polygon(&[
                (x, y - r - 1.0),
                (x + r + 1.0, y),
                (x, y + r + 1.0),
                (x - r - 1.0, y),
            ]),
            Marker::Down => {
                polygon(&[(x, y + r + 1.0), (x + r + 1.0, y - r), (x - r - 1.0, y - r)])
            }
        };
        let tag = shape.split(' ').next().unwrap_or("circle");
        match title {
            "" => format!("<{shape} {paint}/>"),
            t => format!("<{shape} {paint}><title>{}</title></{tag}>", HtmlEscape(t)),
        }
    }
}

fn polygon(points: &[(f64, f64)]) -> String {
    let points: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    format!("polygon points=\"{}\"", points.join(" "))
}

/// One series as drawn: a `<g class="series">` with its line and markers.
pub(crate) struct SeriesMarks<'a> {
    pub(crate) key: &'a str,
    pub(crate) name: &'a str,
    pub(crate) color: &'a str,
    pub(crate) dash: &'a str,
    pub(crate) marker: Marker,
    pub(crate) baseline: bool,
}

impl SeriesMarks<'_> {
    /// The series with its line through `line` (pixels; none when empty)
    /// and a titled marker at each of `points`.
    pub(crate) fn svg(&self, line: &[(i32, i32)], points: &[(i32, i32, String)]) -> String {
        let opacity = if self.baseline {
            format!(" opacity=\"{}\"", super::palette::BASELINE_OPACITY)
        } else {
            String::new()
        };
        let mut out = format!(
            "<g class=\"series\" data-key=\"{}\" data-name=\"{}\" stroke=\"{}\"{opacity}>",
            HtmlEscape(self.key),
            HtmlEscape(self.name),
            self.color
        );
        if line.len() > 1 {
            let dash = match self.dash {
                "" => String::new(),
                d => format!(" stroke-dasharray=\"{d}\""),
            };
            let pts: Vec<String> = line.iter().map(|(x, y)| format!("{x},{y}")).collect();
            let _ = write!(
                out,
                "<polyline fill=\"none\" stroke-width=\"2\"{dash} points=\"{}\"/>",
                pts.join(" ")
            );
        }
        for (x, y, title) in points {
            let mark = self.marker.svg_titled(
                f64::from(*x),
                f64::from(*y),
                self.color,
                self.baseline,
                title,
            );
            out.push_str(&mark);
        }
        out.push_str("</g>");
        out
    }
}

/// A bar from (x0, y0) to (x1, y1) in pixels, in its mechanism's colour,
/// with a hover title.
pub(crate) fn bar(
    corners: [(i32, i32); 2],
    key: &str,
    color: &str,
    opacity: f64,
    title: &str,
) -> String {
    let [(x0, y0), (x1, y1)] = corners;
    format!(
        "<rect class=\"bar\" data-key=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
         fill=\"{color}\" fill-opacity=\"{opacity}\"><title>{}</title></rect>",
        HtmlEscape(key),
        x0.min(x1),
        y0.min(y1),
        (x1 - x0).abs().max(1),
        (y1 - y0).abs().max(1),
        HtmlEscape(title)
    )
}

/// A dot at `centre` in pixels, the mark of a value on a log axis, where a
/// bar's length would mean nothing.
pub(crate) fn dot(centre: (i32, i32), key: &str, color: &str, opacity: f64, title: &str) -> String {
    let (x, y) = centre;
    format!(
        "<circle class=\"dot\" data-key=\"{}\" cx=\"{x}\" cy=\"{y}\" r=\"5\" \
         fill=\"{color}\" fill-opacity=\"{opacity}\" stroke=\"{color}\"><title>{}</title></circle>",
        HtmlEscape(key),
        HtmlEscape(title)
    )
}

/// A horizontal whisker between two pixel points, with end caps.
pub(crate) fn whisker(ends: [(i32, i32); 2]) -> String {
    let [(x0, y), (x1, _)] = ends;
    format!(
        "<path class=\"whisker\" fill=\"none\" stroke=\"#000000\" d=\"M{x0} {y}H{x1}M{x0} {}V{}M{x1} {}V{}\"/>",
        y - 4,
        y + 4,
        y - 4,
        y + 4
    )
}

/// One small chart's marks, with the axis titles it was drawn with.
pub(crate) fn panel(title: &str, x_title: &str, y_title: &str, marks: &[String]) -> String {
    format!(
        "<g class=\"panel\" data-title=\"{}\" data-x=\"{}\" data-y=\"{}\">{}</g>",
        HtmlEscape(title),
        HtmlEscape(x_title),
        HtmlEscape(y_title),
        marks.concat()
    )
}

/// `svg` with `extra` drawn last (on top), before its closing tag.
pub(crate) fn append(mut svg: String, extra: &str) -> String {
    let end = svg.rfind("</svg>").unwrap_or(svg.len());
    svg.insert_str(end, extra);
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_escaped() {
        let m = Marker::Square.svg_titled(10.0, 10.0, "#000000", false, "a<b & \"c\"");
        assert!(
            m.contains("<title>a&lt;b &amp; &quot;c&quot;</title></rect>"),
            "{m}"
        );
        let b = bar([(0, 0), (5, 5)], "<x>", "#fff", 1.0, "<t>");
        assert!(b.contains("data-key=\"&lt;x&gt;\"") && b.contains("<title>&lt;t&gt;</title>"));
        assert_eq!(append("<svg></svg>".into(), "<g/>"), "<svg><g/></svg>");
    }
}
