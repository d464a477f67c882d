//! The claims across kernels as one self-contained page (`claims --across
//! RUN... --kernels --html FILE`): the kernels and how each ran, then a
//! row per claim and a column per kernel in version order, each cell the
//! verdict (coloured as the main report colours verdicts) and the figure
//! that decided it, a cell whose verdict turned from the previous
//! kernel's outlined and marked with its cause (a known change with its
//! commit, the guest, or unknown), and below it every turn with what to
//! bisect. The page wears the main report's stylesheet.

use crate::claims::kernels::{Cause, Matrix};
use anyhow::Context;
use minijinja::value::{Serde, Value};
use minijinja::{context, Environment};
use serde::Serialize;
use std::path::Path;

const TEMPLATE: &str = include_str!("templates/kernels.html");

#[derive(Debug, Serialize)]
struct Page<'a> {
    title: String,
    version: &'static str,
    style: &'static str,
    matrix: &'a Matrix,
    rows: Vec<Row>,
    turns: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Row {
    id: String,
    claim: String,
    cells: Vec<Cell>,
}

#[derive(Debug, Serialize)]
struct Cell {
    class: String,
    verdict: String,
    figure: String,
    /// "kernel" or "guest" for a cell whose verdict turned.
    turned: Option<&'static str>,
    cause: String,
}

/// Writes the page of `m` to `path`.
pub(crate) fn write(path: &Path, m: &Matrix) -> anyhow::Result<()> {
    let html = render(m)?;
    std::fs::write(path, html)
        .with_context(|| format!("cannot write report file {}", path.display()))
}

pub(crate) fn render(m: &Matrix) -> anyhow::Result<String> {
    let page = Page {
        title: format!("iolab: claims across {} kernels", m.columns.len()),
        version: crate::model::IOLAB_VERSION,
        style: super::fleet_view::report_style(),
        matrix: m,
        rows: m.rows.iter().map(row).collect(),
        turns: m
            .turns
            .iter()
            .map(|t| {
                let bisect = t
                    .bisect
                    .as_ref()
                    .map(|b| b.text())
                    .filter(|b| !b.is_empty());
                let bisect = bisect.map(|b| format!("; bisect: {b}")).unwrap_or_default();
                format!(
                    "{}: {} from {} to {}: {}{bisect}",
                    t.claim,
                    t.verdicts,
                    t.from,
                    t.to,
                    t.cause.text()
                )
            })
            .collect(),
    };
    let mut env = Environment::new();
    env.add_template("kernels.html", TEMPLATE)?;
    let template = env.get_template("kernels.html")?;
    Ok(template.render(context! { page => Value::from(Serde(&page)) })?)
}

fn row(r: &crate::claims::kernels::Row) -> Row {
    Row {
        id: r.id.clone(),
        claim: r.claim.clone(),
        cells: r
            .cells
            .iter()
            .map(|c| Cell {
                class: match c.status {
                    Some(s) => format!("mark-{}", super::findings::verdict_class(s)),
                    None => "missing".into(),
                },
                verdict: c.verdict.clone(),
                figure: c.figure.clone(),
                turned: c
                    .turn
                    .as_ref()
                    .map(|t| if t.is_kernel() { "kernel" } else { "guest" }),
                cause: c.turn.as_ref().map(Cause::text).unwrap_or_default(),
            })
            .collect(),
    }
}
