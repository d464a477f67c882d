//! Reading runs back: the history listing (with its host, kernel and
//! scenario filters) and one whole run by selector. Runs are ordered by
//! `started_at`, then by the order they were stored.

use super::db::{scalar, Db, Row, Value};
use super::selector::{Selector, ALLOWED};
use super::{HistoryFilter, RunSummary};
use crate::error::UsageError;
use crate::measure::canary::Fastest;
use crate::model::{CaseResult, Environment, Run};
use anyhow::Context;
use serde::Deserialize;

/// What the listing reads of a run's environment.
#[derive(Deserialize)]
pub(super) struct Host {
    #[serde(default)]
    hostname: String,
    #[serde(default)]
    canary_ns: Option<f64>,
    #[serde(default)]
    wake_canary_ns: Option<f64>,
}

/// The fastest host-speed canaries (`measure::canary`) of the stored runs
/// of host `hostname` on kernel `kernel`, where any recorded them.
pub(crate) fn fastest_canary(
    db: &mut dyn Db,
    hostname: &str,
    kernel: &str,
) -> anyhow::Result<Fastest> {
    let mut fastest = Fastest::default();
    for (_, host) in host_runs(db, hostname, kernel)? {
        let positive = |ns: Option<f64>| ns.filter(|ns| *ns > 0.0);
        fastest = fastest.min(Fastest {
            syscall_ns: positive(host.canary_ns),
            wake_ns: positive(host.wake_canary_ns),
        });
    }
    Ok(fastest)
}

/// The stored runs of host `hostname` on kernel `kernel`, newest first:
/// each run's id and what the listing reads of its environment.
pub(super) fn host_runs(
    db: &mut dyn Db,
    hostname: &str,
    kernel: &str,
) -> anyhow::Result<Vec<(String, Host)>> {
    let sql = "SELECT run_id, environment_json FROM runs WHERE kernel = ?1
               ORDER BY started_at DESC, seq DESC";
    let mut runs = Vec::new();
    for row in db.query(sql, &[Value::from(kernel)])? {
        let host: Host = serde_json::from_str(&row.text(1)?).context("environment_json")?;
        if host.hostname == hostname {
            runs.push((row.text(0)?, host));
        }
    }
    Ok(runs)
}

pub(crate) fn history(
    db: &mut dyn Db,
    limit: usize,
    filter: &HistoryFilter,
) -> anyhow::Result<Vec<RunSummary>> {
    let mut sql = String::from(
        "SELECT r.run_id, r.started_at, r.label, r.suite, r.kernel,
                (SELECT COUNT(*) FROM results x WHERE x.run_id = r.run_id),
                (SELECT COUNT(*) FROM results x WHERE x.run_id = r.run_id
                                                  AND x.status = 'failed'),
                r.environment_json
         FROM runs r",
    );
    let mut params = Vec::new();
    if let Some(scenario) = &filter.scenario {
        sql += " WHERE EXISTS (SELECT 1 FROM results x WHERE x.run_id = r.run_id
                                                         AND x.scenario = ?1)";
        params.push(Value::from(scenario));
    }
    sql += " ORDER BY r.started_at DESC, r.seq DESC";
    let mut runs = Vec::new();
    for row in db.query(&sql, &params)? {
        if runs.len() >= limit {
            break;
        }
        let run = summary_row(&row)?;
        if filter.keeps(&run) {
            runs.push(run);
        }
    }
    Ok(runs)
}

fn summary_row(row: &Row) -> anyhow::Result<RunSummary> {
    let host: Host = serde_json::from_str(&row.text(7)?).context("environment_json")?;
    Ok(RunSummary {
        run_id: row.text(0)?,
        started_at: row.text(1)?,
        label: row.opt_text(2)?,
        suite: row.opt_text(3)?,
        kernel: row.text(4)?,
        host: host.hostname,
        results: row.int(5)? as usize,
        failed: row.int(6)? as usize,
    })
}

pub(crate) fn load(
    db: &mut dyn Db,
    store: &str,
    version: i64,
    (text, wanted): (&str, Selector),
) -> anyhow::Result<Run> {
    let run_id = resolve(db, store, text, wanted)?;
    load_run(db, &run_id, version).with_context(|| format!("reading run {run_id} from {store}"))
}

/// The newest run of each host and kernel, by host, then kernel: what
/// `iolab report --fleet` shows.
pub(crate) fn latest_per_host(db: &mut dyn Db, version: i64) -> anyhow::Result<Vec<Run>> {
    let sql = "SELECT run_id, kernel, environment_json FROM runs
               ORDER BY started_at DESC, seq DESC";
    let mut newest: std::collections::BTreeMap<(String, String), String> = Default::default();
    for row in db.query(sql, &[])? {
        let host: Host = serde_json::from_str(&row.text(2)?).context("environment_json")?;
        let key = (host.hostname, row.text(1)?);
        newest.entry(key).or_insert(row.text(0)?);
    }
    newest
        .into_values()
        .map(|id| load_run(db, &id, version).with_context(|| format!("reading run {id}")))
        .collect()
}

