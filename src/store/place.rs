//! Where a store lives: an SQLite file, or a PostgreSQL server named by a
//! `postgresql://` URL (the fleet store). `--db` takes either; without it
//! `$IOLAB_DB`, and without that the file in the XDG data directory.

use crate::error::UsageError;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    File(PathBuf),
    /// A `postgresql://` or `postgres://` URL.
    Server(String),
}

impl Place {
    /// What `--db VALUE` names.
    pub(crate) fn of(value: &Path) -> Place {
        match value.to_str() {
            Some(text) if is_url(text) => Place::Server(text.to_string()),
            _ => Place::File(value.to_path_buf()),
        }
    }

    /// `--db` if given, else `$IOLAB_DB`, else the default file.
    pub(crate) fn chosen(explicit: Option<&Path>) -> anyhow::Result<Place> {
        if let Some(value) = explicit {
            return Ok(Place::of(value));
        }
        match std::env::var_os("IOLAB_DB").filter(|v| !v.is_empty()) {
            Some(value) => Ok(Place::of(Path::new(&value))),
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
            Place::Server(url) => f.write_str(&redact(url)),
        }
    }
}

pub(crate) fn is_url(text: &str) -> bool {
    text.starts_with("postgresql://") || text.starts_with("postgres://")
}

/// The URL with its password replaced by `***`.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((user_info, _)) if user_info.contains(':') => {
            let user = user_info.split(':').next().unwrap_or_default();
            let after = &rest[user_info.len()..];
            format!("{scheme}://{user}:***{after}")
        }
        _ => url.to_string(),
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

    #[test]
    fn a_shown_url_hides_the_password() {
        let shown = |url: &str| Place::of(Path::new(url)).to_string();
        assert_eq!(
            shown("postgresql://bob:s3cr@t@db.example:5432/iolab"),
            "postgresql://bob:***@db.example:5432/iolab"
        );
        assert_eq!(shown("postgres://bob@db/iolab"), "postgres://bob@db/iolab");
        assert_eq!(
            shown("postgresql:///iolab?host=/tmp/x@y"),
            "postgresql:///iolab?host=/tmp/x@y"
        );
        assert_eq!(shown("results.db"), "results.db");
    }
}
