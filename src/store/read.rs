//! Reading runs back: the history listing and one whole run by selector.
//! Runs are ordered by `started_at`, then by the order they were stored.

use super::selector::{Selector, ALLOWED};
use super::RunSummary;
use crate::error::UsageError;
use crate::model::{CaseResult, Environment, Run};
use anyhow::Context;
use rusqlite::{params, Connection, OptionalExtension, Row};
use std::path::Path;

pub(crate) fn history(conn: &Connection, limit: usize) -> anyhow::Result<Vec<RunSummary>> {
    let mut stmt = conn.prepare(
        "SELECT r.run_id, r.started_at, r.label, r.suite, r.kernel,
                (SELECT COUNT(*) FROM results x WHERE x.run_id = r.run_id),
                (SELECT COUNT(*) FROM results x WHERE x.run_id = r.run_id
                                                  AND x.status = 'failed')
         FROM runs r ORDER BY r.started_at DESC, r.seq DESC LIMIT ?1",
    )?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = stmt.query_map([limit], summary_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn summary_row(row: &Row) -> rusqlite::Result<RunSummary> {
    Ok(RunSummary {
        run_id: row.get(0)?,
        started_at: row.get(1)?,
        label: row.get(2)?,
        suite: row.get(3)?,
        kernel: row.get(4)?,
        results: row.get::<_, i64>(5)? as usize,
        failed: row.get::<_, i64>(6)? as usize,
    })
}

pub(crate) fn load(
    conn: &Connection,
    path: &Path,
    version: i64,
    (text, wanted): (&str, Selector),
) -> anyhow::Result<Run> {
    let run_id = resolve(conn, path, text, wanted)?;
    load_run(conn, &run_id, version)
        .with_context(|| format!("reading run {run_id} from {}", path.display()))
}

/// The run stored under exactly this id, if any.
pub(crate) fn find(conn: &Connection, version: i64, run_id: &str) -> anyhow::Result<Option<Run>> {
    exact_id(conn, run_id)?
        .map(|id| load_run(conn, &id, version))
        .transpose()
}

fn exact_id(conn: &Connection, run_id: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT run_id FROM runs WHERE run_id = ?1", [run_id], |r| {
        r.get(0)
    })
    .optional()
}

/// The run id a selector names, or a usage error saying what exists.
fn resolve(conn: &Connection, path: &Path, text: &str, wanted: Selector) -> anyhow::Result<String> {
    let found = match wanted {
        Selector::Id(id) => exact_id(conn, id)?,
        Selector::Latest(back) => nth_newest(conn, back)?,
    };
    match found {
        Some(id) => Ok(id),
        None => Err(not_found(conn, path, text, wanted)?.into()),
    }
}

fn nth_newest(conn: &Connection, back: usize) -> anyhow::Result<Option<String>> {
    let Ok(offset) = i64::try_from(back) else {
        return Ok(None);
    };
    Ok(conn
        .query_row(
            "SELECT run_id FROM runs ORDER BY started_at DESC, seq DESC LIMIT 1 OFFSET ?1",
            [offset],
            |r| r.get(0),
        )
        .optional()?)
}

fn not_found(
    conn: &Connection,
    path: &Path,
    text: &str,
    wanted: Selector,
) -> anyhow::Result<UsageError> {
    let count: i64 = conn.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))?;
    let store = path.display();
    let msg = match wanted {
        _ if count == 0 => {
            format!("no run '{text}' in {store}: the store is empty, run 'iolab run' first")
        }
        Selector::Latest(_) => format!(
            "no run '{text}' in {store}: it holds {}, so N goes from 0 to {}",
            crate::format::plural(count as usize, "run"),
            count - 1
        ),
        Selector::Id(_) => format!("no run '{text}' in {store}: {ALLOWED}"),
    };
    Ok(UsageError::new(msg))
}

fn load_run(conn: &Connection, run_id: &str, version: i64) -> anyhow::Result<Run> {
    // A store at schema version 1 that could not be migrated (read-only)
    // has no claims column.
    let claims = if version >= 2 { "claims_json" } else { "NULL" };
    let sql = format!(
        "SELECT run_id, started_at, finished_at, label, suite, iolab_version,
                environment_json, verdicts_json, {claims}
         FROM runs WHERE run_id = ?1"
    );
    let (mut run, environment, verdicts, claims) = conn.query_row(&sql, [run_id], run_row)?;
    run.environment = serde_json::from_str(&environment).context("environment_json")?;
    run.verdicts = serde_json::from_str(&verdicts).context("verdicts_json")?;
    if let Some(claims) = claims {
        run.claims = serde_json::from_str(&claims).context("claims_json")?;
    }
    run.results = load_results(conn, run_id)?;
    Ok(run)
}

/// The plain columns as a `Run`, and its environment, verdicts and claims
/// still as JSON (claims NULL in runs stored before migration 2).
fn run_row(row: &Row) -> rusqlite::Result<(Run, String, String, Option<String>)> {
    let run = Run {
        run_id: row.get(0)?,
        started_at: row.get(1)?,
        finished_at: row.get(2)?,
        label: row.get(3)?,
        suite: row.get(4)?,
        iolab_version: row.get(5)?,
        environment: Environment::default(),
        results: Vec::new(),
        verdicts: Vec::new(),
        claims: Vec::new(),
    };
    Ok((run, row.get(6)?, row.get(7)?, row.get(8)?))
}

fn load_results(conn: &Connection, run_id: &str) -> anyhow::Result<Vec<CaseResult>> {
    let mut stmt = conn.prepare(
        "SELECT idx, result_json, histogram FROM results WHERE run_id = ?1 ORDER BY idx",
    )?;
    let mut rows = stmt.query(params![run_id])?;
    let mut results = Vec::new();
    while let Some(row) = rows.next()? {
        let idx: i64 = row.get(0)?;
        let json: String = row.get(1)?;
        let mut result: CaseResult =
            serde_json::from_str(&json).with_context(|| format!("result {idx}"))?;
        result.histogram = row.get(2)?;
        results.push(result);
    }
    Ok(results)
}
