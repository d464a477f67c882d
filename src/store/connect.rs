//! Opening a store at its place: for writing (created if needed and
//! migrated, which also proves it can be written before a run measures
//! anything), or for the commands that only read, which create nothing: a
//! database never set up or holding another program's tables is refused
//! by both engines alike (`schema::refuse_unreadable`). An SQLite file is opened
//! by `open.rs`; a PostgreSQL server by `pg.rs` when iolab is built with
//! the `fleet` feature, and refused with the way to get it when not.

use super::{one_line, open, schema, sqlite, Place, ServerUrl, Store};
use crate::error::UsageError;
use anyhow::Context;
use rusqlite::Connection;
use std::path::Path;

impl Store {
    /// Opens the store at `path` (a file, or a `postgresql://` URL) for
    /// writing, creating it (and its directories) if needed and bringing
    /// its schema up to date. Fails, naming the store and the reason, when
    /// it cannot be written.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        Store::open_at(Place::of(path)?)
    }

    pub(crate) fn open_at(place: Place) -> anyhow::Result<Store> {
        let db = match &place {
            Place::File(path) => create_parent(path)
                .and_then(|()| open::writable(path, true))
                .map(|conn| Box::new(conn) as _),
            Place::Server(url) => server(url).and_then(|mut db| {
                schema::migrate(db.as_mut())?;
                Ok(db)
            }),
        }
        .with_context(|| format!("cannot write the result store {place}"))
        .map_err(one_line)?;
        Ok(Store {
            db,
            place,
            version: schema::latest_version(),
        })
    }

    /// Opens a store that must already exist, for the commands that only
    /// read: they work on a read-only file or mount, and create nothing.
    pub(crate) fn open_existing(place: Place) -> anyhow::Result<Store> {
        match &place {
            Place::File(path) => Store::open_file(path),
            Place::Server(url) => {
                let (db, version) = read_server(url)
                    .with_context(|| format!("cannot read the result store {place}"))
                    .map_err(one_line)?;
                Ok(Store { db, place, version })
            }
        }
    }

    fn open_file(path: &Path) -> anyhow::Result<Store> {
        if let Ok(false) = path.try_exists() {
            return Err(UsageError::new(format!(
                "no result store at {}: run 'iolab run' first or pass --db FILE",
                path.display()
            ))
            .into());
        }
        let cannot_read = || format!("cannot read the result store {}", path.display());
        // Read-only, so a file removed meanwhile is an error, not a new store.
        let mut conn = open::read_only(path)
            .with_context(cannot_read)
            .map_err(unusable)?;
        let version = sqlite::user_version(&conn)
            .map_err(anyhow::Error::from)
            .and_then(|version| schema::refuse_unreadable(&mut conn, version).map(|()| version))
            .with_context(cannot_read)
            .map_err(unusable)?;
        if version < schema::latest_version() {
            return Ok(Store::upgrade(conn, path, version));
        }
        Ok(Store::sqlite(conn, path, version))
    }

    /// An older store file is migrated if it can be written, else read as
    /// it is (`read.rs` knows what each older version lacks).
    fn upgrade(reader: Connection, path: &Path, version: i64) -> Store {
        match open::writable(path, false) {
            Ok(conn) => Store::sqlite(conn, path, schema::latest_version()),
            Err(_) => Store::sqlite(reader, path, version),
        }
    }

    fn sqlite(conn: Connection, path: &Path, version: i64) -> Store {
        Store {
            db: Box::new(conn),
            place: Place::File(path.to_path_buf()),
            version,
        }
    }
}

/// A store file that cannot be read is unusable input, as `run` finds it:
/// exit 2, in one line.
fn unusable(err: anyhow::Error) -> anyhow::Error {
    UsageError::new(one_line(err).to_string()).into()
}

/// A server store for reading, as it is: a read command neither sets up
/// an empty database nor migrates an older store (a fleet's store is
/// shared, and an older iolab on another host would no longer read it).
fn read_server(url: &ServerUrl) -> anyhow::Result<(Box<dyn super::Db>, i64)> {
    let mut db = server(url)?;
    let version = db.schema_version()?;
    schema::refuse_unreadable(db.as_mut(), version)?;
    Ok((db, version))
}

#[cfg(feature = "fleet")]
fn server(url: &ServerUrl) -> anyhow::Result<Box<dyn super::Db>> {
    Ok(Box::new(super::pg::connect(url)?))
}

#[cfg(not(feature = "fleet"))]
fn server(_url: &ServerUrl) -> anyhow::Result<Box<dyn super::Db>> {
    Err(no_fleet().into())
}

fn no_fleet() -> UsageError {
    UsageError::new(
        "this iolab was built without PostgreSQL stores (the `fleet` feature): \
         build it with `cargo build --features fleet`, or pass --db FILE",
    )
}

impl Place {
    /// Refuses, before anything is measured, a server store this iolab
    /// cannot open: one built without the `fleet` feature.
    pub(crate) fn refuse_unsupported(&self) -> Result<(), UsageError> {
        match self {
            Place::Server(_) if !cfg!(feature = "fleet") => Err(no_fleet()),
            _ => Ok(()),
        }
    }
}

fn create_parent(path: &Path) -> anyhow::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the directory {}", dir.display())),
        _ => Ok(()),
    }
}
