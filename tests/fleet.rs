//! The fleet store against a real PostgreSQL server (`tests/common/postgres.rs`
//! starts one per test): runs read back from it exactly as from SQLite,
//! `push` stores a run once, eight pushes at once all land, and `fleet` and
//! the history filters work across hosts and kernels. Its faults are in
//! `tests/fleet_faults.rs`.

#![cfg(feature = "fleet")]

mod common;
#[path = "common/postgres.rs"]
mod postgres_server;
#[path = "common/runs.rs"]
mod runs;

use common::Sandbox;
use postgres_server::{count, local, one_line_usage_error, push, run_on, stdout, Server, PASSWORD};
use std::path::PathBuf;

#[test]
fn runs_pushed_to_postgres_read_back_as_from_sqlite() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("same");
    let sb = Sandbox::new();
    let a = run_on("a", "2024-01-01T00:00:00Z", "h1", "6.1.0-18-amd64", 1.0);
    let b = run_on("b", "2024-02-01T00:00:00Z", "h2", "6.8.0-40", 1.3);
    let db = local(&sb, "local.db", &[a, b]);
    let pushed = stdout(&mut push(&sb, &db, &["a", "latest"], &url));
    assert_eq!(pushed.matches("stored run").count(), 2, "{pushed}");
    assert!(
        !pushed.contains(PASSWORD),
        "the password is never shown: {pushed}"
    );
    let db = db.to_str().unwrap();
    for args in [
        &["show", "a", "--json", "-"][..],
        &["show", "latest", "--json", "-"],
        &["claims", "b", "--json", "-"],
        &["compare", "a", "b", "--json", "-"],
        &["report", "b", "--markdown", "-"],
        &["history"],
        &["history", "--host", "h1"],
    ] {
        let from_sqlite = sb.iolab(args).args(["--db", db]).output().unwrap();
        let from_pg = sb.iolab(args).args(["--db", &url]).output().unwrap();
        assert_eq!(from_sqlite.status, from_pg.status, "{args:?}");
        assert!(!from_pg.stdout.is_empty(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&from_sqlite.stdout),
            String::from_utf8_lossy(&from_pg.stdout),
            "{args:?}"
        );
    }
    // Histograms too: the HTML report draws them from the stored blobs.
    let html = |store: &str| stdout(sb.iolab(&["report", "b", "--html", "-", "--db", store]));
    assert_eq!(html(db), html(&url));
}

#[test]
fn a_run_measured_into_postgres_shows_in_history_and_the_fleet_table() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("measured");
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run", "pingpong", "--mech", "pipe", "--quick", "--json", "-", "--db", &url,
    ]);
    let shown =
        common::json(stdout(sb.iolab(&["show", "latest", "--json", "-", "--db", &url])).as_bytes());
    assert_eq!(shown, run);
    let host = run["environment"]["hostname"].as_str().unwrap();
    let history = stdout(sb.iolab(&[
        "history",
        "--host",
        host,
        "--scenario",
        "pingpong",
        "--db",
        &url,
    ]));
    assert!(
        history.contains(run["run_id"].as_str().unwrap()),
        "{history}"
    );
    // IOLAB_DB names the store when --db does not.
    let from_env = stdout(sb.iolab(&["history"]).env("IOLAB_DB", &url));
    assert!(
        from_env.contains(run["run_id"].as_str().unwrap()),
        "{from_env}"
    );
    let none = stdout(sb.iolab(&["history", "--scenario", "stream", "--db", &url]));
    assert_eq!(none, "no runs stored yet: `iolab run` makes one\n");
    let table = stdout(sb.iolab(&["fleet", "pingpong", "--metric", "rtt_ns", "--db", &url]));
    let cases = common::results(&run).len();
    let rows: Vec<&str> = table.lines().filter(|l| l.contains("pipe/")).collect();
    assert_eq!(rows.len(), cases, "{table}");
    assert!(
        rows.iter()
            .all(|r| r.contains(host) && r.trim_end().ends_with(" 1")),
        "{table}"
    );
    assert_eq!(count(&pg, "measured", "runs"), 1);
}

#[test]
fn pushing_twice_stores_once_and_another_run_under_the_id_is_refused() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("twice");
    let sb = Sandbox::new();
    let one = run_on("r1", "2024-01-01T00:00:00Z", "h1", "6.1.0", 1.0);
    let db = local(&sb, "local.db", &[one]);
    stdout(&mut push(&sb, &db, &["r1"], &url));
    let again = stdout(&mut push(&sb, &db, &["r1"], &url));
    assert!(
        again.contains("run r1 is already in") && again.contains("nothing pushed"),
        "{again}"
    );
    assert_eq!(count(&pg, "twice", "runs"), 1);
    assert_eq!(count(&pg, "twice", "results"), 6);
    // Another host's run under the same id.
    let other = local(
        &sb,
        "other.db",
        &[run_on("r1", "2024-01-01T00:00:00Z", "h2", "6.1.0", 2.0)],
    );
    let err = String::from_utf8(
        push(&sb, &other, &["r1"], &url)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone(),
    )
    .unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("another run with the id r1 (from host 'h1')"),
        "{err}"
    );
    assert_eq!(count(&pg, "twice", "results"), 6);
}

