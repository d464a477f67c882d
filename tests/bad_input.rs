//! Bad input is refused before anything runs: exit status 2, one line on
//! stderr naming the bad value and what is allowed, nothing written.

mod common;
use common::{results, Sandbox};

fn refused(args: &[&str], expected: &str) {
    let sb = Sandbox::new();
    let out = sb.iolab(args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains(expected),
        "expected {expected:?} in {stderr:?}"
    );
    assert!(out.stdout.is_empty());
    assert!(!sb.db().exists(), "a refused run created the store");
    sb.assert_tmp_empty();
}

#[test]
fn unknown_scenario() {
    refused(
        &["run", "pingpang"],
        "unknown scenario or suite 'pingpang': expected one of limits, pingpong, stream",
    );
}

#[test]
fn unknown_mechanism() {
    refused(
        &["run", "pingpong", "--mech", "pipe,carrier-pigeon"],
        "unknown mechanism 'carrier-pigeon': expected all or one of pipe, fifo, eventfd",
    );
}

#[test]
fn unknown_placement() {
    refused(
        &["run", "--placement", "same-core"],
        "unknown placement 'same-core': expected one of same-cpu, cross-cpu, unpinned",
    );
}

#[test]
fn unknown_parameter_key() {
    refused(
        &["run", "pingpong", "--param", "colour=blue"],
        "unknown parameter 'colour' for pingpong: expected one of count, pairs, rate, size",
    );
}

#[test]
fn parameter_without_value() {
    refused(
        &["run", "pingpong", "--param", "size"],
        "invalid --param 'size': expected KEY=VALUE",
    );
}

#[test]
fn zero_repetitions() {
    refused(
        &["run", "--repeat", "0"],
        "invalid --repeat '0': expected a whole number of repetitions from 1 to 1000000",
    );
}

/// Counts past their bound: u64::MAX of warm-up once wrapped round to a
/// stored `ok` result of 0 ns, and of repetitions ran until killed.
#[test]
fn counts_past_their_bound() {
    refused(
        &["run", "pingpong", "--warmup", "18446744073709551615"],
        "invalid --warmup '18446744073709551615': expected a whole number of operations from 0 to 1000000000",
    );
    refused(
        &["run", "pingpong", "--repeat", "18446744073709551615"],
        "invalid --repeat '18446744073709551615': expected a whole number of repetitions from 1 to 1000000",
    );
}

#[test]
fn negative_size() {
    refused(
        &["run", "pingpong", "--param", "size=-1"],
        "invalid value '-1' for size: expected a positive byte count such as 64, 4k or 9M",
    );
}

#[test]
fn size_above_what_unix_dgram_carries() {
    refused(
        &[
            "run",
            "pingpong",
            "--mech",
            "unix-dgram",
            "--param",
            "size=64M",
        ],
        "size 67108864 is above what unix-dgram carries: at most",
    );
}

#[test]
fn no_mechanism_asked_for_carries_the_size() {
    refused(
        &[
            "run",
            "pingpong",
            "--mech",
            "unix-dgram,udp",
            "--param",
            "size=1M",
        ],
        "size 1048576 is above what each mechanism asked for carries: unix-dgram at most ",
    );
}

/// 64 TiB: more than any machine these tests run on can allocate. The
/// threads mode once aborted on it, leaving a temp dir and an empty store.
#[test]
fn size_memory_cannot_hold_in_either_mode() {
    for mode in ["threads", "processes"] {
        refused(
            &[
                "run",
                "pingpong",
                "--mode",
                mode,
                "--mech",
                "pipe",
                "--param",
                "size=65536G",
            ],
            "size 70368744177664 is more than this machine can allocate: a case holds 5 buffers",
        );
    }
    refused(
        &["run", "stream", "--param", "size=64,65536G"],
        "(half of MemAvailable, ",
    );
}

#[test]
fn copier_buffer_memory_cannot_hold() {
    refused(
        &["run", "devnull", "--param", "buf=65536G"],
        "buf 70368744177664 is more than this machine can allocate: a case holds 1 buffer",
    );
}

#[test]
fn mechanism_parameter_names_its_mechanism() {
    refused(
        &["run", "pingpong", "--mech", "pipe", "--param", "wake=spin"],
        "wake is a parameter of the shm mechanism; pipe does not take it",
    );
    refused(
        &["run", "limits", "--param", "wake=spin"],
        "wake is a parameter of the shm mechanism; limits uses no mechanism",
    );
}

