//! The classic graphs: the figures a scenario declares its original drew
//! (`Scenario::classic_charts`), drawn first, as the original's readers
//! would expect them, with the original's figure marked. This module knows
//! the kinds of graph, not the scenarios: a sweep is drawn as sweep lines
//! (`sweep.rs`), grouped bars by `classic_bars.rs`. A graph drawn from
//! less than the original had says so in its note.

use super::lines;
use super::{classic_bars, sweep, Chart, Source};
use crate::model::CaseResult;
use crate::scenario::classic::{ClassicChart, ClassicKind};
use crate::scenario::{self, MetricSpec};
use std::collections::BTreeSet;

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let Some(scenario) = scenario_of(sources) else {
        return Ok(Vec::new());
    };
    scenario
        .classic_charts()
        .iter()
        .map(|c| chart(sources, c))
        .filter_map(Result::transpose)
        .collect()
}

/// True when a classic graph of these sources already draws `metric`
/// against `key`, so the plain sweep chart of the same would repeat it.
pub(crate) fn covers(sources: &[Source], key: &str, metric: &str) -> bool {
    scenario_of(sources).is_some_and(|s| {
        s.classic_charts().iter().any(|c| match &c.kind {
            ClassicKind::Sweep { x, metric: m, .. } => *x == key && m.name == metric,
            ClassicKind::Bars { .. } => false,
        })
    })
}

fn scenario_of(sources: &[Source]) -> Option<&'static dyn scenario::Scenario> {
    let first = sources.iter().find_map(|s| s.results.first())?;
    scenario::find(&first.scenario)
}

fn chart(sources: &[Source], spec: &'static ClassicChart) -> anyhow::Result<Option<Chart>> {
    match &spec.kind {
        ClassicKind::Sweep { x, metric, points } => sweep_chart(sources, spec, x, metric, *points),
        ClassicKind::Bars { .. } => classic_bars::chart(sources, spec),
    }
}

/// True when `r` has the values `only` names; a parameter `r` lacks (a
/// run older than it) counts as its default, so as matching.
pub(crate) fn selected(r: &CaseResult, only: &[(&str, &str)]) -> bool {
    only.iter()
        .all(|(k, v)| r.param_str(k).is_none_or(|have| have == *v))
}

fn sweep_chart(
    sources: &[Source],
    spec: &'static ClassicChart,
    key: &str,
    metric: &MetricSpec,
    points: usize,
) -> anyhow::Result<Option<Chart>> {
    let keep = |r: &CaseResult| selected(r, spec.only) && metric.of(r).is_some();
    let all: Vec<&CaseResult> = sources
        .iter()
        .flat_map(|s| s.ok())
        .filter(|r| keep(r))
        .collect();
    let unit = metric.unit;
    let lines = sweep::sweep_lines(sources, &keep, &all, key, metric.name, unit);
    if lines.is_empty() {
        return Ok(None);
    }
    let xs: BTreeSet<u64> = all
        .iter()
        .filter_map(|r| r.params.get(key)?.as_f64().map(f64::to_bits))
        .collect();
    let original = spec.original.as_ref();
    let mut chart = sweep::line_chart(
        &all,
        key,
        (metric.name, unit),
        lines,
        spec.title.to_string(),
        original,
    );
    chart.joined = xs.len() > 1;
    let mut drawn = lines::draw(chart, sources)?;
    if xs.len() < points {
        drawn.note = thin(xs.len(), points, key, spec.full);
    }
    Ok(Some(drawn))
}

/// `This run has 2 of the original's 12 values of idle; the seeds suite ...`.
fn thin(have: usize, points: usize, key: &str, full: &str) -> String {
    format!("This run has {have} of the original's {points} values of {key}: {full}.")
}
