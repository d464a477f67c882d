//! Grouped bars of a classic graph: a group per declared figure (wall
//! time, sender CPU...; or a ratio between two cases, such as a side's
//! mean call time together over alone), a bar per case in its mechanism's,
//! poller's or copier's colour (a dot at its value on a log axis, where a
//! bar's length means nothing), a small chart per value of the declared
//! split, and the original's figure marked where it applies.

use super::classic::selected;
use super::frame::{self, Frame, Plot};
use super::{ident, lines, marks, palette, refmark, style, sweep, Axis, Chart, Labels, Source};
use crate::format::human;
use crate::model::CaseResult;
use crate::scenario::classic::{ClassicChart, ClassicKind, Figure, Mark};

const HEIGHT: u32 = 400;
const ROW_HEIGHT: u32 = 320;
/// The share of a group's width its bars take.
const FILL: f64 = 0.8;

struct Bar {
    group: usize,
    row: usize,
    key: String,
    value: f64,
    title: String,
    baseline: bool,
}

/// One small chart: its title, its cases (with their source), rows, bars.
struct Panel<'a> {
    title: String,
    results: Vec<(usize, &'a CaseResult)>,
    rows: Vec<String>,
    bars: Vec<Bar>,
}

/// What every panel shares: the declaration, its figures, the axes' titles.
struct Shape<'a> {
    spec: &'static ClassicChart,
    figures: &'static [Figure],
    unit: &'static str,
    x_desc: String,
    y_desc: &'static str,
    all: Vec<&'a CaseResult>,
    /// Parameters that are not a row's own: the split, the largest, the ratios'.
    shared: Vec<&'static str>,
}

pub(crate) fn chart(
    sources: &[Source],
    spec: &'static ClassicChart,
) -> anyhow::Result<Option<Chart>> {
    let ClassicKind::Bars {
        x,
        y,
        unit,
        figures,
        split,
        largest,
    } = &spec.kind
    else {
        return Ok(None);
    };
    let picked: Vec<(usize, &CaseResult)> = sources
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.ok()
                .filter(|r| selected(r, spec.only))
                .map(move |r| (i, r))
        })
        .collect();
    let all: Vec<&CaseResult> = picked.iter().map(|(_, r)| *r).collect();
    let Some(first) = all.first() else {
        return Ok(None);
    };
    let family = palette::FAMILIES
        .iter()
        .find(|k| first.params.contains_key(**k))
        .map_or("case", |k| if *k == "mech" { "mechanism" } else { k });
    let mut shared: Vec<&'static str> = split.to_vec();
    shared.extend(largest);
    shared.extend(
        figures
            .iter()
            .filter_map(|f| f.ratio.as_ref().map(|r| r.param)),
    );
    let shape = Shape {
        spec,
        figures,
        unit,
        x_desc: format!("{x} (a bar per {family})"),
        y_desc: y,
        all,
        shared,
    };
    let mut panels = split_panels(&picked, split, *largest, &shape.all);
    for panel in &mut panels {
        fill(panel, &shape, sources);
    }
    panels.retain(|p| !p.bars.is_empty());
    if panels.is_empty() {
        return Ok(None);
    }
    draw(sources, &shape, &panels).map(Some)
}

/// The cases by the values of `split`, each panel keeping only its cases
/// at the largest value of `largest`.
fn split_panels<'a>(
    picked: &[(usize, &'a CaseResult)],
    split: &[&str],
    largest: Option<&str>,
    all: &[&CaseResult],
) -> Vec<Panel<'a>> {
    let mut panels: Vec<Panel> = Vec::new();
    for &(i, r) in picked {
        let parts: Vec<String> = split
            .iter()
            .filter_map(|k| Some(ident::dim_label(k, &r.param_str(k)?)))
            .collect();
        let title = parts.join(", ");
        match panels.iter_mut().find(|p| p.title == title) {
            Some(p) => p.results.push((i, r)),
            None => panels.push(Panel {
                title,
                results: vec![(i, r)],
                rows: Vec::new(),
                bars: Vec::new(),
            }),
        }
    }
    let Some(key) = largest else {
        return panels;
    };
    let value = |r: &CaseResult| r.params.get(key).and_then(|v| v.as_f64());
    for p in &mut panels {
        let top = p
            .results
            .iter()
            .filter_map(|(_, r)| value(r))
            .fold(f64::NAN, f64::max);
        p.results.retain(|(_, r)| value(r).is_none_or(|v| v == top));
        if top.is_finite() {
            let at = format!("{key} {}", sweep::x_text(all, key, top));
            p.title = match p.title.as_str() {
                "" => at,
                t => format!("{t}, {at}"),
            };
        }
    }
    panels
}

