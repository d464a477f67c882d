//! What the document formats (HTML, Markdown) show, built once: the
//! findings, the runs, the environment side by side, the comparison of two
//! runs, and per scenario the terminal's table cells, notes and verdicts,
//! plus the charts and flame graphs for HTML. The formats only lay it out,
//! so they cannot disagree about content.

use super::charts::{self, Chart, Source};
use super::comparison::{self, ComparisonView};
use super::findings::{self, Findings};
use super::flame::{self, Flame};
use super::table::{groups, named_texts, summary, visible_columns, CASE, COLUMNS, NUMERIC};
use crate::model::{Run, Status};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct Page {
    pub(crate) title: String,
    pub(crate) version: String,
    /// The (last) run's claims at a glance, by seed (HTML only).
    pub(crate) glance: Vec<super::glance::Seed>,
    /// What the (last) run found, for the top of the page.
    pub(crate) findings: Findings,
    pub(crate) runs: Vec<RunInfo>,
    pub(crate) environment: Vec<EnvRow>,
    pub(crate) scenarios: Vec<Section>,
    /// Run B against run A, in a comparison.
    pub(crate) comparison: Option<ComparisonView>,
}

#[derive(Debug, Serialize)]
pub(crate) struct RunInfo {
    /// "A"/"B" in a comparison, empty alone.
    pub(crate) tag: String,
    pub(crate) run_id: String,
    pub(crate) label: Option<String>,
    pub(crate) started_at: String,
    pub(crate) suite: Option<String>,
    pub(crate) summary: String,
}

/// One environment property, one value per run.
#[derive(Debug, Serialize)]
pub(crate) struct EnvRow {
    pub(crate) name: String,
    pub(crate) values: Vec<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Section {
    pub(crate) name: String,
    /// The section's id, which the findings and contents link to.
    pub(crate) anchor: String,
    pub(crate) tables: Vec<Table>,
    pub(crate) charts: Vec<Chart>,
    /// One flame graph per profiled case (HTML only).
    pub(crate) flames: Vec<Flame>,
}

/// The terminal's table of one scenario in one run, as cell texts.
#[derive(Debug, Serialize)]
pub(crate) struct Table {
    pub(crate) tag: String,
    pub(crate) header: Vec<String>,
    pub(crate) numeric: Vec<bool>,
    pub(crate) rows: Vec<Vec<String>>,
    /// `N results: X ok, Y failed, Z unsupported`.
    pub(crate) summary: String,
    /// `case status: reason` for every result that is not ok.
    pub(crate) notes: Vec<String>,
    pub(crate) verdicts: Vec<String>,
    /// What the `probe` cases observed: "case (claim): call -> answer".
    pub(crate) observations: Vec<String>,
}

/// The runs of a page: `run` alone, or the baseline as A and `run` as B.
pub(crate) fn tagged<'a>(baseline: Option<&'a Run>, run: &'a Run) -> Vec<(&'static str, &'a Run)> {
    match baseline {
        Some(a) => vec![("A", a), ("B", run)],
        None => vec![("", run)],
    }
}

/// The page for `runs` (the baseline first in a comparison); charts only
/// when `with_charts`.
pub(crate) fn build(runs: &[(&str, &Run)], with_charts: bool) -> anyhow::Result<Page> {
    let mut scenarios = Vec::new();
    for name in scenario_names(runs) {
        scenarios.push(section(runs, &name, with_charts)?);
    }
    let last = runs.last().map(|(_, r)| *r);
    Ok(Page {
        title: title(runs),
        version: crate::model::IOLAB_VERSION.to_string(),
        glance: match (last, with_charts) {
            (Some(run), true) => super::glance::build(&run.claims)?,
            _ => Vec::new(),
        },
        findings: last.map(findings::build).unwrap_or_default(),
        runs: runs.iter().map(|(tag, run)| info(tag, run)).collect(),
        environment: environment(runs),
        scenarios,
        comparison: match runs {
            [(_, a), (_, b)] => Some(comparison::build(a, b)),
            _ => None,
        },
    })
}

