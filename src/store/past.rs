//! A case's figures in this host's earlier runs: the headline and every
//! other metric of the same scenario, case and parameters, stored by runs of
//! the same host on the same kernel, newest first. The claims weigh their
//! spread as the run-to-run drift that one run's repetitions cannot show.

use super::db::{Db, Value};
use crate::model::{CaseResult, Environment, Status};
use anyhow::Context;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// Earlier runs a case's drift is read over, at most.
pub(crate) const RUNS: usize = 10;

#[derive(Deserialize)]
struct Host {
    #[serde(default)]
    hostname: String,
}

/// Fills `past` of each ok result in `results` that `wanted` keeps, from
/// the runs of `env`'s host and kernel stored so far.
pub(crate) fn fill(
    db: &mut dyn Db,
    env: &Environment,
    results: &mut [CaseResult],
    wanted: impl Fn(&CaseResult) -> bool,
) -> anyhow::Result<()> {
    let rank = host_runs(db, env)?;
    for result in results.iter_mut() {
        if result.status == Status::Ok && wanted(result) {
            result.past = figures(db, &rank, result)?;
        }
    }
    Ok(())
}

/// The runs of `env`'s host and kernel, each with its rank (0: newest).
fn host_runs(db: &mut dyn Db, env: &Environment) -> anyhow::Result<HashMap<String, usize>> {
    let sql = "SELECT run_id, environment_json FROM runs WHERE kernel = ?1
               ORDER BY started_at DESC, seq DESC";
    let mut rank = HashMap::new();
    for row in db.query(sql, &[Value::from(env.kernel.as_str())])? {
        let host: Host = serde_json::from_str(&row.text(1)?).context("environment_json")?;
        if host.hostname == env.hostname {
            let next = rank.len();
            rank.insert(row.text(0)?, next);
        }
    }
    Ok(rank)
}

/// `result`'s metric values in the newest `RUNS` of the ranked runs that
/// hold an ok result of its scenario, case and parameters.
fn figures(
    db: &mut dyn Db,
    rank: &HashMap<String, usize>,
    result: &CaseResult,
) -> anyhow::Result<Vec<BTreeMap<String, f64>>> {
    let sql = "SELECT run_id, result_json FROM results
               WHERE scenario = ?1 AND case_name = ?2 AND status = 'ok'";
    let params = [
        Value::from(result.scenario.as_str()),
        Value::from(result.case.as_str()),
    ];
    let mut found: Vec<(usize, BTreeMap<String, f64>)> = Vec::new();
    for row in db.query(sql, &params)? {
        let Some(&at) = rank.get(&row.text(0)?) else {
            continue;
        };
        let stored: CaseResult = serde_json::from_str(&row.text(1)?).context("result_json")?;
        if stored.params == result.params {
            let values = stored.metrics.iter().map(|(k, m)| (k.clone(), m.value));
            found.push((at, values.collect()));
        }
    }
    found.sort_by_key(|f| f.0);
    Ok(found.into_iter().take(RUNS).map(|f| f.1).collect())
}
