//! A case's figures in this host's earlier runs: the headline and every
//! other metric of the same scenario, case and parameters, stored by runs of
//! the same host on the same kernel, newest first, each with its run. The
//! claims judge a figure over these runs and this one (pairing two cases'
//! figures run by run), since one run's repetitions cannot show how far
//! the next run, in another phase of the host, moves.

use super::db::{Db, Value};
use crate::model::{CaseResult, Earlier, Environment, Status};
use anyhow::Context;
use std::collections::{BTreeMap, HashMap};

/// Earlier runs a case's drift is read over, at most.
pub(crate) const RUNS: usize = 10;

/// Fills `past` of each ok result in `results` that `wanted` keeps, from
/// the runs of `env`'s host and kernel stored so far.
pub(crate) fn fill(
    db: &mut dyn Db,
    env: &Environment,
    results: &mut [CaseResult],
    wanted: impl Fn(&CaseResult) -> bool,
) -> anyhow::Result<()> {
    let rank: HashMap<String, usize> = super::read::host_runs(db, &env.hostname, &env.kernel)?
        .into_iter()
        .enumerate()
        .map(|(at, (run_id, _))| (run_id, at))
        .collect();
    for result in results.iter_mut() {
        if result.status == Status::Ok && wanted(result) {
            result.past = figures(db, &rank, result)?;
        }
    }
    Ok(())
}

/// `result`'s metric values in the newest `RUNS` of the ranked runs that
/// hold an ok result of its scenario, case and parameters.
fn figures(
    db: &mut dyn Db,
    rank: &HashMap<String, usize>,
    result: &CaseResult,
) -> anyhow::Result<Vec<Earlier>> {
    let sql = "SELECT run_id, result_json FROM results
               WHERE scenario = ?1 AND case_name = ?2 AND status = 'ok'";
    let params = [
        Value::from(result.scenario.as_str()),
        Value::from(result.case.as_str()),
    ];
    let mut found: Vec<(usize, Earlier)> = Vec::new();
    for row in db.query(sql, &params)? {
        let run_id = row.text(0)?;
        let Some(&at) = rank.get(&run_id) else {
            continue;
        };
        let stored: CaseResult = serde_json::from_str(&row.text(1)?).context("result_json")?;
        if stored.params == result.params {
            let values = stored.metrics.iter().map(|(k, m)| (k.clone(), m.value));
            let metrics: BTreeMap<String, f64> = values.collect();
            let observed = stored
                .observations
                .iter()
                .filter_map(|o| Some((o.name.clone(), o.figure?)))
                .collect();
            let earlier = Earlier {
                run_id,
                metrics,
                observed,
            };
            found.push((at, earlier));
        }
    }
    found.sort_by_key(|f| f.0);
    Ok(found.into_iter().take(RUNS).map(|f| f.1).collect())
}
