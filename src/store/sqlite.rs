//! SQLite behind `trait Db`: the embedded store. The schema version is
//! `PRAGMA user_version`, and a write transaction is `BEGIN IMMEDIATE`,
//! which takes the file's write lock at once (waiting for another iolab up
//! to the busy timeout).

use super::db::{Db, Row, Value};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{params_from_iter, Connection, ToSql};

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(n) => ToSqlOutput::Borrowed(ValueRef::Integer(*n)),
            Value::Text(text) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
            Value::Blob(bytes) => ToSqlOutput::Borrowed(ValueRef::Blob(bytes)),
        })
    }
}

fn value(cell: ValueRef) -> rusqlite::Result<Value> {
    Ok(match cell {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::Int(n),
        ValueRef::Text(text) => Value::Text(String::from_utf8_lossy(text).into_owned()),
        ValueRef::Blob(bytes) => Value::Blob(bytes.to_vec()),
        ValueRef::Real(_) => {
            return Err(rusqlite::Error::InvalidColumnType(
                0,
                "a real number".into(),
                rusqlite::types::Type::Real,
            ))
        }
    })
}

impl Db for Connection {
    fn execute(&mut self, sql: &str, params: &[Value]) -> anyhow::Result<u64> {
        let changed = Connection::execute(self, sql, params_from_iter(params))?;
        Ok(changed as u64)
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> anyhow::Result<Vec<Row>> {
        let mut stmt = self.prepare(sql)?;
        let width = stmt.column_count();
        let rows = stmt.query_map(params_from_iter(params), |row| {
            (0..width)
                .map(|i| value(row.get_ref(i)?))
                .collect::<rusqlite::Result<_>>()
                .map(Row)
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn batch(&mut self, sql: &str) -> anyhow::Result<()> {
        Ok(self.execute_batch(sql)?)
    }

    fn begin_write(&mut self) -> anyhow::Result<()> {
        Ok(self.execute_batch("BEGIN IMMEDIATE")?)
    }

    fn schema_version(&mut self) -> anyhow::Result<i64> {
        Ok(user_version(self)?)
    }

    fn set_schema_version(&mut self, version: i64) -> anyhow::Result<()> {
        Ok(self.pragma_update(None, "user_version", version)?)
    }

    fn tables(&mut self) -> anyhow::Result<Vec<String>> {
        let rows = Db::query(
            self,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
            &[],
        )?;
        rows.iter().map(|row| row.text(0)).collect()
    }

    fn refuse_writes(&mut self) -> anyhow::Result<()> {
        Ok(self.pragma_update(None, "query_only", true)?)
    }
}

pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}
