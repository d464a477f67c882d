//! The one seam between the store and its database engines: SQLite (the
//! embedded default, `sqlite.rs`) and PostgreSQL (the fleet store behind the
//! `fleet` feature, `pg.rs`). The store's SQL is written once, in SQLite's
//! spelling with `?N` placeholders, and runs on either engine through
//! `trait Db`: values cross it as `Value`s, rows come back as `Row`s, and
//! the little that differs (how a write transaction takes its lock, where
//! the schema version lives, the column types) is each engine's business.

use anyhow::{anyhow, Context};

/// A value bound to a statement or read from a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Text(String),
    Blob(Vec<u8>),
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value::Text(text.to_string())
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Int(n)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

impl From<&String> for Value {
    fn from(text: &String) -> Self {
        Value::Text(text.clone())
    }
}

impl From<String> for Value {
    fn from(text: String) -> Self {
        Value::Text(text)
    }
}

impl From<Vec<u8>> for Value {
    fn from(bytes: Vec<u8>) -> Self {
        Value::Blob(bytes)
    }
}

/// One row of a query's answer, its columns in the order selected.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    fn at(&self, i: usize) -> anyhow::Result<&Value> {
        self.0.get(i).ok_or_else(|| anyhow!("no column {i}"))
    }

    pub(crate) fn opt_text(&self, i: usize) -> anyhow::Result<Option<String>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Text(text) => Ok(Some(text.clone())),
            other => Err(anyhow!("column {i}: expected text, found {other:?}")),
        }
    }

    pub(crate) fn text(&self, i: usize) -> anyhow::Result<String> {
        self.opt_text(i)?
            .with_context(|| format!("column {i}: expected text, found NULL"))
    }

    pub(crate) fn int(&self, i: usize) -> anyhow::Result<i64> {
        match self.at(i)? {
            Value::Int(n) => Ok(*n),
            other => Err(anyhow!("column {i}: expected an integer, found {other:?}")),
        }
    }

    pub(crate) fn opt_blob(&self, i: usize) -> anyhow::Result<Option<Vec<u8>>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Blob(bytes) => Ok(Some(bytes.clone())),
            other => Err(anyhow!("column {i}: expected bytes, found {other:?}")),
        }
    }
}

/// A connection to a store's database, whichever the engine.
pub(crate) trait Db {
    /// Runs one statement; returns how many rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> anyhow::Result<u64>;
    /// Runs one query and returns all its rows.
    fn query(&mut self, sql: &str, params: &[Value]) -> anyhow::Result<Vec<Row>>;
    /// Runs statements without parameters, separated by `;`.
    fn batch(&mut self, sql: &str) -> anyhow::Result<()>;
    /// Starts a transaction holding the store's write lock until it ends,
    /// so two iolabs writing at once take turns (run sequence numbers,
    /// migrations, the check that a pushed run is new).
    fn begin_write(&mut self) -> anyhow::Result<()>;
    /// How many migrations the database has had; 0 when it has none.
    fn schema_version(&mut self) -> anyhow::Result<i64>;
    /// Records the schema version (inside the migration's transaction).
    fn set_schema_version(&mut self, version: i64) -> anyhow::Result<()>;
    /// The tables the database holds, to tell an empty database from
    /// another program's.
    fn tables(&mut self) -> anyhow::Result<Vec<String>>;
    /// Test-only (`--fault store`): every later write fails.
    fn refuse_writes(&mut self) -> anyhow::Result<()>;
}

/// Runs `body` in one write transaction: committed when it succeeds, rolled
/// back when it fails (and by the server, when the connection dies).
pub(crate) fn in_write_tx<T>(
    db: &mut dyn Db,
    body: impl FnOnce(&mut dyn Db) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    db.begin_write()?;
    match body(db) {
        Ok(value) => {
            db.batch("COMMIT").context("committing")?;
            Ok(value)
        }
        Err(err) => {
            // The error that made us roll back is the one worth reporting.
            let _ = db.batch("ROLLBACK");
            Err(err)
        }
    }
}

/// The first value of the first row: for `SELECT COUNT(*)` and the like.
pub(crate) fn scalar(db: &mut dyn Db, sql: &str, params: &[Value]) -> anyhow::Result<i64> {
    db.query(sql, params)?
        .first()
        .context("the query returned no row")?
        .int(0)
}
