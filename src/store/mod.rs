//! The result store: every run `iolab run` makes, kept in one embedded
//! SQLite file so `history` and `show` can find it again, exactly as it was
//! measured (histograms included). The schema lives in `schema.rs`, writing
//! in `write.rs`, reading in `read.rs`.

mod read;
mod schema;
mod selector;
mod write;

#[cfg(test)]
mod tests;

use crate::error::UsageError;
use crate::model::Run;
use anyhow::Context;
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a writer waits for another iolab holding the store's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// An open result store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// One line of `iolab history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunSummary {
    pub run_id: String,
    pub started_at: String,
    pub label: Option<String>,
    pub suite: Option<String>,
    pub kernel: String,
    /// How many results the run holds, and how many of them failed.
    pub results: usize,
    pub failed: usize,
}

impl Store {
    /// `$XDG_DATA_HOME/iolab/results.db`, else `$HOME/.local/share/iolab/results.db`.
    pub fn default_path() -> anyhow::Result<PathBuf> {
        let xdg = std::env::var_os("XDG_DATA_HOME");
        let home = std::env::var_os("HOME");
        data_path(xdg, home).ok_or_else(|| {
            UsageError::new(
                "no place for the result store: neither XDG_DATA_HOME nor HOME is set; \
                 pass --db FILE",
            )
            .into()
        })
    }

    /// Opens the store at `path`, creating it (and its directories) if needed.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        create_parent(path)?;
        let conn = Connection::open(path)
            .with_context(|| format!("opening the result store {}", path.display()))?;
        Store::init(conn, path)
    }

    /// Opens a store that must already exist: for commands that only read.
    pub fn open_existing(path: &Path) -> anyhow::Result<Store> {
        if !path.exists() {
            return Err(UsageError::new(format!(
                "no result store at {}: run 'iolab run' first or pass --db FILE",
                path.display()
            ))
            .into());
        }
        // No SQLITE_OPEN_CREATE: a file removed meanwhile is an error, not a new store.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .with_context(|| format!("opening the result store {}", path.display()))?;
        Store::init(conn, path)
    }

    /// Where this store lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stores the whole run in one transaction.
    pub fn save(&mut self, run: &Run) -> anyhow::Result<()> {
        write::save(&mut self.conn, run)
            .with_context(|| format!("storing run {} in {}", run.run_id, self.path.display()))
    }

    /// The newest `limit` runs, newest first.
    pub fn history(&self, limit: usize) -> anyhow::Result<Vec<RunSummary>> {
        read::history(&self.conn, limit)
            .with_context(|| format!("listing runs in {}", self.path.display()))
    }

    /// The run named by `selector`: a run id, `latest` or `latest~N`.
    pub fn load(&self, selector: &str) -> anyhow::Result<Run> {
        let wanted = selector::parse(selector)?;
        read::load(&self.conn, &self.path, selector, wanted)
    }

    fn init(mut conn: Connection, path: &Path) -> anyhow::Result<Store> {
        configure(&conn).with_context(|| format!("setting up {}", path.display()))?;
        schema::migrate(&mut conn).with_context(|| format!("migrating {}", path.display()))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }
}

/// The XDG rule: an empty or relative `XDG_DATA_HOME` counts as unset.
fn data_path(xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let usable = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let base = usable(xdg).or_else(|| {
        home.filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".local/share"))
    })?;
    Some(base.join("iolab").join("results.db"))
}

fn create_parent(path: &Path) -> anyhow::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the directory {}", dir.display())),
        _ => Ok(()),
    }
}

/// WAL so a reader never blocks the writer, foreign keys so deleting a run
/// deletes its results, a busy timeout so two iolabs wait instead of failing.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.busy_timeout(BUSY_TIMEOUT)
}
