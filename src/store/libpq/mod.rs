//! libpq's conventions for reaching a server store, which the `postgres`
//! crate leaves to its caller: the settings of a `postgresql://` URL,
//! then those of a service in `pg_service.conf` (`?service=NAME` or
//! `PGSERVICE`, `service.rs`), then libpq's environment variables
//! (`PGHOST`, `PGUSER`, `PGPASSWORD`, ...), then libpq's defaults; and
//! when no password came from any of them, the password file
//! (`PGPASSFILE`, else `~/.pgpass`, `pgpass.rs`). So a password need
//! never be on a command line: the same settings work for `psql` and
//! iolab alike. The password only ever goes into the `postgres::Config`
//! that connects.

mod conninfo;
mod pgpass;
mod service;

use super::place::ServerUrl;
use crate::error::UsageError;
use conninfo::Settings;

/// libpq's environment variables and the setting each gives when the URL
/// and the service do not.
const ENVIRONMENT: &[(&str, &str)] = &[
    ("PGHOST", "host"),
    ("PGHOSTADDR", "hostaddr"),
    ("PGPORT", "port"),
    ("PGDATABASE", "dbname"),
    ("PGUSER", "user"),
    ("PGPASSWORD", "password"),
    ("PGPASSFILE", "passfile"),
    ("PGOPTIONS", "options"),
    ("PGAPPNAME", "application_name"),
    ("PGCONNECT_TIMEOUT", "connect_timeout"),
    ("PGSSLMODE", "sslmode"),
    ("PGTARGETSESSIONATTRS", "target_session_attrs"),
    ("PGCHANNELBINDING", "channel_binding"),
    ("PGLOADBALANCEHOSTS", "load_balance_hosts"),
];

/// Where a server listens when nothing names a host: Debian's socket
/// directory, libpq's default there.
pub(crate) const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";

/// The settings that reach the server `url` names, password included.
pub(crate) fn config(url: &ServerUrl) -> Result<postgres::Config, UsageError> {
    let mut settings = conninfo::from_url(url.given())
        .map_err(|why| UsageError::new(format!("bad store URL {url}: {why}")))?;
    service::apply(&mut settings)?;
    from_environment(&mut settings);
    defaults(&mut settings);
    if !settings.has("password") {
        if let Some(password) = pgpass::lookup(&settings) {
            settings.set("password", password);
        }
    }
    settings
        .into_config()
        .map_err(|why| UsageError::new(format!("bad connection settings for {url}: {why}")))
}

fn from_environment(settings: &mut Settings) {
    for (var, key) in ENVIRONMENT {
        if let Some(value) = std::env::var(var).ok().filter(|v| !v.is_empty()) {
            settings.set_default(key, value);
        }
    }
}

/// libpq's defaults: the local socket, port 5432, the login name as the
/// user, the user's name as the database.
fn defaults(settings: &mut Settings) {
    if !settings.has("hostaddr") {
        settings.set_default("host", DEFAULT_SOCKET_DIR.to_string());
    }
    settings.set_default("port", "5432".to_string());
    if let Ok(login) = whoami::username() {
        settings.set_default("user", login);
    }
    if let Some(user) = settings.get("user").map(str::to_string) {
        settings.set_default("dbname", user);
    }
}
