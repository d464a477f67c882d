//! PostgreSQL behind `trait Db`: the fleet store, where runs from many
//! machines live side by side (the `fleet` feature). The store's SQL is
//! SQLite's spelling; this file maps its placeholders (`?N` to `$N`) and
//! column types (`INTEGER` to `BIGINT`, `BLOB` to `BYTEA`). A write
//! transaction takes one advisory lock, so writers take turns as they do on
//! SQLite; the schema version is the one row of `iolab_schema`. Connecting
//! tells the user's mistakes (an unreachable server, a refused login, a
//! missing database, no password anywhere: exit 2) from the server's
//! faults (exit 1).

use super::db::{Db, Row, Value};
use super::place::ServerUrl;
use crate::error::UsageError;
use anyhow::{anyhow, Context};
use postgres::error::SqlState;
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};
use postgres::{Client, Config, NoTls};
use std::time::Duration;

/// The key of the advisory lock every write transaction takes ("iolab").
const WRITE_LOCK: i64 = 0x0069_6f6c_6162;

/// How long connecting may take when the settings do not say.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connects to the server `url` names, with the settings libpq's
/// conventions add to it (`libpq/`).
pub(crate) fn connect(url: &ServerUrl) -> anyhow::Result<Client> {
    let mut config = super::libpq::config(url)?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("iolab");
    }
    config
        .connect(NoTls)
        .map_err(|err| connect_error(&err, &config))
}

/// A refused connection is the user's to fix (exit 2); anything else the
/// server did is a fault (exit 1).
fn connect_error(err: &postgres::Error, config: &Config) -> anyhow::Error {
    let why = describe(err);
    let code = err.code();
    let refused_login = code.is_some_and(|c| {
        [
            &SqlState::INVALID_PASSWORD,
            &SqlState::INVALID_AUTHORIZATION_SPECIFICATION,
            &SqlState::INVALID_CATALOG_NAME,
        ]
        .contains(&c)
    });
    let message = if why.ends_with("password missing") {
        no_password(config)
    } else if refused_login || err.to_string() == "authentication error" {
        format!("the server refused the connection: {why}")
    } else if err.as_db_error().is_none() {
        format!("cannot reach the server: {why} (is it running, and is the URL right?)")
    } else {
        return anyhow!("the server failed: {why}");
    };
    UsageError::new(message).into()
}

/// The server asked for a password and none of libpq's places had one:
/// the line of a password file that would.
fn no_password(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(host)) => host.clone(),
        _ => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or("*");
    let user = config.get_user().unwrap_or("*");
    format!(
        "the server asks for a password and none was given: set PGPASSWORD, add the line \
         {host}:{port}:{db}:{user}:PASSWORD to ~/.pgpass (or to the file PGPASSFILE names; \
         mode 0600), or name a service of pg_service.conf that has it (?service=NAME or \
         PGSERVICE)"
    )
}

/// One line: the server's own message when it sent one, else the error
/// and its cause.
fn describe(err: &postgres::Error) -> String {
    if let Some(db) = err.as_db_error() {
        return db.message().to_string();
    }
    match std::error::Error::source(err) {
        Some(cause) => format!("{err}: {cause}"),
        None => err.to_string(),
    }
}

/// The store's SQL as PostgreSQL reads it.
fn dialect(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        let placeholder = c == '?' && chars.peek().is_some_and(char::is_ascii_digit);
        out.push(if placeholder { '$' } else { c });
    }
    out.replace("INTEGER", "BIGINT").replace("BLOB", "BYTEA")
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(n) if *ty == Type::INT4 => i32::try_from(*n)?.to_sql(ty, out),
            Value::Int(n) => n.to_sql(ty, out),
            Value::Text(text) => text.to_sql(ty, out),
            Value::Blob(bytes) => bytes.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Each variant checks its own type in `to_sql`.
        true
    }

    to_sql_checked!();
}

fn value(row: &postgres::Row, i: usize) -> anyhow::Result<Value> {
    let ty = row.columns()[i].type_();
    let cell = match *ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Value::Int),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(i)?
            .map(|n| Value::Int(n.into())),
        Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Blob),
        _ => row.try_get::<_, Option<String>>(i)?.map(Value::Text),
    };
    Ok(cell.unwrap_or(Value::Null))
}

fn params(values: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

impl Db for Client {
    fn execute(&mut self, sql: &str, values: &[Value]) -> anyhow::Result<u64> {
        Ok(Client::execute(self, &dialect(sql), &params(values))?)
    }

    fn query(&mut self, sql: &str, values: &[Value]) -> anyhow::Result<Vec<Row>> {
        let rows = Client::query(self, &dialect(sql), &params(values))?;
        let cells = |row: &postgres::Row| -> anyhow::Result<Vec<Value>> {
            (0..row.len()).map(|i| value(row, i)).collect()
        };
        rows.iter().map(|row| cells(row).map(Row)).collect()
    }

    fn batch(&mut self, sql: &str) -> anyhow::Result<()> {
        Ok(self.batch_execute(&dialect(sql))?)
    }

    fn begin_write(&mut self) -> anyhow::Result<()> {
        let sql = format!("BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})");
        Ok(self.batch_execute(&sql)?)
    }

    fn schema_version(&mut self) -> anyhow::Result<i64> {
        let has_version = Client::query_one(
            self,
            "SELECT COUNT(*) FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_name = 'iolab_schema'",
            &[],
        )?;
        if has_version.get::<_, i64>(0) == 0 {
            return Ok(0);
        }
        let rows = Client::query(self, "SELECT MAX(version) FROM iolab_schema", &[])?;
        let version: Option<i64> = rows.first().context("no row")?.try_get(0)?;
        Ok(version.unwrap_or(0))
    }

    fn set_schema_version(&mut self, version: i64) -> anyhow::Result<()> {
        self.batch_execute(
            "CREATE TABLE IF NOT EXISTS iolab_schema (version BIGINT NOT NULL);
             DELETE FROM iolab_schema",
        )?;
        Client::execute(self, "INSERT INTO iolab_schema VALUES ($1)", &[&version])?;
        Ok(())
    }

    /// Every schema's but the server's own: another program's tables in a
    /// schema of their own make the database no less another program's.
    /// Those outside the current schema are named with their schema.
    fn tables(&mut self) -> anyhow::Result<Vec<String>> {
        let rows = Client::query(
            self,
            "SELECT CASE WHEN table_schema = current_schema() THEN table_name::text
                         ELSE table_schema || '.' || table_name END AS name
             FROM information_schema.tables
             WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
               AND table_schema NOT LIKE 'pg\\_%'
             ORDER BY table_schema <> current_schema(), name",
            &[],
        )?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    fn refuse_writes(&mut self) -> anyhow::Result<()> {
        Ok(self.batch_execute("SET default_transaction_read_only = on")?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialect_maps_placeholders_and_types() {
        assert_eq!(
            dialect("CREATE TABLE t (a INTEGER, b BLOB); SELECT a FROM t WHERE a = ?12 AND b = ?"),
            "CREATE TABLE t (a BIGINT, b BYTEA); SELECT a FROM t WHERE a = $12 AND b = ?"
        );
    }
}
