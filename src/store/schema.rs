//! The store's schema as an ordered list of migrations, one list for both
//! engines (written in SQLite's spelling; `pg.rs` maps the column types).
//! The schema version (SQLite's `PRAGMA user_version`, PostgreSQL's
//! `iolab_schema` table) records how many have been applied, so a later
//! change appends migration N+1 here and every existing store catches up
//! the next time it is opened.
//! Never edit a migration that has shipped; append a new one. A store that
//! cannot be migrated (read-only) is read as it is: `read.rs` knows what
//! each older version lacks.

use super::db::{in_write_tx, Db};
use crate::error::UsageError;
use anyhow::Context;

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
    // 3: the noise guard's grade (clean, noisy, disturbed) and whether
    // `--precision` was reached (1, 0), copied out of the result for
    // querying; NULL for results stored before or without them.
    "ALTER TABLE results ADD COLUMN grade TEXT;
     ALTER TABLE results ADD COLUMN precision_reached INTEGER;",
    // 4: the runs `iolab run --push` could not push yet, by the store they
    // go to (its URL as shown, the password hidden) and since when; a row
    // goes once that store holds the run (`pending.rs`).
    "CREATE TABLE pending_pushes (
         run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
         target TEXT NOT NULL,
         since  TEXT NOT NULL,
         PRIMARY KEY (run_id, target)
     );",
    // 5: no new table: the pending targets an older iolab recorded are
    // rewritten as they are shown now (`pending::reshow`), which takes out
    // a password given as `?password=`.
    "",
];

/// The migration after which `pending::reshow` runs.
const PENDING_RESHOWN: usize = 5;

/// The schema version this build of iolab writes and understands.
pub(crate) fn latest_version() -> i64 {
    MIGRATIONS.len() as i64
}

/// Brings the store up to `latest_version()` in one write transaction:
/// reading the version inside it means two iolabs opening a new store at
/// once cannot both apply the same migration. The version is written even
/// when it is current: that write is what proves the store can be written
/// (SQLite opens a read-only file without a word, and in WAL mode even
/// takes the write lock on it).
pub(crate) fn migrate(db: &mut dyn Db) -> anyhow::Result<()> {
    in_write_tx(db, |db| {
        let current = db
            .schema_version()
            .context("reading the store's schema version")?;
        refuse_unknown(current)?;
        if current == 0 {
            refuse_foreign(db)?;
        }
        for (done, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
            db.batch(sql)
                .and_then(|()| match done + 1 {
                    PENDING_RESHOWN => super::pending::reshow(db),
                    _ => Ok(()),
                })
                .with_context(|| format!("applying store migration {}", done + 1))?;
        }
        db.set_schema_version(latest_version())
    })
    .context("migrating the store's schema")
}

/// A store written by a newer iolab may hold what this one cannot read,
/// and a negative version was never written by any.
pub(crate) fn refuse_unknown(version: i64) -> Result<(), UsageError> {
    if version < 0 {
        return Err(UsageError::new(format!(
            "its schema version {version} is not one iolab ever wrote: pass --db with an \
             iolab store or an empty database"
        )));
    }
    if version > latest_version() {
        return Err(UsageError::new(format!(
            "its schema version {version} is newer than this iolab understands ({}): \
             upgrade iolab or pass --db FILE",
            latest_version()
        )));
    }
    Ok(())
}

/// Refuses what a read command cannot read as it is, without writing
/// anything: a store of a newer iolab, another program's database, or one
/// never set up (no schema version, no tables), which only a command that
/// stores runs makes a store.
pub(crate) fn refuse_unreadable(db: &mut dyn Db, version: i64) -> anyhow::Result<()> {
    refuse_unknown(version)?;
    if version > 0 {
        return Ok(());
    }
    refuse_foreign(db)?;
    Err(UsageError::new(
        "it was never set up (it has no tables): `iolab run --db` or `iolab push --to` \
         makes a store there",
    )
    .into())
}

/// A database without a schema version but with tables belongs to another
/// program: iolab adds nothing to it.
pub(crate) fn refuse_foreign(db: &mut dyn Db) -> anyhow::Result<()> {
    let tables = db.tables()?;
    if tables.is_empty() {
        return Ok(());
    }
    let shown: Vec<&str> = tables.iter().take(3).map(String::as_str).collect();
    let more = if tables.len() > 3 { ", ..." } else { "" };
    Err(UsageError::new(format!(
        "it holds another program's tables ({}{more}), not an iolab store: \
         pass --db with an empty database or an iolab store",
        shown.join(", ")
    ))
    .into())
}
