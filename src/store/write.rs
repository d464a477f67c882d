//! Writing a run: the runs row and one row per result, all in one
//! transaction so a store never holds half a run.

use crate::model::{CaseResult, Run};
use anyhow::Context;
use rusqlite::{params, Transaction, TransactionBehavior};

pub(crate) fn save(conn: &mut rusqlite::Connection, run: &Run) -> anyhow::Result<()> {
    // Immediate: take the write lock before reading MAX(seq), so two iolabs
    // saving at once cannot pick the same sequence number.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    insert_run(&tx, run)?;
    for (idx, result) in run.results.iter().enumerate() {
        insert_result(&tx, &run.run_id, idx, result)
            .with_context(|| format!("result {idx} ({})", result.case))?;
    }
    tx.commit()?;
    Ok(())
}

fn insert_run(tx: &Transaction, run: &Run) -> anyhow::Result<()> {
    let seq: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM runs", [], |row| {
        row.get(0)
    })?;
    tx.execute(
        "INSERT INTO runs (run_id, seq, started_at, finished_at, label, suite, kernel,
                           iolab_version, environment_json, verdicts_json, claims_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            run.run_id,
            seq,
            run.started_at,
            run.finished_at,
            run.label,
            run.suite,
            run.environment.kernel,
            run.iolab_version,
            serde_json::to_string(&run.environment)?,
            serde_json::to_string(&run.verdicts)?,
            serde_json::to_string(&run.claims)?,
        ],
    )?;
    Ok(())
}

fn insert_result(
    tx: &Transaction,
    run_id: &str,
    idx: usize,
    result: &CaseResult,
) -> anyhow::Result<()> {
    tx.execute(
        "INSERT INTO results (run_id, idx, scenario, case_name, status, result_json, histogram)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            run_id,
            i64::try_from(idx)?,
            result.scenario,
            result.case,
            result.status.as_str(),
            serde_json::to_string(result)?,
            result.histogram,
        ],
    )?;
    Ok(())
}
