//! The style of each line of a chart beyond its colour: the dimensions
//! that vary within one colour in one frame (placement, wake mode...; not
//! those the small charts already split by) become a dash
//! pattern (placement first) and a marker shape, and the legend says what
//! each colour, dash, marker and run style means.

use super::ident::dim_label;
use super::marks::{Marker, MARKERS};
use super::palette::{self, NEUTRAL};
use super::panels::Panel;
use super::{Line, Source, Swatch};

pub(crate) struct Styles {
    /// The dimension drawn as a dash pattern, with its values in order.
    dash: Option<(String, Vec<String>)>,
    /// The dimensions drawn as marker shapes, and their combined values.
    marker_dims: Vec<String>,
    marker_values: Vec<String>,
}

impl Styles {
    /// Styles for `lines`; without joining lines (dots only) every
    /// dimension is a marker shape.
    pub(crate) fn of(lines: &[Line], joined: bool, panels: &[Panel]) -> Styles {
        let mut dims = style_dims(lines, panels);
        let dash = match joined && !dims.is_empty() {
            true => {
                let key = dims.remove(0);
                Some((key.clone(), values(lines, |l| value(l, &key))))
            }
            false => None,
        };
        let mut marker_values = values(lines, |l| combined(l, &dims));
        if let Some(i) = marker_values.iter().position(String::is_empty) {
            let empty = marker_values.remove(i);
            marker_values.insert(0, empty);
        }
        Styles {
            dash,
            marker_dims: dims,
            marker_values,
        }
    }

    pub(crate) fn dash(&self, line: &Line) -> &'static str {
        let Some((key, values)) = &self.dash else {
            return "";
        };
        let v = value(line, key);
        let i = values.iter().position(|x| *x == v).unwrap_or(0);
        palette::dash(&v, i)
    }

    pub(crate) fn marker(&self, line: &Line) -> Marker {
        let v = combined(line, &self.marker_dims);
        let i = self.marker_values.iter().position(|x| *x == v);
        MARKERS[i.unwrap_or(0) % MARKERS.len()]
    }

    /// One entry per colour, per dash pattern, per marker shape and, in a
    /// comparison, per run.
    pub(crate) fn legend(&self, lines: &[Line], sources: &[Source]) -> Vec<Swatch> {
        let mut out: Vec<Swatch> = Vec::new();
        for key in values(lines, |l| l.key.clone()) {
            let color = palette::color(&key);
            out.push(swatch(color, palette::icon(color, "", None, false), key));
        }
        if let Some((key, values)) = &self.dash {
            for (i, v) in values.iter().enumerate() {
                let dash = palette::dash(v, i);
                let name = format!("{}: {}", dim_label(key, v), palette::dash_name(dash));
                out.push(swatch(
                    NEUTRAL,
                    palette::icon(NEUTRAL, dash, None, false),
                    name,
                ));
            }
        }
        if self.marker_values.len() > 1 {
            for (i, v) in self.marker_values.iter().enumerate() {
                let m = MARKERS[i % MARKERS.len()];
                let what = match v.as_str() {
                    "" => format!("no {}", self.marker_dims.join(", ")),
                    v => v.to_string(),
                };
                let name = format!("{what}: {}", m.name());
                out.push(swatch(
                    NEUTRAL,
                    palette::icon(NEUTRAL, "", Some(m), false),
                    name,
                ));
            }
        }
        out.extend(runs(sources));
        out
    }
}

/// What the runs of a comparison look like: the baseline lighter and hollow.
pub(crate) fn runs(sources: &[Source]) -> Vec<Swatch> {
    if sources.len() < 2 {
        return Vec::new();
    }
    let run = |s: &Source| {
        let (style, icon) = match s.baseline {
            true => (
                "baseline, lighter, hollow markers",
                palette::icon(NEUTRAL, "", Some(Marker::Circle), true).replace(
                    "<svg ",
                    &format!("<svg opacity=\"{}\" ", palette::BASELINE_OPACITY),
                ),
            ),
            false => (
                "full colour, filled markers",
                palette::icon(NEUTRAL, "", Some(Marker::Circle), false),
            ),
        };
        swatch(NEUTRAL, icon, format!("run {} ({style})", s.tag))
    };
    sources.iter().map(run).collect()
}

pub(crate) fn swatch(color: &str, icon: String, name: String) -> Swatch {
    Swatch {
        color: color.to_string(),
        dashed: false,
        name,
        icon,
    }
}

/// The dimensions that vary within one colour in one frame, placement first.
fn style_dims(lines: &[Line], panels: &[Panel]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for l in lines {
        for (k, _) in &l.dims {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    let varies = |k: &String| {
        panels.iter().any(|p| {
            let own: Vec<&Line> = p.lines.iter().map(|&i| &lines[i]).collect();
            own.iter().any(|a| {
                own.iter()
                    .any(|b| a.key == b.key && value(a, k) != value(b, k))
            })
        })
    };
    keys.retain(varies);
    keys.sort_by_key(|k| k != "placement");
    keys
}

/// The value of dimension `key` in `line`, empty when it has none.
pub(crate) fn value(line: &Line, key: &str) -> String {
    line.dims
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// The labels of `keys` present in `line`, joined: `wake=spin`.
fn combined(line: &Line, keys: &[String]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .filter_map(|k| {
            let v = value(line, k);
            (!v.is_empty()).then(|| dim_label(k, &v))
        })
        .collect();
    parts.join(", ")
}

/// The distinct values of `f` over `lines`, in order of first appearance.
pub(crate) fn values(lines: &[Line], f: impl Fn(&Line) -> String) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        let v = f(l);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}