/// The run stored under exactly this id, if any.
pub(crate) fn find(db: &mut dyn Db, version: i64, run_id: &str) -> anyhow::Result<Option<Run>> {
    exact_id(db, run_id)?
        .map(|id| load_run(db, &id, version))
        .transpose()
}

fn first_id(db: &mut dyn Db, sql: &str, params: &[Value]) -> anyhow::Result<Option<String>> {
    db.query(sql, params)?
        .first()
        .map(|row| row.text(0))
        .transpose()
}

fn exact_id(db: &mut dyn Db, run_id: &str) -> anyhow::Result<Option<String>> {
    first_id(
        db,
        "SELECT run_id FROM runs WHERE run_id = ?1",
        &[run_id.into()],
    )
}

/// The run id a selector names, or a usage error saying what exists.
fn resolve(db: &mut dyn Db, store: &str, text: &str, wanted: Selector) -> anyhow::Result<String> {
    let found = match wanted {
        Selector::Id(id) => exact_id(db, id)?,
        Selector::Latest(back) => nth_newest(db, back)?,
    };
    match found {
        Some(id) => Ok(id),
        None => Err(not_found(db, store, text, wanted)?.into()),
    }
}

fn nth_newest(db: &mut dyn Db, back: usize) -> anyhow::Result<Option<String>> {
    let Ok(offset) = i64::try_from(back) else {
        return Ok(None);
    };
    first_id(
        db,
        "SELECT run_id FROM runs ORDER BY started_at DESC, seq DESC LIMIT 1 OFFSET ?1",
        &[offset.into()],
    )
}

fn not_found(
    db: &mut dyn Db,
    store: &str,
    text: &str,
    wanted: Selector,
) -> anyhow::Result<UsageError> {
    let count = scalar(db, "SELECT COUNT(*) FROM runs", &[])?;
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

fn load_run(db: &mut dyn Db, run_id: &str, version: i64) -> anyhow::Result<Run> {
    // A store at schema version 1 that could not be migrated (read-only)
    // has no claims column.
    let claims = if version >= 2 { "claims_json" } else { "NULL" };
    let sql = format!(
        "SELECT run_id, started_at, finished_at, label, suite, iolab_version,
                environment_json, verdicts_json, {claims}
         FROM runs WHERE run_id = ?1"
    );
    let rows = db.query(&sql, &[run_id.into()])?;
    let row = rows.first().context("the run is gone")?;
    let mut run = run_row(row)?;
    run.environment = serde_json::from_str(&row.text(6)?).context("environment_json")?;
    run.verdicts = serde_json::from_str(&row.text(7)?).context("verdicts_json")?;
    if let Some(claims) = row.opt_text(8)? {
        run.claims = serde_json::from_str(&claims).context("claims_json")?;
    }
    run.results = load_results(db, run_id)?;
    Ok(run)
}

/// The plain columns as a `Run`; environment, verdicts and claims are
/// read from their JSON by the caller.
fn run_row(row: &Row) -> anyhow::Result<Run> {
    Ok(Run {
        run_id: row.text(0)?,
        started_at: row.text(1)?,
        finished_at: row.opt_text(2)?,
        label: row.opt_text(3)?,
        suite: row.opt_text(4)?,
        iolab_version: row.text(5)?,
        environment: Environment::default(),
        results: Vec::new(),
        verdicts: Vec::new(),
        claims: Vec::new(),
    })
}

fn load_results(db: &mut dyn Db, run_id: &str) -> anyhow::Result<Vec<CaseResult>> {
    let rows = db.query(
        "SELECT idx, result_json, histogram FROM results WHERE run_id = ?1 ORDER BY idx",
        &[run_id.into()],
    )?;
    rows.iter().map(result_row).collect()
}

fn result_row(row: &Row) -> anyhow::Result<CaseResult> {
    let idx = row.int(0)?;
    let mut result: CaseResult =
        serde_json::from_str(&row.text(1)?).with_context(|| format!("result {idx}"))?;
    result.histogram = row.opt_blob(2)?;
    Ok(result)
}

/// Every result of `scenario` that measured something, with the
/// environment of its run, oldest run first: what `iolab fleet` groups.
pub(crate) fn scenario_results(
    db: &mut dyn Db,
    scenario: &str,
) -> anyhow::Result<Vec<(Environment, CaseResult)>> {
    let rows = db.query(
        "SELECT x.idx, x.result_json, x.histogram, r.environment_json
         FROM results x JOIN runs r ON r.run_id = x.run_id
         WHERE x.scenario = ?1 AND x.status = 'ok'
         ORDER BY r.started_at, r.seq, x.idx",
        &[scenario.into()],
    )?;
    let pair = |row: &Row| -> anyhow::Result<_> {
        let environment = serde_json::from_str(&row.text(3)?).context("environment_json")?;
        Ok((environment, result_row(row)?))
    };
    rows.iter().map(pair).collect()
}