/// What `run ARGS` (one small pingpong or limits run) stored as results.
fn ran(sb: &Sandbox, args: &[&str]) -> Vec<serde_json::Value> {
    let quick = ["--repeat", "1", "--quiet", "--json", "-"];
    let run = sb.run_json(&[&["run"], args, &quick[..]].concat());
    results(&run).clone()
}

#[test]
fn a_size_some_mechanisms_cannot_carry_leaves_the_rest_to_run() {
    let sb = Sandbox::new();
    let got = ran(
        &sb,
        &[
            "pingpong",
            "--mech",
            "pipe,unix-dgram,udp",
            "--placement",
            "same-cpu",
            "--param",
            "size=1M",
            "--param",
            "count=20",
            "--warmup",
            "0",
        ],
    );
    let status: Vec<(&str, &str)> = got
        .iter()
        .map(|r| (r["case"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        status,
        [
            ("pipe/same-cpu/processes/1048576B", "ok"),
            ("unix-dgram/same-cpu/processes/1048576B", "unsupported"),
            ("udp/same-cpu/processes/1048576B", "unsupported"),
        ]
    );
    let dgram = got[1]["reason"].as_str().unwrap();
    assert!(
        dgram.starts_with("size 1048576 is above what unix-dgram carries: at most "),
        "{dgram}"
    );
    assert_eq!(
        got[2]["reason"],
        "size 1048576 is above what udp carries: at most 65507 bytes per message"
    );
    assert_eq!(got[0]["verified"]["bytes"], 2 * 20 * 1048576u64);
}

#[test]
fn a_target_named_twice_runs_once() {
    let sb = Sandbox::new();
    let args = [
        "--mech",
        "pipe",
        "--placement",
        "same-cpu",
        "-p",
        "count=20",
    ];
    let got = ran(&sb, &[&["pingpong", "pingpong"], &args[..]].concat());
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["case"], "pipe/same-cpu/processes/1B");
}

#[test]
fn mech_for_a_scenario_without_mechanisms_is_noted_and_ignored() {
    let sb = Sandbox::new();
    let args = ["run", "limits", "--mech", "pipe", "-p", "probe=clock"];
    let out = sb
        .iolab(&[&args[..], &["-p", "count=1000", "--repeat", "1", "--quiet"]].concat())
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "note: --mech is ignored for limits, which uses no mechanism\n"
    );
    assert!(sb.db().exists(), "the run was stored");
    sb.assert_tmp_empty();
}

#[test]
fn unknown_mode_is_a_clap_error() {
    let sb = Sandbox::new();
    sb.iolab(&["run", "--mode", "fibers"]).assert().code(2);
    assert!(!sb.db().exists());
}

#[test]
fn show_without_a_store() {
    refused(&["show", "latest"], "no result store at");
}

#[test]
fn unknown_scenario_in_list() {
    refused(
        &["list", "--scenario", "nope"],
        "unknown scenario 'nope': expected one of",
    );
}

