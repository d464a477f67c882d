//! A connection service, as libpq finds one: named by `?service=NAME` in
//! the URL or by `PGSERVICE`, looked up first in `PGSERVICEFILE` (else
//! `~/.pg_service.conf`), then in `pg_service.conf` of `PGSYSCONFDIR`
//! (else Debian's `/etc/postgresql-common`). Its `[NAME]` section's
//! `KEY=VALUE` lines give every setting the URL does not, a password
//! included.

use super::conninfo::Settings;
use crate::error::UsageError;
use ini::{Ini, ParseOption};
use std::path::PathBuf;

/// Where libpq looks for the system-wide service file on Debian.
const SYSCONFDIR: &str = "/etc/postgresql-common";

/// Fills in what the named service sets; refuses a service that no file
/// defines, naming the files looked in.
pub(super) fn apply(settings: &mut Settings) -> Result<(), UsageError> {
    let from_env = std::env::var("PGSERVICE").ok().filter(|s| !s.is_empty());
    let Some(name) = settings.remove("service").or(from_env) else {
        return Ok(());
    };
    let files = files();
    for file in &files {
        if let Some(section) = section(file, &name)? {
            for (key, value) in section {
                if key == "service" {
                    return Err(UsageError::new(format!(
                        "the service \"{name}\" in {} names another service: libpq allows none",
                        file.display()
                    )));
                }
                settings.set_default(&key, value);
            }
            return Ok(());
        }
    }
    let looked: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Err(UsageError::new(format!(
        "no service \"{name}\" is defined (looked in {}): add a [{name}] section, or set \
         PGSERVICEFILE to the file that has it",
        looked.join(" and ")
    )))
}

/// The user's service file, then the system's.
fn files() -> Vec<PathBuf> {
    let user = std::env::var_os("PGSERVICEFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pg_service.conf")));
    let sysconf = std::env::var_os("PGSYSCONFDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(SYSCONFDIR));
    user.into_iter()
        .chain([sysconf.join("pg_service.conf")])
        .collect()
}

/// The `[name]` section of `file`, when the file exists and has one.
fn section(file: &PathBuf, name: &str) -> Result<Option<Vec<(String, String)>>, UsageError> {
    if !file.is_file() {
        return Ok(None);
    }
    // libpq takes a value as written: no quotes, no escapes.
    let literal = ParseOption {
        enabled_quote: false,
        enabled_escape: false,
        ..ParseOption::default()
    };
    let ini = Ini::load_from_file_opt(file, literal).map_err(|e| {
        UsageError::new(format!(
            "cannot read the service file {}: {e}",
            file.display()
        ))
    })?;
    Ok(ini.section(Some(name)).map(|props| {
        props
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_gives_its_settings_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pg_service.conf");
        std::fs::write(
            &file,
            "# fleet\n[fleet]\nhost=db.example\nport=6543\npassword=\"s3c;ret\"\n[other]\nhost=x\n",
        )
        .unwrap();
        let fleet = section(&file, "fleet").unwrap().unwrap();
        assert_eq!(
            fleet,
            [
                ("host".to_string(), "db.example".to_string()),
                ("port".into(), "6543".into()),
                ("password".into(), "\"s3c;ret\"".into()),
            ]
        );
        assert_eq!(section(&file, "none").unwrap(), None);
        assert_eq!(section(&dir.path().join("missing"), "fleet").unwrap(), None);
    }
}