/// The bars of `panel`: for each case and figure it has a value for.
fn fill(panel: &mut Panel, shape: &Shape, sources: &[Source]) {
    let results = panel.results.clone();
    for (group, figure) in shape.figures.iter().enumerate() {
        for &(source, r) in &results {
            let Some((value, reads)) = value(figure, r, source, &results) else {
                continue;
            };
            let tag = &sources[source].tag;
            let label = row_label(r, shape);
            let row_name = match tag.as_str() {
                "" => label.clone(),
                t => format!("run {t}: {label}"),
            };
            let row = super::index_of(&mut panel.rows, &row_name);
            let what = format!("{label}, {}", figure.label);
            panel.bars.push(Bar {
                group,
                row,
                key: ident::family(r).unwrap_or_else(|| r.scenario.clone()),
                value,
                title: ident::hover(tag, &what, reads),
                baseline: sources[source].baseline,
            });
        }
    }
}

/// The value of `figure` for `r` and how it reads; a ratio takes its
/// denominator from the case of the same source that differs only in the
/// ratio's parameter.
fn value(
    figure: &Figure,
    r: &CaseResult,
    source: usize,
    results: &[(usize, &CaseResult)],
) -> Option<(f64, String)> {
    let m = figure.metric;
    let Some(ratio) = &figure.ratio else {
        let v = m.value(r)?;
        return Some((v, format!("{} = {}", m.name, human(v, m.unit))));
    };
    if r.param_str(ratio.param)? != ratio.of {
        return None;
    }
    let same = ident::dims(r, ratio.param);
    let (_, alone) = results.iter().find(|(s, o)| {
        *s == source
            && o.param_str(ratio.param).as_deref() == Some(ratio.over)
            && ident::dims(o, ratio.param) == same
            && ident::family(o) == ident::family(r)
    })?;
    let (num, den) = (m.value(r)?, m.value(alone)?);
    (den > 0.0).then(|| {
        let v = num / den;
        let reads = format!(
            "{v:.1}x: {} = {} with {}, {} with {}",
            m.name,
            human(num, m.unit),
            ratio.of,
            human(den, m.unit),
            ratio.over
        );
        (v, reads)
    })
}

/// The family, then the parameters that vary among the cases and are not
/// shared by a panel: `read-write buf=4096`.
fn row_label(r: &CaseResult, shape: &Shape) -> String {
    let mut parts: Vec<String> = ident::family(r).into_iter().collect();
    for (k, v) in ident::dims(r, "") {
        let values: std::collections::BTreeSet<String> =
            shape.all.iter().filter_map(|o| o.param_str(&k)).collect();
        if values.len() > 1 && !shape.shared.contains(&k.as_str()) {
            parts.push(ident::dim_label(&k, &v));
        }
    }
    match parts.is_empty() {
        true => r.scenario.clone(),
        false => parts.join(" "),
    }
}