/// A label with terminal escape sequences, and a long one: `history`
/// prints neither byte for byte, and keeps each cell within its width;
/// `compare` (which names each run with its label), `show` and `claims`
/// print no escape either.
#[test]
fn history_prints_stored_labels_without_escapes_and_within_a_width() {
    let sb = Sandbox::new();
    let hostile = "lab\u{1b}]0;owned\u{7}\u{1b}[2Jel";
    let long = "x".repeat(100_000);
    for label in [hostile, long.as_str()] {
        let args = ["run", "limits", "-p", "count=1000", "--label", label, "-q"];
        sb.iolab(&args).assert().success();
    }
    let out = sb.iolab(&["history"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(
        text.contains("lab\\u{1b}]0;owned\\u{7}\\u{1b}[2Jel"),
        "{text}"
    );
    assert!(text.len() < 2_000, "{} bytes for two runs", text.len());
    for command in [
        &["compare", "latest~1", "latest"][..],
        &["show", "latest~1"],
        &["claims", "latest~1"],
    ] {
        let text = sb.stdout(command);
        let raw = text.contains('\u{1b}') || text.contains('\u{7}');
        assert!(!raw, "{command:?} printed an escape: {text:?}");
    }
}

/// A repeated --param key once kept the last value silently.
#[test]
fn a_parameter_given_twice() {
    refused(
        &["run", "pingpong", "-p", "size=64", "-p", "size=128"],
        "--param size given twice (64, then 128): give one list, e.g. -p size=64,128",
    );
}

/// Output paths once were checked only after measuring and storing: a
/// directory, a missing directory, and two outputs on stdout are refused
/// before anything runs.
#[test]
fn outputs_that_cannot_be_written() {
    let sb = Sandbox::new();
    let dir = sb.tmp().display().to_string();
    let quick = ["run", "pingpong", "--quick", "--mech", "pipe"];
    let cases: [(&[&str], String); 3] = [
        (
            &["--json", &dir],
            format!("invalid --json '{dir}': it is a directory: give a file name"),
        ),
        (
            &["--csv", "/nonexistent/x.csv"],
            "invalid --csv '/nonexistent/x.csv': no directory /nonexistent".into(),
        ),
        (
            &["--json", "-", "--csv", "-"],
            "--json - and --csv - would both write to standard output".into(),
        ),
    ];
    for (more, expected) in cases {
        refused(&[&quick[..], more].concat(), &expected);
    }
}

/// Output paths were checked with `access(W_OK)`, which root always
/// passes: `--openmetrics /proc/x`, `--bmf /sys/x` and `--json /proc/x.json`
/// measured first and failed after, exit 1; so did `--json /dev/full` for
/// anyone. The file each output is written through is made before
/// anything is measured: each exits 2 in one line within a second (the
/// run asked for would take minutes), nothing measured or stored.
#[test]
fn outputs_the_kernel_refuses_are_found_before_measuring() {
    let mut cases = vec![("--json", "/dev/full", "No space left on device")];
    let root = common::require(
        common::is_root(),
        "root passes access(W_OK) on /proc and /sys: those outputs are checked as root only",
    );
    if root {
        cases.extend([
            ("--openmetrics", "/proc/x", "cannot create a file in /proc"),
            ("--bmf", "/sys/x", "cannot create a file in /sys"),
            ("--json", "/proc/x.json", "cannot create a file in /proc"),
        ]);
    }
    let long = [
        "run",
        "pingpong",
        "--mech",
        "pipe",
        "-p",
        "count=100M",
        "--repeat",
        "1",
    ];
    for (option, path, why) in cases {
        let sb = Sandbox::new();
        let args = [&long[..], &[option, path]].concat();
        let out = output_within(sb.command(&args), std::time::Duration::from_secs(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{option} {path}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("error: invalid {option} '{path}': "))
                && stderr.contains(why),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
        assert!(!sb.db().exists(), "{option} {path}: stored a run");
        sb.assert_tmp_empty();
    }
}

/// What `cmd` printed and how it exited; killed and failed if it has not
/// exited by `limit` (a guard, not a timing claim: the runs it is given
/// would take minutes were they measured).
fn output_within(
    mut cmd: std::process::Command,
    limit: std::time::Duration,
) -> std::process::Output {
    use std::process::Stdio;
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output().unwrap()));
    match rx.recv_timeout(limit) {
        Ok(out) => out,
        Err(_) => {
            let pid = rustix::process::Pid::from_raw(pid as i32).unwrap();
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            panic!("still running after {limit:?}: it went on to measure");
        }
    }
}

/// `iolab history | head -c 10` once panicked on the broken pipe (exit
/// 101): a reader that closed early ends the command quietly.
#[test]
fn a_reader_that_closes_early() {
    let sb = Sandbox::new();
    sb.iolab(&["run", "limits", "-p", "count=1000", "-q"])
        .assert()
        .success();
    for args in [&["history"][..], &["show", "latest"], &["list"]] {
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        drop(reader);
        let out = sb
            .command(args)
            .stdout(std::process::Stdio::from(writer))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// `--db /dev/null` was refused, but as root left `/dev/null-journal`
/// behind: a store that is not a regular file is refused before SQLite
/// touches anything beside it.
#[test]
fn a_store_that_is_not_a_file() {
    let journal = std::path::Path::new("/dev/null-journal");
    let there_before = journal.exists();
    refused(
        &["run", "limits", "-p", "count=1000", "--db", "/dev/null"],
        "cannot write the result store /dev/null: not a regular file",
    );
    assert!(
        there_before || !journal.exists(),
        "left {}",
        journal.display()
    );
    // `push` to a directory was exit 1.
    let sb = Sandbox::new();
    sb.iolab(&["run", "limits", "-p", "count=1000", "-q"])
        .assert()
        .success();
    let dir = sb.tmp().display().to_string();
    let out = sb.iolab(&["push", "--to", &dir, "latest"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains(&format!(
            "cannot write the result store {dir}: not a regular file"
        )),
        "{stderr}"
    );
}

/// An unwritable TMPDIR was exit 1: it is the caller's setting, exit 2 in
/// one line naming it.
#[test]
fn a_temp_dir_that_cannot_be_used() {
    let sb = Sandbox::new();
    let out = sb
        .iolab(&["run", "limits", "-p", "count=1000", "--no-store"])
        .env("TMPDIR", "/nonexistent")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: cannot make a private temp dir in /nonexistent: ")
            && stderr.contains("set TMPDIR to a writable directory"),
        "{stderr}"
    );
}

/// A corrupt store file was refused with exit 2 by `run` but 1 by
/// `history`: every command now calls an unusable store bad input.
#[test]
fn a_corrupt_store_file() {
    let sb = Sandbox::new();
    let db = sb.tmp().join("corrupt.db");
    std::fs::write(&db, vec![0x5au8; 8192]).unwrap();
    let db = db.display().to_string();
    for args in [
        &["history", "--db", &db][..],
        &["show", "latest", "--db", &db],
    ] {
        let out = sb.iolab(args).assert().code(2).get_output().clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("cannot read the result store {db}")),
            "{args:?}: {stderr}"
        );
    }
    std::fs::remove_file(&db).unwrap();
}

/// `PRAGMA user_version=-1` was taken as version 0 and rewritten: a
/// version iolab never wrote is refused by writers and readers alike, and
/// the file is left as it was.
#[test]
fn a_store_of_a_negative_schema_version() {
    let sb = Sandbox::new();
    let db = sb.dir.path().join("odd.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", -1).unwrap();
    drop(conn);
    let path = db.display().to_string();
    let run = ["run", "limits", "-p", "count=1000", "-q", "--db", &path];
    for args in [&run[..], &["history", "--db", &path]] {
        let out = sb.iolab(args).assert().code(2).get_output().clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("its schema version -1 is not one iolab ever wrote"),
            "{args:?}: {stderr}"
        );
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, -1);
}

