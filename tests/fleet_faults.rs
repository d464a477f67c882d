//! The fleet store's faults against a real PostgreSQL server: a connection
//! killed mid-push leaves no half run (exit 1, a server fault), and an
//! unreachable server, a wrong password, another program's database or a
//! newer schema is one line, exit 2, with nothing written; the read
//! commands create nothing, not even in an empty database, and migrate no
//! older store.

#![cfg(feature = "fleet")]

mod common;
#[path = "common/postgres.rs"]
mod postgres_server;
#[path = "common/runs.rs"]
mod runs;

use common::Sandbox;
use iolab::store::Store;
use postgres_server::{
    count, free_port, local, one_line_usage_error, push, run_on, stdout, Server, PASSWORD,
};

#[test]
fn a_connection_killed_mid_push_leaves_no_half_run() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("killed");
    let sb = Sandbox::new();
    let db = local(
        &sb,
        "local.db",
        &[run_on("r1", "2024-01-01T00:00:00Z", "h1", "6.1.0", 1.0)],
    );
    set_up(&url);
    // Holding the results table makes the push stop after its runs row.
    let mut holder = pg.client("killed");
    holder
        .batch_execute("BEGIN; LOCK TABLE results IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["push", "r1", "--to", &url, "--db"])
        .arg(&db)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut watcher = pg.client("killed");
    let waiting = "SELECT pid FROM pg_stat_activity WHERE application_name = 'iolab'
                   AND wait_event_type = 'Lock'";
    let pid: i32 = (0..600)
        .find_map(|_| {
            let rows = watcher.query(waiting, &[]).unwrap();
            let pid = rows.first().map(|r| r.get(0));
            if pid.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            pid
        })
        .expect("the push never waited on the results table");
    watcher
        .execute("SELECT pg_terminate_backend($1)", &[&pid])
        .unwrap();
    let out = child.wait_with_output().unwrap();
    holder.batch_execute("COMMIT").unwrap();
    assert_eq!(out.status.code(), Some(1), "a server fault exits 1");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("storing run r1"), "{err}");
    assert_eq!(count(&pg, "killed", "runs"), 0);
    assert_eq!(count(&pg, "killed", "results"), 0);
    // Pushed again, the run lands whole.
    stdout(&mut push(&sb, &db, &["r1"], &url));
    assert_eq!(count(&pg, "killed", "results"), 6);
}

#[test]
fn bad_fleet_stores_are_one_line_exit_2_and_nothing_written() {
    let Some(pg) = Server::start() else { return };
    let sb = Sandbox::new();
    let db = local(
        &sb,
        "local.db",
        &[run_on("r1", "2024-01-01T00:00:00Z", "h1", "6.1.0", 1.0)],
    );
    let db = db.to_str().unwrap();
    let closed = format!(
        "postgresql://iolab:{PASSWORD}@127.0.0.1:{}/postgres",
        free_port()
    );
    let err = one_line_usage_error(&sb, &["push", "r1", "--db", db, "--to", &closed]);
    assert!(
        err.contains("cannot reach the server") && err.contains("refused"),
        "{err}"
    );
    let wrong = pg.url_as("iolab", "wrong", "postgres");
    let err = one_line_usage_error(&sb, &["history", "--db", &wrong]);
    assert!(err.contains("password authentication failed"), "{err}");
    // Another program's database: `run` stops before measuring anything.
    let other = pg.database("other");
    pg.client("other")
        .batch_execute("CREATE TABLE users (id INT)")
        .unwrap();
    let err = one_line_usage_error(&sb, &["run", "pingpong", "--quick", "--db", &other]);
    assert!(
        err.contains("another program's tables (users)") && err.contains("nothing was measured"),
        "{err}"
    );
    one_line_usage_error(&sb, &["push", "r1", "--db", db, "--to", &other]);
    let tables: i64 = pg
        .client("other")
        .query_one(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 1, "only the other program's table");
    // A store of a newer iolab.
    let newer = pg.database("newer");
    set_up(&newer);
    pg.client("newer")
        .batch_execute("UPDATE iolab_schema SET version = 99")
        .unwrap();
    for args in [
        &["history", "--db", &newer][..],
        &["push", "r1", "--db", db, "--to", &newer],
    ] {
        let err = one_line_usage_error(&sb, args);
        assert!(
            err.contains("schema version 99 is newer than this iolab understands"),
            "{err}"
        );
    }
    assert_eq!(count(&pg, "newer", "runs"), 0);
    sb.assert_tmp_empty();
}

/// Makes an empty database an iolab store, as `run` or `push` would.
fn set_up(url: &str) {
    Store::open(std::path::Path::new(url)).unwrap();
}

