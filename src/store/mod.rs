//! The result store: every run `iolab run` makes, kept in one embedded
//! SQLite file so `history` and `show` can find it again, exactly as it was
//! measured (histograms included). Opening (for writing, or read-only)
//! lives in `open.rs`, the schema in `schema.rs`, writing in `write.rs`,
//! reading in `read.rs`, and a run saved as a JSON file when the store could
//! not take it (for `iolab import`) in `saved.rs`.

mod open;
mod read;
mod saved;
mod schema;
mod selector;
mod write;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_safety;

pub(crate) use saved::{read_saved, save_beside};

use crate::error::UsageError;
use crate::model::Run;
use anyhow::Context;
use rusqlite::Connection;
use serde::Serialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// An open result store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// The file's schema version: `schema::latest_version()`, unless the
    /// store is older and could not be migrated (read-only), and is read
    /// as it is.
    version: i64,
}

/// What `Store::import` did with a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Imported {
    Stored,
    /// The store already held this very run.
    AlreadyThere,
}

/// One line of `iolab history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RunSummary {
    pub(crate) run_id: String,
    pub(crate) started_at: String,
    pub(crate) label: Option<String>,
    pub(crate) suite: Option<String>,
    pub(crate) kernel: String,
    /// How many results the run holds, and how many of them failed.
    pub(crate) results: usize,
    pub(crate) failed: usize,
}

impl Store {
    /// `$XDG_DATA_HOME/iolab/results.db`, else `$HOME/.local/share/iolab/results.db`.
    pub(crate) fn default_path() -> anyhow::Result<PathBuf> {
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

    /// Opens the store at `path` for writing, creating it (and its
    /// directories) if needed and bringing its schema up to date. Fails,
    /// naming the path and the reason, when the store cannot be written.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        let conn = create_parent(path)
            .and_then(|()| open::writable(path, true))
            .with_context(|| format!("cannot write the result store {}", path.display()))
            .map_err(one_line)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            version: schema::latest_version(),
        })
    }

    /// Opens a store that must already exist, for the commands that only
    /// read: they work on a read-only file or mount.
    pub(crate) fn open_existing(path: &Path) -> anyhow::Result<Store> {
        if let Ok(false) = path.try_exists() {
            return Err(UsageError::new(format!(
                "no result store at {}: run 'iolab run' first or pass --db FILE",
                path.display()
            ))
            .into());
        }
        let cannot_read = || format!("cannot read the result store {}", path.display());
        // Read-only, so a file removed meanwhile is an error, not a new store.
        let conn = open::read_only(path)
            .with_context(cannot_read)
            .map_err(one_line)?;
        let version = schema::user_version(&conn)
            .with_context(cannot_read)
            .map_err(one_line)?;
        schema::refuse_newer(version).with_context(cannot_read)?;
        if version < schema::latest_version() {
            return Store::upgrade(conn, path, version);
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            version,
        })
    }

    /// An older store is migrated if it can be written, else read as it is.
    fn upgrade(reader: Connection, path: &Path, version: i64) -> anyhow::Result<Store> {
        let (conn, version) = match open::writable(path, false) {
            Ok(conn) => (conn, schema::latest_version()),
            Err(_) if version >= 1 => (reader, version),
            Err(err) => {
                return Err(UsageError::new(format!(
                    "the result store {} was never set up (it has no tables) and cannot be \
                     written here: {err:#}",
                    path.display()
                ))
                .into())
            }
        };
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            version,
        })
    }

    /// Where this store lives.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Stores the whole run in one transaction.
    pub fn save(&mut self, run: &Run) -> anyhow::Result<()> {
        write::save(&mut self.conn, run)
            .with_context(|| format!("storing run {} in {}", run.run_id, self.path.display()))
            .map_err(one_line)
    }

    /// The newest `limit` runs, newest first.
    pub(crate) fn history(&self, limit: usize) -> anyhow::Result<Vec<RunSummary>> {
        read::history(&self.conn, limit)
            .with_context(|| format!("listing runs in {}", self.path.display()))
    }

    /// The run named by `selector`: a run id, `latest` or `latest~N`.
    pub(crate) fn load(&self, selector: &str) -> anyhow::Result<Run> {
        let wanted = selector::parse(selector)?;
        read::load(&self.conn, &self.path, self.version, (selector, wanted))
    }

    /// Stores a run read from a file (`iolab import`) once: the same run
    /// again is left as it is, another run under the same id is refused.
    pub(crate) fn import(&mut self, run: &Run) -> anyhow::Result<Imported> {
        let Some(stored) = self.find(&run.run_id)? else {
            self.save(run)?;
            return Ok(Imported::Stored);
        };
        // A `--json` file has no histograms: they do not tell runs apart.
        let plain = |run: &Run| {
            let mut run = run.clone();
            run.results.iter_mut().for_each(|r| r.histogram = None);
            run
        };
        if plain(&stored) == plain(run) {
            return Ok(Imported::AlreadyThere);
        }
        Err(UsageError::new(format!(
            "another run with the id {} is already in {}: nothing imported",
            run.run_id,
            self.path.display()
        ))
        .into())
    }

    /// The run stored under exactly this id, if any.
    pub(crate) fn find(&self, run_id: &str) -> anyhow::Result<Option<Run>> {
        read::find(&self.conn, self.version, run_id)
            .with_context(|| format!("reading run {run_id} from {}", self.path.display()))
    }

    /// Test-only (`--fault store`): every later write fails as it would on
    /// a read-only store.
    #[doc(hidden)]
    pub(crate) fn refuse_writes(&self) -> anyhow::Result<()> {
        Ok(self.conn.pragma_update(None, "query_only", true)?)
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

/// A store error as one plain line: in anyhow's chain, a rusqlite error is
/// followed by SQLite's own ("Error code 8: Attempt to write a readonly
/// database"), which only repeats it.
fn one_line(err: anyhow::Error) -> anyhow::Error {
    let links: Vec<String> = err
        .chain()
        .filter(|link| !link.is::<rusqlite::ffi::Error>())
        .map(ToString::to_string)
        .collect();
    anyhow::Error::msg(links.join(": "))
}

fn create_parent(path: &Path) -> anyhow::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the directory {}", dir.display())),
        _ => Ok(()),
    }
}