#[test]
fn eight_concurrent_pushes_all_land() {
    let Some(pg) = Server::start() else { return };
    // A new database: the eight also race to create the schema.
    let url = pg.database("eight");
    let sb = Sandbox::new();
    let stores: Vec<PathBuf> = (0..8)
        .map(|i| {
            let run = run_on(
                &format!("run-{i}"),
                "2024-01-01T00:00:00Z",
                &format!("host{i}"),
                "6.8.0",
                1.0,
            );
            local(&sb, &format!("local{i}.db"), &[run])
        })
        .collect();
    let children: Vec<_> = stores
        .iter()
        .map(|db| {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"));
            cmd.args(["push", "latest", "--to", &url, "--db"]).arg(db);
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(count(&pg, "eight", "runs"), 8);
    assert_eq!(count(&pg, "eight", "results"), 8 * 6);
    let seqs: i64 = pg
        .client("eight")
        .query_one("SELECT COUNT(DISTINCT seq) FROM runs", &[])
        .unwrap()
        .get(0);
    assert_eq!(seqs, 8);
    let table = stdout(sb.iolab(&[
        "fleet",
        "pingpong",
        "--metric",
        "rtt_ns",
        "--case",
        "pipe/cross-cpu/processes/64B",
        "--db",
        &url,
    ]));
    assert_eq!(
        table.lines().filter(|l| l.contains(" 6.8.0 ")).count(),
        8,
        "one row per host: {table}"
    );
}

#[test]
fn history_filters_and_the_fleet_table_agree_on_both_backends() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("filters");
    let sb = Sandbox::new();
    let held = [
        run_on("a1", "2024-01-01T00:00:00Z", "alpha", "6.1.0-18-amd64", 1.0),
        run_on("a2", "2024-01-02T00:00:00Z", "alpha", "6.1.0-18-amd64", 1.2),
        run_on("b1", "2024-01-03T00:00:00Z", "beta", "6.10.2", 2.0),
    ];
    let db = local(&sb, "local.db", &held);
    stdout(&mut push(&sb, &db, &["a1", "a2", "b1"], &url));
    let db = db.to_str().unwrap();
    let ids = |args: &[&str], store: &str| -> Vec<String> {
        let text = stdout(sb.iolab(&[&["history", "--db", store][..], args].concat()));
        text.lines()
            .skip(1)
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    for store in [db, url.as_str()] {
        assert_eq!(ids(&["--host", "alpha"], store), ["a2", "a1"]);
        assert_eq!(
            ids(&["--kernel", "6.1"], store),
            ["a2", "a1"],
            "6.1 is not 6.10"
        );
        assert_eq!(
            ids(&["--kernel", "6.10.2", "--scenario", "pingpong"], store),
            ["b1"]
        );
        assert_eq!(ids(&["--host", "alpha", "--limit", "1"], store), ["a2"]);
    }
    let fleet = |store: &str| {
        stdout(sb.iolab(&[
            "fleet",
            "pingpong",
            "--metric",
            "rtt_ns",
            "--case",
            "pipe/cross-cpu/processes/64B",
            "--db",
            store,
        ]))
    };
    let table = fleet(&url);
    assert_eq!(table, fleet(db));
    let alpha = table.lines().find(|l| l.contains("alpha")).unwrap();
    // The median of 5.0 and 6.0 us, the spread over both runs' repetitions.
    assert!(
        alpha.contains("5.50 us") && alpha.contains("4.95-6.06") && alpha.trim_end().ends_with('2'),
        "{table}"
    );
    let beta = table.lines().find(|l| l.contains("beta")).unwrap();
    assert!(
        beta.contains("6.10.2") && beta.contains("10.0 us") && beta.trim_end().ends_with('1'),
        "{table}"
    );
    let err = one_line_usage_error(
        &sb,
        &["fleet", "pingpong", "--metric", "nope", "--db", &url],
    );
    assert!(
        err.contains("bad --metric 'nope': pingpong measures") && err.contains("rtt_ns"),
        "{err}"
    );
    let err = one_line_usage_error(
        &sb,
        &[
            "fleet", "pingpong", "--metric", "rtt_ns", "--case", "x", "--db", &url,
        ],
    );
    assert!(
        err.contains("no pingpong case 'x' in the store: the store has pipe/"),
        "{err}"
    );
}
