//! The store's schema as an ordered list of migrations. `PRAGMA user_version`
//! records how many have been applied, so a later change appends migration
//! N+1 here and every existing store catches up the next time it is opened.
//! Never edit a migration that has shipped; append a new one. A store that
//! cannot be migrated (read-only) is read as it is: `read.rs` knows what
//! each older version lacks.

use anyhow::{bail, Context};
use rusqlite::{Connection, TransactionBehavior};

/// Applied in order; migration `i` (0-based) brings the store to version `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: runs and their results. A result is kept as its full serde JSON
    // (forward compatible: fields are only ever added) plus its histogram;
    // scenario, case and status are copied out for querying.
    "CREATE TABLE runs (
         run_id           TEXT PRIMARY KEY NOT NULL,
         seq              INTEGER NOT NULL UNIQUE,
         started_at       TEXT NOT NULL,
         finished_at      TEXT,
         label            TEXT,
         suite            TEXT,
         kernel           TEXT NOT NULL,
         iolab_version    TEXT NOT NULL,
         environment_json TEXT NOT NULL,
         verdicts_json    TEXT NOT NULL
     );
     CREATE INDEX runs_by_start ON runs(started_at, seq);
     CREATE TABLE results (
         run_id      TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
         idx         INTEGER NOT NULL,
         scenario    TEXT NOT NULL,
         case_name   TEXT NOT NULL,
         status      TEXT NOT NULL,
         result_json TEXT NOT NULL,
         histogram   BLOB,
         PRIMARY KEY (run_id, idx)
     );
     CREATE INDEX results_by_case ON results(scenario, case_name);",
    // 2: the classic claims the run answered (`src/claims/`), as JSON; NULL
    // for runs stored before.
    "ALTER TABLE runs ADD COLUMN claims_json TEXT;",
];

/// The schema version this build of iolab writes and understands.
pub(crate) fn latest_version() -> i64 {
    MIGRATIONS.len() as i64
}

pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Brings the store up to `latest_version()` in one write transaction:
/// reading the version inside it means two iolabs opening a new store at
/// once cannot both apply the same migration. The version is written even
/// when it is current: that write is what proves the store can be written
/// (SQLite opens a read-only file without a word, and in WAL mode even
/// takes the write lock on it).
pub(crate) fn migrate(conn: &mut Connection) -> anyhow::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = user_version(&tx).context("reading the store's schema version")?;
    refuse_newer(current)?;
    for (done, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.execute_batch(sql)
            .with_context(|| format!("applying store migration {}", done + 1))?;
    }
    tx.pragma_update(None, "user_version", latest_version())?;
    tx.commit().context("committing the store's migrations")
}

/// A store written by a newer iolab may hold what this one cannot read.
pub(crate) fn refuse_newer(version: i64) -> anyhow::Result<()> {
    if version > latest_version() {
        bail!(
            "its schema version {version} is newer than this iolab understands ({}): \
             upgrade iolab or pass --db FILE",
            latest_version()
        );
    }
    Ok(())
}