/// Every table in database `db` outside the server's own schemas.
fn tables(pg: &Server, db: &str) -> Vec<String> {
    let sql = "SELECT table_schema || '.' || table_name FROM information_schema.tables
               WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1";
    let rows = pg.client(db).query(sql, &[]).unwrap();
    rows.iter().map(|row| row.get(0)).collect()
}

/// The read commands, each against `url`.
fn reads(url: &str) -> Vec<Vec<&str>> {
    vec![
        vec!["history", "--db", url],
        vec!["show", "latest", "--db", url],
        vec!["claims", "latest", "--db", url],
        vec!["compare", "latest", "latest~1", "--db", url],
        vec!["report", "latest", "--markdown", "-", "--db", url],
        vec!["fleet", "pingpong", "--metric", "rtt_ns", "--db", url],
    ]
}

#[test]
fn another_programs_database_is_refused_by_reads_and_writes_untouched() {
    let Some(pg) = Server::start() else { return };
    let sb = Sandbox::new();
    let local_db = local(
        &sb,
        "local.db",
        &[run_on("r1", "2024-01-01T00:00:00Z", "h1", "6.1.0", 1.0)],
    );
    let local_db = local_db.to_str().unwrap();
    let accounts = pg.database("accounts_db");
    pg.client("accounts_db")
        .batch_execute("CREATE TABLE accounts (id INT)")
        .unwrap();
    // The same database with its table in a schema of its own.
    let app = pg.database("app_db");
    pg.client("app_db")
        .batch_execute("CREATE SCHEMA app; CREATE TABLE app.accounts (id INT)")
        .unwrap();
    for (db, url, held) in [
        ("accounts_db", &accounts, "accounts"),
        ("app_db", &app, "app.accounts"),
    ] {
        let mut commands = reads(url);
        commands.push(vec![
            "run",
            "limits",
            "-p",
            "probe=clock",
            "--repeat",
            "2",
            "--db",
            url,
        ]);
        commands.push(vec!["push", "r1", "--db", local_db, "--to", url]);
        for args in commands {
            let err = one_line_usage_error(&sb, &args);
            let want = format!("another program's tables ({held}), not an iolab store");
            assert!(err.contains(&want), "{args:?}: {err}");
            assert!(err.contains(&format!("/{db}")), "names the database: {err}");
        }
        let schema = if db == "app_db" { "app" } else { "public" };
        assert_eq!(
            tables(&pg, db),
            [format!("{schema}.accounts")],
            "only the other program's table"
        );
    }
    sb.assert_tmp_empty();
}

#[test]
fn reading_an_empty_database_creates_nothing_and_writing_sets_it_up() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("empty");
    let sb = Sandbox::new();
    for args in reads(&url) {
        let err = one_line_usage_error(&sb, &args);
        assert!(
            err.contains("/empty: it was never set up (it has no tables)"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(tables(&pg, "empty"), Vec::<String>::new());
    let db = local(
        &sb,
        "local.db",
        &[run_on("r1", "2024-01-01T00:00:00Z", "h1", "6.1.0", 1.0)],
    );
    stdout(&mut push(&sb, &db, &["r1"], &url));
    assert_eq!(
        tables(&pg, "empty"),
        [
            "public.iolab_schema",
            "public.pending_pushes",
            "public.results",
            "public.runs"
        ]
    );
    let history = stdout(sb.iolab(&["history", "--db", &url]));
    assert!(history.contains("r1"), "{history}");
}

#[test]
fn reading_an_older_store_leaves_it_unmigrated() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("older");
    let sb = Sandbox::new();
    let db = local(
        &sb,
        "local.db",
        &[
            run_on("r1", "2024-01-01T00:00:00Z", "h1", "6.1.0", 1.0),
            run_on("r2", "2024-02-01T00:00:00Z", "h1", "6.1.0", 1.0),
        ],
    );
    stdout(&mut push(&sb, &db, &["r1"], &url));
    // As an iolab of schema version 2 left it.
    pg.client("older")
        .batch_execute(
            "ALTER TABLE results DROP COLUMN grade, DROP COLUMN precision_reached;
             DROP TABLE pending_pushes;
             UPDATE iolab_schema SET version = 2",
        )
        .unwrap();
    let version = || -> i64 {
        let sql = "SELECT version FROM iolab_schema";
        pg.client("older").query_one(sql, &[]).unwrap().get(0)
    };
    let history = stdout(sb.iolab(&["history", "--db", &url]));
    assert!(history.contains("r1"), "{history}");
    let shown = stdout(sb.iolab(&["show", "r1", "--json", "-", "--db", &url]));
    assert_eq!(common::json(shown.as_bytes())["run_id"], "r1");
    assert_eq!(version(), 2, "a read migrates nothing");
    stdout(&mut push(&sb, &db, &["r2"], &url));
    assert_eq!(version(), 5, "a write migrates");
    assert_eq!(count(&pg, "older", "runs"), 2);
}
