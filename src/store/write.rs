//! Writing a run: the runs row and one row per result, all in one
//! transaction so a store never holds half a run.

use super::db::{in_write_tx, scalar, Db, Value};
use super::read;
use crate::model::{CaseResult, Run};
use anyhow::Context;

/// Stores `run`; with `pending`, also marks it as waiting to be pushed
/// there (`pending.rs`), in the same transaction, so no run is stored
/// without the mark its `--push` asked for.
pub(crate) fn save(db: &mut dyn Db, run: &Run, pending: Option<&str>) -> anyhow::Result<()> {
    in_write_tx(db, |db| {
        insert(db, run)?;
        match pending {
            Some(target) => super::pending::mark(db, &run.run_id, target),
            None => Ok(()),
        }
    })
}

/// Stores `run` unless the store holds a run under its id already: then
/// that run is returned and nothing is written. Checking inside the write
/// transaction means two iolabs pushing the same run store it once.
pub(crate) fn save_new(db: &mut dyn Db, version: i64, run: &Run) -> anyhow::Result<Option<Run>> {
    in_write_tx(db, |db| match read::find(db, version, &run.run_id)? {
        Some(stored) => Ok(Some(stored)),
        None => insert(db, run).map(|()| None),
    })
}

fn insert(db: &mut dyn Db, run: &Run) -> anyhow::Result<()> {
    insert_run(db, run)?;
    for (idx, result) in run.results.iter().enumerate() {
        insert_result(db, &run.run_id, idx, result)
            .with_context(|| format!("result {idx} ({})", result.case))?;
    }
    Ok(())
}

fn insert_run(db: &mut dyn Db, run: &Run) -> anyhow::Result<()> {
    // The write transaction holds the store's lock: no other iolab can
    // pick the same sequence number meanwhile.
    let seq = scalar(db, "SELECT COALESCE(MAX(seq), 0) + 1 FROM runs", &[])?;
    db.execute(
        "INSERT INTO runs (run_id, seq, started_at, finished_at, label, suite, kernel,
                           iolab_version, environment_json, verdicts_json, claims_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        &[
            (&run.run_id).into(),
            seq.into(),
            (&run.started_at).into(),
            run.finished_at.as_ref().into(),
            run.label.as_ref().into(),
            run.suite.as_ref().into(),
            (&run.environment.kernel).into(),
            (&run.iolab_version).into(),
            serde_json::to_string(&run.environment)?.into(),
            serde_json::to_string(&run.verdicts)?.into(),
            serde_json::to_string(&run.claims)?.into(),
        ],
    )?;
    Ok(())
}

fn insert_result(
    db: &mut dyn Db,
    run_id: &str,
    idx: usize,
    result: &CaseResult,
) -> anyhow::Result<()> {
    db.execute(
        "INSERT INTO results (run_id, idx, scenario, case_name, status, result_json, histogram,
                              grade, precision_reached)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        &[
            run_id.into(),
            i64::try_from(idx)?.into(),
            (&result.scenario).into(),
            (&result.case).into(),
            result.status.as_str().into(),
            serde_json::to_string(result)?.into(),
            Value::from(result.histogram.clone()),
            result.noise.as_ref().map(|n| n.grade.as_str()).into(),
            result
                .precision
                .as_ref()
                .map_or(Value::Null, |p| i64::from(p.reached).into()),
        ],
    )?;
    Ok(())
}
