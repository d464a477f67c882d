//! `iolab run --push` against a real PostgreSQL fleet store that goes
//! down (`tests/common/postgres.rs` starts one per test and stops it here
//! before the run): the run is stored locally and left pending, and once
//! the server is back the next `run --push`, or `iolab push --pending`,
//! sends what is missing, each run once.

#![cfg(feature = "fleet")]

mod common;
#[path = "common/postgres.rs"]
mod postgres_server;
#[path = "common/runs.rs"]
mod runs;

use common::{pipe_pingpong, Sandbox};
use postgres_server::{count, stdout, Server, PASSWORD};

/// A quick real run pushed to `url`: its JSON and what it said on stderr.
fn run_pushing(sb: &Sandbox, url: &str) -> (serde_json::Value, String) {
    let args = pipe_pingpong(&["--quick", "--json", "-", "--push", url]);
    let out = sb.iolab(&args).output().unwrap();
    let run = common::run_output(&out);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !err.contains(PASSWORD),
        "the password is never shown: {err}"
    );
    (run, err)
}

fn id(run: &serde_json::Value) -> &str {
    run["run_id"].as_str().unwrap()
}

#[test]
fn a_run_pushed_while_the_fleet_store_is_down_is_sent_once_when_it_is_back() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("nightly");
    let sb = Sandbox::new();
    pg.stop();
    let (run, err) = run_pushing(&sb, &url);
    // Stored here, and said to be pending for the fleet store.
    let local = stdout(sb.iolab(&["history"]));
    assert!(local.contains(id(&run)), "{local}");
    assert!(err.contains(&format!("stored run {}", id(&run))), "{err}");
    let warning = err.lines().find(|l| l.starts_with("warning:")).expect(&err);
    assert!(warning.contains("cannot reach the server"), "{warning}");
    assert!(
        warning.contains(&format!("run {} stays stored", id(&run))) && warning.contains("pending"),
        "{warning}"
    );
    pg.start_server();
    // Sent once by `push --pending`, then there is nothing left to send.
    let pushed = stdout(sb.iolab(&["push", "--pending", "--to", &url]));
    assert_eq!(pushed.matches("stored run").count(), 1, "{pushed}");
    assert!(pushed.contains(id(&run)), "{pushed}");
    assert_eq!(count(&pg, "nightly", "runs"), 1);
    let held = results_of(&run);
    assert_eq!(count(&pg, "nightly", "results"), held);
    let again = stdout(sb.iolab(&["push", "--pending", "--to", &url]));
    assert!(!again.contains("stored run"), "{again}");
    assert!(again.contains("no run pending"), "{again}");
    assert_eq!(count(&pg, "nightly", "runs"), 1);
    // The fleet store holds the run as measured.
    let shown = stdout(sb.iolab(&["show", id(&run), "--json", "-", "--db", &url]));
    assert_eq!(common::json(shown.as_bytes()), run);
}

#[test]
fn the_next_run_push_sends_the_runs_left_pending_too() {
    let Some(pg) = Server::start() else { return };
    let url = pg.database("catchup");
    let sb = Sandbox::new();
    pg.stop();
    let (first, err) = run_pushing(&sb, &url);
    assert!(err.contains("pending"), "{err}");
    pg.start_server();
    let (second, err) = run_pushing(&sb, &url);
    for run in [&first, &second] {
        assert_eq!(
            err.matches(&format!("pushed run {}", id(run))).count(),
            1,
            "{err}"
        );
    }
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(count(&pg, "catchup", "runs"), 2);
    let again = stdout(sb.iolab(&["push", "--pending", "--to", &url]));
    assert!(again.contains("no run pending"), "{again}");
    // Pushing a run the store holds by name stores nothing either.
    let by_name = stdout(sb.iolab(&["push", id(&first), "--to", &url]));
    assert!(by_name.contains("nothing pushed"), "{by_name}");
    assert_eq!(count(&pg, "catchup", "runs"), 2);
}

fn results_of(run: &serde_json::Value) -> i64 {
    common::results(run).len() as i64
}
