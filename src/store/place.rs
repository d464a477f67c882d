//! Where a store lives: an SQLite file, or a PostgreSQL server named by a
//! `postgresql://` URL (the fleet store). `--db` takes either; without it
//! `$IOLAB_DB`, and without that the file in the XDG data directory.
//!
//! A server's URL may hold a password, in its user part or as
//! `?password=`: it is parsed by the `url` crate once, and only its shown
//! form, with every password taken out, is ever printed or stored (in
//! messages, the pending queue, the JSON). The shown form is also what
//! names the store, so a changed password, or one given another way
//! (`PGPASSWORD`, a password file, a service: `libpq/`), is still the same
//! store.

use crate::error::UsageError;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use url::Url;

/// The query parameters that hold a password (libpq's `password`, and the
/// client key's `sslpassword`).
const SECRET_PARAMS: [&str; 2] = ["password", "sslpassword"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    File(PathBuf),
    /// A `postgresql://` or `postgres://` URL.
    Server(ServerUrl),
}

/// A server's URL as given, which only connecting reads, and as shown.
#[derive(Clone)]
pub(crate) struct ServerUrl {
    /// Read only to connect, which needs the `fleet` feature.
    #[cfg_attr(not(feature = "fleet"), allow(dead_code))]
    given: Url,
    shown: String,
}

impl ServerUrl {
    /// The URL as given, password and all: for connecting, never shown.
    #[cfg(feature = "fleet")]
    pub(crate) fn given(&self) -> &Url {
        &self.given
    }

    fn parse(text: &str) -> Result<ServerUrl, UsageError> {
        let given = Url::parse(text).map_err(|err| {
            // The text may hold a password, and a URL that does not parse
            // has no parts to leave it out of: none of it is shown.
            UsageError::new(format!(
                "bad store URL (not shown, it may hold a password): {err}; expected \
                 postgresql://[USER@]HOST[:PORT]/DB[?service=NAME&...], one host per URL"
            ))
        })?;
        Ok(ServerUrl {
            shown: shown(&given),
            given,
        })
    }
}

/// The URL without a password in any of its places.
fn shown(given: &Url) -> String {
    let mut url = given.clone();
    let _ = url.set_password(None);
    let kept: Vec<(String, String)> = given
        .query_pairs()
        .filter(|(key, _)| !SECRET_PARAMS.contains(&key.as_ref()))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.set_query(None);
    if !kept.is_empty() {
        url.query_pairs_mut().extend_pairs(kept);
    }
    url.to_string()
}

/// Two URLs name the same store when they are shown alike.
impl PartialEq for ServerUrl {
    fn eq(&self, other: &Self) -> bool {
        self.shown == other.shown
    }
}

impl Eq for ServerUrl {}

/// Only the shown form: a `{:?}` never prints a password either.
impl fmt::Debug for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServerUrl({:?})", self.shown)
    }
}

impl fmt::Display for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl Place {
    /// What `--db VALUE` names; a server URL that does not parse is refused.
    pub(crate) fn of(value: &Path) -> Result<Place, UsageError> {
        match value.to_str() {
            Some(text) if is_url(text) => ServerUrl::parse(text).map(Place::Server),
            _ => Ok(Place::File(value.to_path_buf())),
        }
    }

    /// `--db` if given, else `$IOLAB_DB`, else the default file.
    pub(crate) fn chosen(explicit: Option<&Path>) -> anyhow::Result<Place> {
        if let Some(value) = explicit {
            return Ok(Place::of(value)?);
        }
        match std::env::var_os("IOLAB_DB").filter(|v| !v.is_empty()) {
            Some(value) => Ok(Place::of(Path::new(&value))?),
            None => Ok(Place::File(default_path()?)),
        }
    }

    /// The file, for a store that is one.
    pub(crate) fn file(&self) -> Option<&Path> {
        match self {
            Place::File(path) => Some(path),
            Place::Server(_) => None,
        }
    }
}

/// As it may be shown: a server's password is never printed.
impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::File(path) => write!(f, "{}", path.display()),
            Place::Server(url) => write!(f, "{url}"),
        }
    }
}

pub(crate) fn is_url(text: &str) -> bool {
    text.starts_with("postgresql://") || text.starts_with("postgres://")
}

/// A store's name as shown: a server URL without its password, anything
/// else as it is (what an older iolab recorded as pending, for one).
pub(crate) fn shown_name(text: &str) -> String {
    match Place::of(Path::new(text)) {
        Ok(place) => place.to_string(),
        Err(_) if is_url(text) => "a store URL that does not parse".to_string(),
        Err(_) => text.to_string(),
    }
}

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

/// The XDG rule: an empty or relative `XDG_DATA_HOME` counts as unset.
pub(super) fn data_path(xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let usable = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let base = usable(xdg).or_else(|| {
        home.filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".local/share"))
    })?;
    Some(base.join("iolab").join("results.db"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(url: &str) -> String {
        Place::of(Path::new(url)).unwrap().to_string()
    }

    #[test]
    fn a_shown_url_has_no_password_in_any_place() {
        assert_eq!(
            shown("postgresql://bob:s3cr@t@db.example:5432/iolab"),
            "postgresql://bob@db.example:5432/iolab"
        );
        assert_eq!(
            shown("postgresql://bob@db.example/iolab?password=s3cret&sslmode=disable"),
            "postgresql://bob@db.example/iolab?sslmode=disable"
        );
        assert_eq!(
            shown("postgresql://db/iolab?sslpassword=k3y&password=p%40ss"),
            "postgresql://db/iolab"
        );
        assert_eq!(shown("postgres://bob@db/iolab"), "postgres://bob@db/iolab");
        assert_eq!(
            shown("postgresql:///iolab?host=/tmp/x@y"),
            "postgresql:///iolab?host=%2Ftmp%2Fx%40y"
        );
        assert_eq!(shown("results.db"), "results.db");
    }

    #[test]
    fn a_changed_password_is_the_same_store() {
        let place = |url: &str| Place::of(Path::new(url)).unwrap();
        assert_eq!(
            place("postgresql://bob:one@db/iolab"),
            place("postgresql://bob@db/iolab?password=two")
        );
        assert_ne!(
            place("postgresql://bob@db/iolab"),
            place("postgresql://bob@db/other")
        );
        let debug = format!("{:?}", place("postgresql://bob:s3cret@db/iolab"));
        assert!(!debug.contains("s3cret"), "{debug}");
    }

    #[test]
    fn a_url_that_does_not_parse_is_refused_without_showing_it() {
        let err = Place::of(Path::new("postgresql://bob:s3cret@db:99999/iolab")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("bad store URL"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
        assert_eq!(
            shown_name("postgresql://bob:s3cret@db:99999/x"),
            "a store URL that does not parse"
        );
        assert_eq!(
            shown_name("postgresql://bob:***@db/x"),
            "postgresql://bob@db/x"
        );
    }
}