fn title(runs: &[(&str, &Run)]) -> String {
    let ids: Vec<String> = runs
        .iter()
        .map(|(_, r)| match &r.label {
            Some(label) => format!("{} ({label})", r.run_id),
            None => r.run_id.clone(),
        })
        .collect();
    format!("iolab report: {}", ids.join(" vs "))
}

fn info(tag: &str, run: &Run) -> RunInfo {
    RunInfo {
        tag: tag.to_string(),
        run_id: run.run_id.clone(),
        label: run.label.clone(),
        started_at: run.started_at.clone(),
        suite: run.suite.clone(),
        summary: summary(&run.results),
    }
}

fn environment(runs: &[(&str, &Run)]) -> Vec<EnvRow> {
    let per_run: Vec<Vec<(&str, String)>> = runs
        .iter()
        .map(|(_, r)| crate::env::rows(&r.environment))
        .collect();
    let Some(first) = per_run.first() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|i| EnvRow {
            name: first[i].0.to_string(),
            values: per_run.iter().map(|rows| rows[i].1.clone()).collect(),
        })
        .collect()
}

/// Scenario names in order of first appearance across the runs.
fn scenario_names(runs: &[(&str, &Run)]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, run) in runs {
        for (name, _) in groups(&run.results) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

fn section(runs: &[(&str, &Run)], name: &str, with_charts: bool) -> anyhow::Result<Section> {
    let sources: Vec<Source> = runs
        .iter()
        .enumerate()
        .map(|(i, (tag, run))| Source {
            tag: tag.to_string(),
            results: run.results.iter().filter(|r| r.scenario == name).collect(),
            baseline: runs.len() > 1 && i == 0,
        })
        .collect();
    let tables = runs
        .iter()
        .zip(&sources)
        .filter(|(_, s)| !s.results.is_empty())
        .map(|((_, run), s)| table(run, s))
        .collect();
    let (charts, flames) = match with_charts {
        true => (charts::for_group(&sources)?, flames(&sources)?),
        false => (Vec::new(), Vec::new()),
    };
    Ok(Section {
        name: name.to_string(),
        anchor: findings::scenario_anchor(name),
        tables,
        charts,
        flames,
    })
}

fn flames(sources: &[Source]) -> anyhow::Result<Vec<Flame>> {
    let mut out = Vec::new();
    for s in sources {
        for r in &s.results {
            out.extend(flame::of_case(&s.tag, r)?);
            out.extend(flame::offcpu_of_case(&s.tag, r)?);
        }
    }
    Ok(out)
}

fn table(run: &Run, source: &Source) -> Table {
    let all = named_texts(&source.results, true);
    let columns = visible_columns(&all, false);
    let pick = |row: &super::table::Texts| columns.iter().map(|&c| row[c].clone()).collect();
    let scenario = source.results.first().map(|r| r.scenario.as_str());
    Table {
        tag: source.tag.clone(),
        header: columns.iter().map(|&c| COLUMNS[c].to_string()).collect(),
        numeric: columns.iter().map(|&c| NUMERIC[c]).collect(),
        rows: all.iter().map(pick).collect(),
        summary: summary(source.results.iter().copied()),
        notes: source
            .results
            .iter()
            .zip(&all)
            .filter(|(r, _)| r.status != Status::Ok)
            .map(|(r, texts)| {
                let reason = r.reason.as_deref().unwrap_or("no reason recorded");
                format!("{} {}: {reason}", texts[CASE], r.status.as_str())
            })
            .chain(super::trust::notes(&source.results))
            .collect(),
        verdicts: run
            .verdicts
            .iter()
            .filter(|v| Some(v.scenario.as_str()) == scenario)
            .map(|v| v.text.clone())
            .collect(),
        observations: source
            .results
            .iter()
            .flat_map(|r| super::observation_text::items(r))
            .collect(),
    }
}
