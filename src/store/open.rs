//! Opening the store's SQLite file, in one of two ways: for writing (created
//! if needed and migrated, which also proves the file can be written before
//! a run measures anything), or for reading only, so a store on a read-only
//! file or mount can still be listed and shown.

use super::{schema, sqlite};
use crate::error::UsageError;
use anyhow::bail;
use rusqlite::{Connection, DatabaseName, ErrorCode, OpenFlags};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a connection waits for another iolab holding the store's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection that can write, with the schema brought up to date.
/// `create`: make the file if it does not exist.
pub(super) fn writable(path: &Path, create: bool) -> anyhow::Result<Connection> {
    // SQLite would put its journal beside a device or a FIFO (as root,
    // `/dev/null-journal`) before finding out it is no database.
    if path.exists() && !path.is_file() {
        return Err(UsageError::new("not a regular file: give a file name").into());
    }
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let mut conn = Connection::open_with_flags(path, flags)?;
    // SQLite falls back to reading a file it may not write without a word;
    // refusing here leaves no WAL files behind in someone else's directory.
    if conn.is_readonly(DatabaseName::Main)? {
        bail!("it is read-only here (no write permission, or a read-only mount)");
    }
    // First of all, so that every step below waits for a concurrent iolab
    // (switching to WAL takes a lock too) instead of failing at once.
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // WAL so a reader never blocks the writer, foreign keys so deleting a
    // run deletes its results.
    use_wal(&conn)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    // Writes the schema version: what finds out that the directory cannot
    // be written, or the disk is full.
    schema::migrate(&mut conn)?;
    Ok(conn)
}

/// Switching a new store to WAL needs the file to itself, and SQLite does
/// not wait for that (its busy handler is not called): an iolab creating
/// the store while another one reads it retries until the busy timeout.
fn use_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
        {
            Err(err) if is_busy(&err) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            done => return done.map(drop),
        }
    }
}

fn is_busy(err: &rusqlite::Error) -> bool {
    err.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
}

/// A connection that only reads. A WAL store whose `-shm` file is gone and
/// cannot be created (a read-only directory or mount) cannot be opened the
/// usual way: it is then opened as immutable, which is right as long as
/// nobody writes it meanwhile, and nobody can without write access there.
pub(super) fn read_only(path: &Path) -> anyhow::Result<Connection> {
    match read_only_with(path, false) {
        Err(err) if cannot_share(&err) => Ok(read_only_with(path, true)?),
        other => Ok(other?),
    }
}

fn read_only_with(path: &Path, immutable: bool) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match immutable {
        false => Connection::open_with_flags(path, flags)?,
        true => {
            Connection::open_with_flags(immutable_uri(path)?, flags | OpenFlags::SQLITE_OPEN_URI)?
        }
    };
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // SQLite opens lazily: the first read is what finds out whether the
    // file (and its WAL index) can be read here.
    sqlite::user_version(&conn)?;
    Ok(conn)
}

/// The errors of a WAL store whose `-shm`/`-wal` cannot be created here.
fn cannot_share(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly)
    )
}

/// `file:PATH?immutable=1`, with the characters a URI path cannot hold
/// literally escaped as SQLite's URI rules say.
fn immutable_uri(path: &Path) -> rusqlite::Result<String> {
    let text = path
        .to_str()
        .ok_or_else(|| rusqlite::Error::InvalidPath(path.to_path_buf()))?;
    let escaped = text
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23");
    Ok(format!("file:{escaped}?immutable=1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immutable_uri_escapes_what_a_uri_path_cannot_hold() {
        let uri = immutable_uri(Path::new("/a b/50%?#.db")).unwrap();
        assert_eq!(uri, "file:/a b/50%25%3f%23.db?immutable=1");
    }
}
