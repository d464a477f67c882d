//! A fleet store's password, the libpq way, against a real PostgreSQL
//! with a password login (`tests/common/postgres.rs`): `--db`, `--push`
//! and `push --to` work with the password in the URL (its user part or
//! `?password=`), in PGPASSWORD, in a password file (PGPASSFILE) and in a
//! service file (PGSERVICEFILE); and whichever way it came, no output
//! stream, no SQLite file of the local store (its pending queue included),
//! no JSON and no command line of the systemd unit's command holds it.

#![cfg(feature = "fleet")]

mod common;
#[path = "common/postgres.rs"]
mod postgres_server;
#[path = "common/runs.rs"]
mod runs;

use common::{pipe_pingpong, Sandbox};
use postgres_server::{count, local, run_on, Server, PASSWORD};
use std::os::unix::fs::PermissionsExt;
use std::process::Output;

/// The ways a password reaches iolab.
#[derive(Debug, Clone, Copy)]
enum Form {
    UserPart,
    Query,
    PgPassword,
    PassFile,
    Service,
}

const FORMS: [Form; 5] = [
    Form::UserPart,
    Form::Query,
    Form::PgPassword,
    Form::PassFile,
    Form::Service,
];

/// A sandbox whose `iolab` sees only the libpq settings a form gives
/// (its own HOME, none of the caller's PG variables).
struct Fleet<'a> {
    pg: &'a Server,
    db: &'a str,
    sb: Sandbox,
    /// Everything iolab printed, to grep for the password at the end.
    said: String,
}