/// `-p count=18446744073709551615` panicked (the warm-up added to it
/// wrapped round) and a duration of days ran until the case was stopped:
/// counts and durations have an upper bound, checked before anything runs.
#[test]
fn counts_and_durations_past_their_bounds() {
    refused(
        &["run", "pingpong", "-p", "count=18446744073709551615"],
        "invalid value '18446744073709551615' for count: expected a positive count such as \
         2000, 100k or 10M, at most 1000G",
    );
    refused(
        &["run", "contention", "-p", "duration=999999h"],
        "invalid value '999999h' for duration: expected a positive duration such as 200ms \
         or 10s, at most 300s",
    );
}

/// The exports (`--openmetrics`, `--bmf`, ...) and `--push` are checked
/// with the rest of the command line: nothing measured, nothing stored.
#[test]
fn exports_and_push_are_checked_before_measuring() {
    let quick = ["run", "pingpong", "--quick", "--mech", "pipe"];
    let cases: [(&[&str], &str); 3] = [
        (
            &["--json", "-", "--openmetrics", "-"],
            "--json - and --openmetrics - would both write to standard output",
        ),
        (
            &["--bmf", "/nonexistent/bmf.json"],
            "invalid --bmf '/nonexistent/bmf.json': no directory /nonexistent",
        ),
        (
            &["--repeat-runs", "2", "--smaller-is-better", "-"],
            "--repeat-runs 2 cannot write --smaller-is-better, which holds one run",
        ),
    ];
    for (more, expected) in cases {
        refused(&[&quick[..], more].concat(), expected);
    }
    let sb = Sandbox::new();
    let err = sb.usage_error(&[&quick[..], &["--push", "fleet.db", "--no-store"]].concat());
    assert!(err.contains("cannot be used with"), "{err}");
    assert!(!sb.db().exists());
    #[cfg(not(feature = "fleet"))]
    refused(
        &[
            &quick[..],
            &["--push", "postgresql://iolab@db.example/iolab"],
        ]
        .concat(),
        "this iolab was built without PostgreSQL stores",
    );
}
