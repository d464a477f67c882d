//! The runs waiting to be pushed to another store: `iolab run --push DB`
//! marks its run before it tries, and the mark goes once DB holds the run,
//! so a run whose push failed (the server down, the network gone, iolab
//! killed meanwhile) is sent by the next `--push` to DB or by `iolab push
//! --pending --to DB`. DB is kept as shown (a URL without its password),
//! so the password is never stored and a changed one is still the same
//! store.

use super::db::{Db, Value};

/// Marks `run_id` as waiting for `target`; marking it again changes nothing.
pub(crate) fn mark(db: &mut dyn Db, run_id: &str, target: &str) -> anyhow::Result<()> {
    let since = crate::measure::time::rfc3339(std::time::SystemTime::now());
    let params = [run_id.into(), target.into(), since.into()];
    if listed(db, run_id, target)? {
        return Ok(());
    }
    db.execute(
        "INSERT INTO pending_pushes (run_id, target, since) VALUES (?1, ?2, ?3)",
        &params,
    )?;
    Ok(())
}

fn listed(db: &mut dyn Db, run_id: &str, target: &str) -> anyhow::Result<bool> {
    let rows = db.query(
        "SELECT 1 FROM pending_pushes WHERE run_id = ?1 AND target = ?2",
        &[run_id.into(), target.into()],
    )?;
    Ok(!rows.is_empty())
}

/// The runs waiting for `target`, oldest run first.
pub(crate) fn list(db: &mut dyn Db, target: &str) -> anyhow::Result<Vec<String>> {
    let rows = db.query(
        "SELECT p.run_id FROM pending_pushes p JOIN runs r ON r.run_id = p.run_id
         WHERE p.target = ?1 ORDER BY r.seq",
        &[Value::from(target)],
    )?;
    rows.iter().map(|row| row.text(0)).collect()
}

/// `target` holds `run_id` now.
pub(crate) fn clear(db: &mut dyn Db, run_id: &str, target: &str) -> anyhow::Result<()> {
    db.execute(
        "DELETE FROM pending_pushes WHERE run_id = ?1 AND target = ?2",
        &[run_id.into(), target.into()],
    )?;
    Ok(())
}

/// Rewrites every target as it is shown now: an older iolab kept a
/// password given as `?password=` in clear, and hid one in the user part
/// as `***`. A run pending for both forms of one store stays pending once.
pub(crate) fn reshow(db: &mut dyn Db) -> anyhow::Result<()> {
    let rows = db.query("SELECT DISTINCT target FROM pending_pushes", &[])?;
    for row in rows {
        let old = row.text(0)?;
        let new = super::place::shown_name(&old);
        if new == old {
            continue;
        }
        db.execute(
            "INSERT INTO pending_pushes (run_id, target, since)
             SELECT run_id, ?2, since FROM pending_pushes p WHERE target = ?1
             AND NOT EXISTS (SELECT 1 FROM pending_pushes q
                             WHERE q.run_id = p.run_id AND q.target = ?2)",
            &[old.as_str().into(), new.into()],
        )?;
        db.execute(
            "DELETE FROM pending_pushes WHERE target = ?1",
            &[old.into()],
        )?;
    }
    Ok(())
}