fn draw(sources: &[Source], shape: &Shape, panels: &[Panel]) -> anyhow::Result<Chart> {
    let (grid_rows, columns) = lines::grid(panels.len());
    let height = match panels.len() {
        1 => HEIGHT,
        _ => ROW_HEIGHT * grid_rows as u32,
    };
    let original = shape.spec.original.as_ref();
    let mut drawn = String::new();
    let mut marked = false;
    let svg = frame::svg(height, |root| {
        root.fill(&plotters::style::WHITE)?;
        let areas = root.split_evenly((grid_rows, columns));
        for (panel, area) in panels.iter().zip(&areas) {
            let cases: Vec<&CaseResult> = panel.results.iter().map(|(_, r)| *r).collect();
            let reference = original.filter(|o| refmark::applies(o, &cases));
            marked |= reference.is_some();
            drawn.push_str(&draw_panel(area, shape, panel, reference)?);
        }
        Ok(())
    })?;
    let mut legend = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for b in panels.iter().flat_map(|p| &p.bars) {
        super::index_of(&mut keys, &b.key);
    }
    for key in keys {
        let color = palette::color(&key);
        legend.push(style::swatch(
            color,
            palette::icon(color, "", None, false),
            key,
        ));
    }
    let shown = original.filter(|o| marked || matches!(o.mark, Mark::None));
    legend.extend(shown.map(refmark::swatch));
    legend.extend(style::runs(sources));
    Ok(Chart {
        title: shape.spec.title.to_string(),
        note: note(shape, panels, original.is_some() && shown.is_none()),
        svg: marks::append(svg, &drawn),
        legend,
    })
}

/// What this run lacks for the whole graph: figures without a bar, or the
/// cases the original's figure is about.
fn note(shape: &Shape, panels: &[Panel], unmarked: bool) -> String {
    let missing: Vec<&str> = shape
        .figures
        .iter()
        .enumerate()
        .filter(|(g, _)| !panels.iter().any(|p| p.bars.iter().any(|b| b.group == *g)))
        .map(|(_, f)| f.label)
        .collect();
    let mut lacks = Vec::new();
    if !missing.is_empty() {
        lacks.push(format!("no {} bars", missing.join(", ")));
    }
    if unmarked {
        lacks.push("none of the cases the original's figure is about".to_string());
    }
    match lacks.is_empty() {
        true => String::new(),
        false => format!("This run has {}: {}.", lacks.join(" and "), shape.spec.full),
    }
}

type Area<'a> =
    plotters::drawing::DrawingArea<plotters::backend::SVGBackend<'a>, plotters::coord::Shift>;

fn draw_panel(
    area: &Area,
    shape: &Shape,
    panel: &Panel,
    reference: Option<&'static crate::scenario::classic::Original>,
) -> anyhow::Result<String> {
    let (_, ref_y) = refmark::extent(reference);
    let values: Vec<f64> = panel.bars.iter().map(|b| b.value).chain(ref_y).collect();
    let y = Axis::new(shape.y_desc, Labels::Unit(shape.unit.into())).auto_log(values.clone());
    let y_range = y.range(values);
    let labels: Vec<String> = shape.figures.iter().map(|f| f.label.to_string()).collect();
    let mut x = Axis::new(shape.x_desc.clone(), Labels::Names(labels));
    let groups = shape.figures.len();
    x.fixed = Some((0..groups).map(|g| g as f64).collect());
    let x_range = (-0.5, groups as f64 - 0.5);
    let frame = Frame {
        x: &x,
        x_range,
        y: &y,
        y_range,
        y_label_width: frame::label_width(8),
        caption: &panel.title,
    };
    let plot = frame::plot(area, &frame)?;
    let mut svg: Vec<String> = panel
        .bars
        .iter()
        .filter_map(|b| bar(&plot, &y, y_range.0, b, panel.rows.len()))
        .collect();
    svg.extend(reference.map(|o| refmark::svg(&plot, (&x, &y), (x_range, y_range), o)));
    Ok(marks::panel(&panel.title, &x.desc, &y.desc, &svg))
}

/// One bar in its group's slot for its row.
fn bar(plot: &Plot, y: &Axis, base: f64, b: &Bar, rows: usize) -> Option<String> {
    let top = y.to_plot(b.value)?;
    let width = FILL / rows as f64;
    let left = b.group as f64 - FILL / 2.0 + width * b.row as f64;
    let corners = [
        plot.backend_coord(&(left + width * 0.08, base)),
        plot.backend_coord(&(left + width * 0.92, top)),
    ];
    let opacity = match b.baseline {
        true => palette::BASELINE_OPACITY,
        false => 0.9,
    };
    let color = palette::color(&b.key);
    Some(match y.log {
        true => {
            let centre = plot.backend_coord(&(left + width / 2.0, top));
            marks::dot(centre, &b.key, color, opacity, &b.title)
        }
        false => marks::bar(corners, &b.key, color, opacity, &b.title),
    })
}
