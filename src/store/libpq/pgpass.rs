//! The password file, as libpq reads it: `PGPASSFILE` (or `passfile=`),
//! else `~/.pgpass`; lines `HOST:PORT:DB:USER:PASSWORD`, `*` matching any
//! value, `\` escaping `:` and `\`, `#` starting a comment, the first
//! matching line winning. A file others may read is passed over with
//! libpq's warning, and a connection over the default socket matches
//! `localhost`. Written here rather than taken from a crate: those that
//! exist leave out the permission check and the `localhost` rule.

use super::conninfo::Settings;
use super::DEFAULT_SOCKET_DIR;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// The password of the first line matching the settings' first host,
/// port, database and user.
pub(super) fn lookup(settings: &Settings) -> Option<String> {
    let file = settings
        .get("passfile")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let meta = std::fs::metadata(&file).ok().filter(|m| m.is_file())?;
    if meta.permissions().mode() & 0o077 != 0 {
        eprintln!(
            "warning: password file \"{}\" has group or world access; permissions should be \
             u=rw (0600) or less",
            file.display()
        );
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let wanted = wanted(settings);
    text.lines().find_map(|line| password(line, &wanted))
}

/// What a line must match: host, port, database and user.
fn wanted(settings: &Settings) -> [String; 4] {
    let first = |key: &str| {
        let value = settings.get(key).unwrap_or_default();
        value.split(',').next().unwrap_or_default().to_string()
    };
    let host = match first("host") {
        h if h.is_empty() || h == DEFAULT_SOCKET_DIR => "localhost".to_string(),
        h => h,
    };
    [host, first("port"), first("dbname"), first("user")]
}

/// The line's password when its four fields match `wanted`.
fn password(line: &str, wanted: &[String; 4]) -> Option<String> {
    let line = line.trim_end_matches('\r');
    if line.starts_with('#') {
        return None;
    }
    let mut rest = line;
    for value in wanted {
        rest = matched(rest, value)?;
    }
    Some(unescape(rest))
}

/// What follows the field and its `:` when the field is `*` or `value`.
fn matched<'a>(line: &'a str, value: &str) -> Option<&'a str> {
    if let Some(rest) = line.strip_prefix("*:") {
        return Some(rest);
    }
    let mut chars = line.char_indices();
    let mut expected = value.chars();
    while let Some((at, c)) = chars.next() {
        let c = match c {
            ':' => return expected.next().is_none().then(|| &line[at + 1..]),
            '\\' => chars.next()?.1,
            c => c,
        };
        if expected.next() != Some(c) {
            return None;
        }
    }
    None
}

fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted(host: &str, port: &str, db: &str, user: &str) -> [String; 4] {
        [host, port, db, user].map(String::from)
    }

    #[test]
    fn the_first_matching_line_gives_the_password() {
        let w = wanted("db.example", "5432", "iolab", "bob");
        assert_eq!(
            password("db.example:5432:iolab:bob:s3cret", &w).as_deref(),
            Some("s3cret")
        );
        assert_eq!(password("*:*:*:bob:any", &w).as_deref(), Some("any"));
        assert_eq!(password("db.example:5433:iolab:bob:x", &w), None);
        assert_eq!(password("db.example:5432:iolab:alice:x", &w), None);
        assert_eq!(password("db.example:5432:iolab:bo:x", &w), None);
        assert_eq!(password("# db.example:5432:iolab:bob:x", &w), None);
        assert_eq!(password("db.example:5432", &w), None);
        assert_eq!(
            password("db.example:5432:iolab:bob:a\\:b\\\\c:d\r", &w).as_deref(),
            Some("a:b\\c:d")
        );
        let odd = wanted("h", "5432", "a:b", "u");
        assert_eq!(password("h:5432:a\\:b:u:pw", &odd).as_deref(), Some("pw"));
    }

    #[test]
    fn the_default_socket_is_localhost() {
        let mut s = Settings::default();
        s.set("host", DEFAULT_SOCKET_DIR.into());
        s.set("port", "5432".into());
        s.set("dbname", "iolab".into());
        s.set("user", "bob".into());
        assert_eq!(super::wanted(&s)[0], "localhost");
        s.set("host", "/tmp/pg,other".into());
        assert_eq!(super::wanted(&s)[0], "/tmp/pg");
    }

    #[test]
    fn a_file_others_can_read_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(&file, "*:*:*:*:s3cret\n").unwrap();
        let mut s = Settings::default();
        s.set("passfile", file.display().to_string());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(lookup(&s), None);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o400)).unwrap();
        assert_eq!(lookup(&s).as_deref(), Some("s3cret"));
    }
}
