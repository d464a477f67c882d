//! A server's connection settings by libpq's keywords (`host`, `port`,
//! `dbname`, `user`, `password`, `sslmode`, ...): read from a URL as libpq
//! reads one (each part percent-decoded, the query's keywords beside
//! them), filled in by a service, the environment and the defaults
//! (`mod.rs`), and handed to the `postgres` crate as its `Config`.

use postgres::Config;
use std::collections::BTreeMap;
use std::str::FromStr;
use url::Url;

/// The settings gathered so far, by keyword.
#[derive(Debug, Default)]
pub(super) struct Settings(BTreeMap<String, String>);

impl Settings {
    pub(super) fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    pub(super) fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    pub(super) fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), value);
    }

    /// Sets `key` unless an earlier, stronger source set it.
    pub(super) fn set_default(&mut self, key: &str, value: String) {
        self.0.entry(key.to_string()).or_insert(value);
    }

    pub(super) fn remove(&mut self, key: &str) -> Option<String> {
        self.0.remove(key)
    }

    /// The `postgres` crate's `Config`; the password set on it alone, so
    /// no parsing error can echo it.
    pub(super) fn into_config(mut self) -> Result<Config, String> {
        let password = self.remove("password");
        for consumed in ["passfile", "service"] {
            self.remove(consumed);
        }
        let text: Vec<String> = self
            .0
            .iter()
            .map(|(key, value)| format!("{key}='{}'", quote(value)))
            .collect();
        let mut config =
            Config::from_str(&text.join(" ")).map_err(|e| match std::error::Error::source(&e) {
                Some(cause) => format!("{e}: {cause}"),
                None => e.to_string(),
            })?;
        if let Some(password) = password {
            config.password(password);
        }
        Ok(config)
    }
}

/// A value inside `'...'` of a key-value connection string.
fn quote(value: &str) -> String {
    value.replace('\\', "\\\\").replace('\'', "\\'")
}

fn decode(text: &str) -> Result<String, String> {
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| "a part of it is not UTF-8 once percent-decoded".to_string())
}

/// The settings a `postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DB][?K=V&...]`
/// URL gives: a host may be a socket directory (`%2Fvar%2Frun%2Fpostgresql`),
/// the query's keywords are libpq's (`?service=NAME`, `?sslmode=disable`,
/// `?host=/tmp`), and libpq's `ssl=true` is `sslmode=require`.
pub(super) fn from_url(url: &Url) -> Result<Settings, String> {
    let host = url.host_str().unwrap_or_default();
    let parts = [
        ("user", url.username()),
        ("password", url.password().unwrap_or_default()),
        ("host", host.trim_start_matches('[').trim_end_matches(']')),
        ("dbname", url.path().trim_start_matches('/')),
    ];
    let mut settings = Settings::default();
    for (key, text) in parts.into_iter().filter(|(_, text)| !text.is_empty()) {
        settings.set(key, decode(text)?);
    }
    if let Some(port) = url.port() {
        settings.set("port", port.to_string());
    }
    for (key, value) in url.query_pairs() {
        match (key.as_ref(), value.as_ref()) {
            ("ssl", "true") => settings.set("sslmode", "require".into()),
            (key, value) => settings.set(key, value.to_string()),
        }
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> Settings {
        from_url(&Url::parse(url).unwrap()).unwrap()
    }

    #[test]
    fn every_part_of_a_url_is_a_keyword_decoded() {
        let s = settings("postgresql://bob:p%40ss%3Aw@db.example:6543/iolab?sslmode=disable");
        assert_eq!(s.get("user"), Some("bob"));
        assert_eq!(s.get("password"), Some("p@ss:w"));
        assert_eq!(s.get("host"), Some("db.example"));
        assert_eq!(s.get("port"), Some("6543"));
        assert_eq!(s.get("dbname"), Some("iolab"));
        assert_eq!(s.get("sslmode"), Some("disable"));
        let socket = settings("postgresql://%2Fvar%2Frun%2Fpostgresql/iolab?ssl=true");
        assert_eq!(socket.get("host"), Some("/var/run/postgresql"));
        assert_eq!(socket.get("sslmode"), Some("require"));
        let v6 = settings("postgresql://[::1]:5433/x");
        assert_eq!(v6.get("host"), Some("::1"));
        let bare = settings("postgresql://?service=fleet");
        assert_eq!(bare.0.len(), 1, "{bare:?}");
        assert_eq!(bare.get("service"), Some("fleet"));
    }

    #[test]
    fn the_config_gets_every_setting_and_the_password() {
        let mut s = settings("postgresql://bob:it's\\@db:6543/iolab?application_name=x%27y");
        s.set("passfile", "/nowhere".into());
        let config = s.into_config().unwrap();
        assert_eq!(config.get_user(), Some("bob"));
        assert_eq!(config.get_password(), Some(&b"it's\\"[..]));
        assert_eq!(config.get_ports(), [6543]);
        assert_eq!(config.get_application_name(), Some("x'y"));
        let mut unknown = Settings::default();
        unknown.set("sslrootcert", "/x".into());
        unknown.set("password", "s3cret".into());
        let err = unknown.into_config().unwrap_err();
        assert!(
            err.contains("sslrootcert") && !err.contains("s3cret"),
            "{err}"
        );
    }
}