impl<'a> Fleet<'a> {
    fn new(pg: &'a Server, db: &'a str) -> Fleet<'a> {
        Fleet {
            pg,
            db,
            sb: Sandbox::new(),
            said: String::new(),
        }
    }

    /// The store's URL as the form writes it, and the environment it sets.
    fn target(&self, form: Form) -> (String, Vec<(&'static str, String)>) {
        let (port, db) = (self.pg.port, self.db);
        let bare = format!("postgresql://iolab@127.0.0.1:{port}/{db}");
        match form {
            Form::UserPart => (self.pg.url_as("iolab", PASSWORD, db), vec![]),
            Form::Query => (format!("{bare}?password={PASSWORD}"), vec![]),
            Form::PgPassword => (bare, vec![("PGPASSWORD", PASSWORD.to_string())]),
            Form::PassFile => {
                let line = format!("127.0.0.1:{port}:{db}:iolab:{PASSWORD}\n");
                let file = self.secret_file("pgpass", &line);
                (bare, vec![("PGPASSFILE", file)])
            }
            Form::Service => {
                let section = format!(
                    "[fleet]\nhost=127.0.0.1\nport={port}\ndbname={db}\nuser=iolab\n\
                     password={PASSWORD}\n"
                );
                let file = self.secret_file("pg_service.conf", &section);
                (
                    "postgresql://?service=fleet".into(),
                    vec![("PGSERVICEFILE", file)],
                )
            }
        }
    }

    /// A file only its owner reads, as libpq wants a password file.
    fn secret_file(&self, name: &str, text: &str) -> String {
        let file = self.sb.dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        file.display().to_string()
    }

    /// `iolab ARGS` with the form's environment; its output, kept.
    fn iolab(&mut self, env: &[(&str, String)], args: &[&str]) -> Output {
        let mut cmd = self.sb.command(args);
        cmd.env("HOME", self.sb.dir.path());
        for var in [
            "PGPASSWORD",
            "PGPASSFILE",
            "PGSERVICE",
            "PGSERVICEFILE",
            "IOLAB_PUSH",
        ] {
            cmd.env_remove(var);
        }
        cmd.envs(env.iter().map(|(k, v)| (k, v)));
        let out = cmd.output().unwrap();
        self.said.push_str(&String::from_utf8_lossy(&out.stdout));
        self.said.push_str(&String::from_utf8_lossy(&out.stderr));
        out
    }

    /// Like `iolab`, and it must succeed; its stdout.
    fn ok(&mut self, env: &[(&str, String)], args: &[&str]) -> String {
        let out = self.iolab(env, args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Every byte of the local store's files (the WAL included).
    fn store_bytes(&self) -> Vec<u8> {
        let dir = self.sb.db().parent().unwrap().to_path_buf();
        let mut bytes = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            bytes.extend(std::fs::read(entry.path()).unwrap());
        }
        bytes
    }

    /// Nothing iolab printed or stored holds the password.
    fn assert_no_password(&self) {
        assert!(!self.said.contains(PASSWORD), "printed:\n{}", self.said);
        let stored = self.store_bytes();
        let found = stored
            .windows(PASSWORD.len())
            .any(|w| w == PASSWORD.as_bytes());
        assert!(!found, "the local store holds the password");
    }
}

#[test]
fn every_libpq_way_of_giving_the_password_reaches_the_store_and_none_shows() {
    let Some(pg) = Server::start() else { return };
    pg.database("secrets");
    let mut fleet = Fleet::new(&pg, "secrets");
    let held: Vec<_> = FORMS
        .iter()
        .enumerate()
        .map(|(i, _)| {
            run_on(
                &format!("r{i}"),
                &format!("2024-01-0{}T00:00:00Z", i + 1),
                "h",
                "6.1.0",
                1.0,
            )
        })
        .collect();
    let local_db = local(&fleet.sb, "local.db", &held);
    let local_db = local_db.to_str().unwrap().to_string();
    for (i, form) in FORMS.into_iter().enumerate() {
        let (target, env) = fleet.target(form);
        // push --to, history --db and a real run's --push, each this way.
        let id = format!("r{i}");
        let pushed = fleet.ok(&env, &["push", &id, "--to", &target, "--db", &local_db]);
        assert!(
            pushed.contains(&format!("stored run {id}")),
            "{form:?}: {pushed}"
        );
        let history = fleet.ok(&env, &["history", "--db", &target]);
        assert!(history.contains(&id), "{form:?}: {history}");
        let out = fleet.iolab(
            &env,
            &pipe_pingpong(&["--quick", "--json", "-", "--push", &target]),
        );
        let run = common::run_output(&out);
        let err = String::from_utf8_lossy(&out.stderr);
        let run_id = run["run_id"].as_str().unwrap();
        assert!(
            err.contains(&format!("pushed run {run_id}")),
            "{form:?}: {err}"
        );
    }
    assert_eq!(count(&pg, "secrets", "runs"), 2 * FORMS.len() as i64);
    // The server down: each form's run stays pending, its URL shown.
    pg.stop();
    for form in [Form::UserPart, Form::Query] {
        let (target, env) = fleet.target(form);
        let out = fleet.iolab(
            &env,
            &pipe_pingpong(&["--quick", "--json", "-", "--push", &target]),
        );
        common::run_output(&out);
        assert!(String::from_utf8_lossy(&out.stderr).contains("pending"));
    }
    let pending = rusqlite::Connection::open(fleet.sb.db())
        .unwrap()
        .query_row(
            "SELECT COUNT(*), MIN(target), MAX(target) FROM pending_pushes",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )
        .unwrap();
    let shown = format!("postgresql://iolab@127.0.0.1:{}/secrets", pg.port);
    assert_eq!(
        pending,
        (2, shown.clone(), shown),
        "one store, however written"
    );
    fleet.assert_no_password();
}

#[test]
fn a_wrong_or_missing_password_is_one_line_naming_what_to_set_and_never_shown() {
    let Some(pg) = Server::start() else { return };
    pg.database("refused");
    let mut fleet = Fleet::new(&pg, "refused");
    let bare = format!("postgresql://iolab@127.0.0.1:{}/refused", pg.port);
    let wrong = format!("{bare}?password=WRONGpw");
    let out = fleet.iolab(&[], &["history", "--db", &wrong]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("refused the connection") && !err.contains("WRONGpw"),
        "{err}"
    );
    assert!(
        err.contains(&bare),
        "the store, shown without its password: {err}"
    );
    let out = fleet.iolab(&[], &["history", "--db", &bare]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("asks for a password and none was given"),
        "{err}"
    );
    assert!(
        err.contains(&format!("127.0.0.1:{}:refused:iolab:PASSWORD", pg.port)),
        "{err}"
    );
    // A password file others may read is passed over, as libpq does.
    let file = fleet.secret_file("pgpass", &format!("*:*:*:*:{PASSWORD}\n"));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = fleet.iolab(&[("PGPASSFILE", file)], &["history", "--db", &bare]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has group or world access"), "{err}");
    assert!(err.contains("none was given"), "{err}");
    let out = fleet.iolab(
        &[("PGSERVICE", "nowhere".into())],
        &["history", "--db", &bare],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no service \"nowhere\" is defined"), "{err}");
    fleet.assert_no_password();
}

/// A process's command line, as any user of the host reads it in /proc
/// (empty for a moment right after the fork, until the exec).
fn cmdline(pid: u32) -> String {
    for _ in 0..1000 {
        let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if !raw.is_empty() {
            return String::from_utf8_lossy(&raw).replace('\0', " ");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("process {pid} has no command line")
}

const UNIT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/contrib/systemd/iolab-fleet.service"
);

/// The unit's ExecStart with its environment file and credential as
/// systemd gives them: IOLAB_PUSH without a password, PGPASSFILE the
/// credential's copy of the password file. Its command line, read while it
/// runs, holds no password, and the run reaches the fleet store.
#[test]
fn the_units_command_line_holds_no_password_and_its_run_is_pushed() {
    let Some(pg) = Server::start() else { return };
    pg.database("nightly");
    let mut fleet = Fleet::new(&pg, "nightly");
    let (target, env) = fleet.target(Form::PassFile);
    let unit = std::fs::read_to_string(UNIT).unwrap();
    let exec = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .unwrap();
    let prom = fleet.sb.dir.path().join("iolab.prom");
    let mut words: Vec<String> = exec
        .split_whitespace()
        .skip(1)
        .map(|w| match w.ends_with(".prom") {
            true => prom.display().to_string(),
            false => w.to_string(),
        })
        .collect();
    // One small case instead of the quick suite.
    words.extend(
        pipe_pingpong(&["--quick"])[1..]
            .iter()
            .map(|w| w.to_string()),
    );
    let args: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut cmd = fleet.sb.command(&args);
    let credential = env[0].1.clone();
    cmd.env("HOME", fleet.sb.dir.path())
        .env("IOLAB_PUSH", &target)
        .env("PGPASSFILE", &credential)
        .env("IOLAB_DB", fleet.sb.db())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    let line = cmdline(child.id());
    let out = child.wait_with_output().unwrap();
    fleet.said.push_str(&line);
    fleet.said.push_str(&String::from_utf8_lossy(&out.stdout));
    fleet.said.push_str(&String::from_utf8_lossy(&out.stderr));
    assert!(line.contains("run --quiet --label nightly"), "{line}");
    assert!(
        !line.contains("postgresql"),
        "no store on the command line: {line}"
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(count(&pg, "nightly", "runs"), 1);
    assert!(std::fs::read_to_string(&prom)
        .unwrap()
        .contains("iolab_pingpong_rtt_seconds"));
    fleet.assert_no_password();
}
