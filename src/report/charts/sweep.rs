//! Sweep lines: when the cases of a scenario differ in exactly one numeric
//! parameter (besides mechanism, placement and mode), that parameter goes
//! on the x axis and each remaining combination becomes a line of
//! headlines. Message size today; idle connections or file size later,
//! without a change here.

use super::lines::{self, LineChart};
use super::palette::FAMILIES;
use super::{ident, line, refmark, Axis, Chart, Labels, Line, Source};
use crate::format::human;
use crate::model::CaseResult;
use crate::scenario::classic::Original;
use crate::scenario::{self, ParamKind};
use std::collections::BTreeSet;

/// Parameters that name what was compared, not a point on a sweep; they
/// lead the line names in this order.
const FIXED: [&str; 3] = ["mech", "placement", "mode"];
/// Up to this many distinct x values each get a tick of their own.
const OWN_TICKS: usize = 8;

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let all: Vec<&CaseResult> = sources.iter().flat_map(|s| s.ok()).collect();
    let Some(key) = swept_key(&all) else {
        return Ok(Vec::new());
    };
    let mut metrics: Vec<(String, String)> = Vec::new();
    for r in &all {
        if let Some((name, m)) = r.headline_metric() {
            let pair = (name.to_string(), m.unit.clone());
            if !metrics.contains(&pair) {
                metrics.push(pair);
            }
        }
    }
    metrics
        .iter()
        .filter(|(metric, _)| !super::classic::covers(sources, &key, metric))
        .map(|(metric, unit)| chart(sources, &all, &key, metric, unit))
        .filter_map(Result::transpose)
        .collect()
}

/// The one numeric parameter its scenario declares with more than one
/// value, if exactly one.
pub(crate) fn swept_key(results: &[&CaseResult]) -> Option<String> {
    let keys: BTreeSet<String> = results
        .iter()
        .flat_map(|r| ident::dims(r, "").into_iter().map(|(k, _)| k))
        .collect();
    let mut swept = keys
        .iter()
        .filter(|k| !FIXED.contains(&k.as_str()))
        .filter(|k| {
            let values: Option<BTreeSet<u64>> = results
                .iter()
                .map(|r| r.params.get(*k).and_then(|v| v.as_f64()).map(f64::to_bits))
                .collect();
            values.is_some_and(|v| v.len() > 1)
        });
    let first = swept.next()?;
    swept.next().is_none().then(|| first.clone())
}

fn chart(
    sources: &[Source],
    all: &[&CaseResult],
    key: &str,
    metric: &str,
    unit: &str,
) -> anyhow::Result<Option<Chart>> {
    let headline = |r: &CaseResult| r.headline.as_deref() == Some(metric);
    let lines = sweep_lines(sources, &headline, all, key, metric, unit);
    // A sweep is a line through several points; cases that merely differ
    // (eventfd's 8 B next to 1 B messages) are not one.
    if !lines.iter().any(|l| l.points.len() > 1) {
        return Ok(None);
    }
    let scenario = all.first().map_or("", |r| r.scenario.as_str());
    let title = format!("{} by {key}", ident::metric_what(scenario, metric));
    let spec = line_chart(all, key, (metric, unit), lines, title, None);
    lines::draw(spec, sources).map(Some)
}

/// A line of `metric` against `key` per case name, from the results of
/// each source that `keep` accepts.
pub(crate) fn sweep_lines(
    sources: &[Source],
    keep: &dyn Fn(&CaseResult) -> bool,
    all: &[&CaseResult],
    key: &str,
    metric: &str,
    unit: &str,
) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    for source in sources {
        let first = lines.len();
        for r in source.ok().filter(|r| keep(r)) {
            let (Some(x), Some(m)) = (
                r.params.get(key).and_then(|v| v.as_f64()),
                r.metrics.get(metric),
            ) else {
                continue;
            };
            let name = line_name(r, key, all);
            let title = ident::hover(
                &source.tag,
                &format!("{name}, {key} {}", x_text(all, key, x)),
                format!("{metric} = {}", human(m.value, unit)),
            );
            let index = match lines[first..].iter().position(|l| l.name == name) {
                Some(i) => first + i,
                None => {
                    lines.push(line(r, name, source, key));
                    lines.len() - 1
                }
            };
            lines[index].points.push((x, m.value));
            lines[index].marks.push((x, m.value, title));
        }
    }
    for l in &mut lines {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    lines
}

/// The line chart of `lines`: `key` on x (a tick per value when few),
/// `metric` in `unit` on y, each axis titled with its unit.
pub(crate) fn line_chart(
    all: &[&CaseResult],
    key: &str,
    (metric, unit): (&str, &str),
    lines: Vec<Line>,
    title: String,
    original: Option<&'static Original>,
) -> LineChart {
    let (ref_x, ref_y) = refmark::extent(original);
    let xs: BTreeSet<u64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0.to_bits()))
        .collect();
    let xs: Vec<f64> = xs.into_iter().map(f64::from_bits).collect();
    let scenario = all.first().map_or("", |r| r.scenario.as_str());
    let mut x = Axis::new(ident::param_title(scenario, key), x_labels(all, key))
        .auto_log(xs.iter().copied().chain(ref_x));
    if xs.len() <= OWN_TICKS {
        x.fixed = Some(xs);
    }
    let y = Axis::new(
        ident::metric_title(scenario, metric, unit),
        Labels::Unit(unit.into()),
    )
    .auto_log(
        lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .chain(ref_y),
    );
    LineChart {
        title,
        x,
        y,
        lines,
        joined: true,
        original,
    }
}

/// A swept value as its tick reads: `4 KiB`, `100`.
pub(crate) fn x_text(all: &[&CaseResult], key: &str, x: f64) -> String {
    match x_labels(all, key) {
        Labels::Bytes => crate::format::binary_size(x, 2),
        _ => human(x, ""),
    }
}

/// The poller or copier, mech/placement/mode, then any other parameter
/// that varies, except `key`: `pipe/cross-cpu/processes`, `epoll-lt`.
pub(crate) fn line_name(r: &CaseResult, key: &str, all: &[&CaseResult]) -> String {
    let varies = |k: &str| {
        let values: BTreeSet<String> = all.iter().filter_map(|o| o.param_str(k)).collect();
        values.len() > 1
    };
    let dims = ident::dims(r, key);
    let others = dims
        .iter()
        .map(|(k, _)| k)
        .filter(|k| !FIXED.contains(&k.as_str()) && varies(k));
    let family = FAMILIES.iter().filter(|k| !FIXED.contains(k));
    let parts: Vec<String> = family
        .chain(&FIXED)
        .map(|k| k.to_string())
        .filter(|k| r.params.contains_key(k))
        .chain(others.cloned())
        .filter_map(|k| r.param_str(&k))
        .collect();
    if parts.is_empty() {
        r.scenario.clone()
    } else {
        parts.join("/")
    }
}

/// Byte parameters read as sizes; anything else as a plain number.
fn x_labels(all: &[&CaseResult], key: &str) -> Labels {
    let kind = all
        .first()
        .and_then(|r| scenario::find(&r.scenario))
        .and_then(|s| s.param(key))
        .map(|p| p.kind);
    match kind {
        Some(ParamKind::Bytes) => Labels::Bytes,
        _ => Labels::Unit(String::new()),
    }
}
