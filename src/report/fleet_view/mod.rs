//! The fleet view, `iolab report --fleet --html FILE`: every host and
//! kernel in the store on one self-contained page (inline CSS and SVG,
//! nothing fetched), from the newest run of each. It opens with the hosts
//! and kernels (which run each column comes from), then each claim's
//! verdict per host and kernel in one grid with the hosts that disagree
//! marked (`grid.rs`), then each case's headline across them as small
//! multiples (`charts/fleet.rs`). The page wears the main report's
//! stylesheet (its verdict colours, charts and print rules), taken from
//! its template, plus a few rules of its own (`templates/fleet.html`).

mod grid;

use super::charts::fleet::{self as small, Host, ScenarioCharts};
use crate::format::{plural, printable, STORED_WIDTH};
use crate::model::Run;
use anyhow::Context;
use minijinja::value::{Serde, Value};
use minijinja::{context, Environment};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

const TEMPLATE: &str = include_str!("../templates/fleet.html");
const REPORT_TEMPLATE: &str = include_str!("../templates/report.html");

#[derive(Debug, Serialize)]
pub(crate) struct FleetPage {
    pub(crate) title: String,
    pub(crate) version: String,
    /// The main report's stylesheet.
    pub(crate) style: String,
    /// "3 host/kernel pairs: the verdicts on 2 of 47 claims differ between them".
    pub(crate) summary: String,
    pub(crate) columns: Vec<Column>,
    pub(crate) grid: grid::Grid,
    pub(crate) cases: Vec<ScenarioCharts>,
    /// How many cases fewer than two hosts and kernels measured.
    pub(crate) left_out: String,
}

/// One host and kernel, and the run the page shows of it.
#[derive(Debug, Serialize)]
pub(crate) struct Column {
    pub(crate) host: String,
    pub(crate) kernel: String,
    /// "alpha (6.1.0-18-amd64)", as the charts name it.
    pub(crate) label: String,
    pub(crate) run_id: String,
    pub(crate) started_at: String,
    pub(crate) suite: String,
    /// "87 results: 80 ok, 0 failed, 7 unsupported".
    pub(crate) results: String,
    /// The claims on which this host and kernel disagrees with the rest.
    pub(crate) disagrees: Vec<String>,
}

/// Writes the fleet page of `runs` (the newest of each host and kernel) to
/// `path`, `-` for stdout.
pub(crate) fn write_fleet(path: &Path, runs: &[Run]) -> anyhow::Result<()> {
    let html = render(&build(runs)?)?;
    if path == Path::new("-") {
        let mut out = crate::stdout::lock();
        out.write_all(html.as_bytes())?;
        return out.flush().context("cannot write the report to stdout");
    }
    std::fs::write(path, html)
        .with_context(|| format!("cannot write report file {}", path.display()))
}

pub(crate) fn build(runs: &[Run]) -> anyhow::Result<FleetPage> {
    let mut columns: Vec<Column> = runs.iter().map(column).collect();
    let answers: Vec<grid::Answers> = columns
        .iter()
        .zip(runs)
        .map(|(c, r)| grid::Answers {
            label: &c.label,
            claims: &r.claims,
        })
        .collect();
    let grid = grid::build(&answers);
    for (column, ids) in columns.iter_mut().zip(&grid.disagreeing) {
        column.disagrees = ids.clone();
    }
    let hosts: Vec<Host> = columns
        .iter()
        .zip(runs)
        .map(|(c, r)| Host {
            label: c.label.clone(),
            results: &r.results,
        })
        .collect();
    let (cases, left_out) = small::across_hosts(&hosts)?;
    let claims: usize = grid.seeds.iter().map(|s| s.rows.len()).sum();
    let hosts = plural(runs.len(), "host/kernel pair");
    Ok(FleetPage {
        title: format!("iolab fleet report: {hosts}"),
        version: crate::model::IOLAB_VERSION.to_string(),
        style: report_style().to_string(),
        summary: format!(
            "{hosts}: the verdicts on {} of {} differ between them",
            grid.differ.len(),
            plural(claims, "claim")
        ),
        columns,
        grid,
        cases,
        left_out: match left_out {
            0 => String::new(),
            n => format!(
                "{} measured on one host and kernel only {} left out.",
                plural(n, "case"),
                if n == 1 { "is" } else { "are" }
            ),
        },
    })
}

fn column(run: &Run) -> Column {
    let env = &run.environment;
    let host = printable(&env.hostname, STORED_WIDTH);
    let kernel = printable(&env.kernel, STORED_WIDTH);
    Column {
        label: format!("{host} ({kernel})"),
        host,
        kernel,
        run_id: printable(&run.run_id, STORED_WIDTH),
        started_at: printable(&run.started_at, STORED_WIDTH),
        suite: run
            .suite
            .as_deref()
            .map(|s| printable(s, STORED_WIDTH))
            .unwrap_or_default(),
        results: super::table::summary(&run.results),
        disagrees: Vec::new(),
    }
}

/// The main report's stylesheet: the inside of its template's `<style>`.
pub(crate) fn report_style() -> &'static str {
    REPORT_TEMPLATE
        .split_once("<style>")
        .and_then(|(_, rest)| rest.split_once("</style>"))
        .map_or("", |(css, _)| css)
}

fn render(page: &FleetPage) -> anyhow::Result<String> {
    let mut env = Environment::new();
    // The `.html` name turns autoescaping on.
    env.add_template("fleet.html", TEMPLATE)?;
    let template = env.get_template("fleet.html")?;
    Ok(template.render(context! { page => Value::from(Serde(page)) })?)
}

#[cfg(test)]
mod tests;
