//! Runs of one mechanism through the binary, shared by the mechanism
//! tests: verified runs of pingpong, stream and contention in both modes
//! and placements, and runs with the corrupt fault that must fail.

use super::{alive, children_of, require, results, Sandbox};
use iolab::mechanism::{find, Support};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether `mech` works here; otherwise the test is skipped with the reason.
pub fn here(mech: &str) -> bool {
    match find(mech).expect("in the mechanism list").support() {
        Support::Yes => true,
        Support::No(why) => require(false, &format!("{mech} unsupported: {why}")),
    }
}

/// `iolab run SCENARIO --mech MECH` in both placements and `mode`, with
/// `params`; every case must be ok, verified, and have moved messages.
pub fn verified_run(sb: &Sandbox, mech: &str, scenario: &str, mode: &str, params: &[&str]) {
    let mut args = vec!["run", scenario, "--mech", mech, "--mode", mode];
    args.extend(["--placement", "same-cpu,cross-cpu", "--repeat", "1"]);
    for p in params {
        args.extend(["--param", p]);
    }
    args.extend(["--json", "-", "--no-store"]);
    let run = sb.run_json(&args);
    let res = results(&run);
    let cases: usize = params.iter().map(|p| p.split(',').count()).product();
    assert_eq!(res.len(), 2 * cases, "{mech} {scenario} {mode}");
    for r in res {
        let case = r["case"].as_str().unwrap();
        assert!(case.starts_with(&format!("{mech}/")), "{case}");
        assert!(case.contains(mode), "{case}");
        assert_eq!(r["status"], "ok", "{case}: {}", r["reason"]);
        assert_eq!(r["verified"]["ok"], true, "{case}");
        assert!(r["verified"]["messages"].as_u64().unwrap() > 0, "{case}");
    }
    sb.assert_tmp_empty();
}

/// Both modes, for a mechanism that works across processes and threads.
pub const BOTH_MODES: &[&str] = &["threads", "processes"];

pub fn pingpong(mech: &str, modes: &[&str], sizes: &str) {
    for mode in modes {
        let params = ["count=300", sizes];
        verified_run(&Sandbox::new(), mech, "pingpong", mode, &params);
    }
}

pub fn stream(mech: &str, modes: &[&str], sizes: &str) {
    for mode in modes {
        verified_run(
            &Sandbox::new(),
            mech,
            "stream",
            mode,
            &[sizes, "bytes=256k"],
        );
    }
}

pub fn contention(mech: &str, modes: &[&str]) {
    for mode in modes {
        let params = ["test=both", "duration=60ms", "interval=20ms"];
        verified_run(&Sandbox::new(), mech, "contention", mode, &params);
    }
}

/// `iolab run pingpong --mech MECH --mode MODE`: its cases are
/// unsupported with `reason`, and nothing is left behind.
pub fn unsupported_in(mech: &str, mode: &str, reason: &str) {
    let sb = Sandbox::new();
    let args = ["run", "pingpong", "--mech", mech, "--mode", mode];
    let run = sb.run_json(&[&args[..], &["--repeat", "1", "--json", "-", "--no-store"]].concat());
    let res = results(&run);
    assert!(!res.is_empty());
    for r in res {
        assert_eq!(r["status"], "unsupported", "{r}");
        assert_eq!(r["reason"], reason, "{r}");
    }
    sb.assert_tmp_empty();
}

/// A run of `scenario` over `mech` with the test-only fault: its one case
/// is failed by verification and carries no figures.
pub fn corrupted_run(sb: &Sandbox, mech: &str, scenario: &str, params: &[&str]) {
    corrupted_run_in(sb, mech, scenario, "processes", params);
}

/// `corrupted_run` with the sides in `mode`.
pub fn corrupted_run_in(sb: &Sandbox, mech: &str, scenario: &str, mode: &str, params: &[&str]) {
    let mut args = vec!["run", scenario, "--mech", mech, "--placement", "same-cpu"];
    args.extend(["--mode", mode]);
    for p in params {
        args.extend(["--param", p]);
    }
    args.extend(["--repeat", "1", "--fault", "corrupt", "--json", "-"]);
    args.push("--no-store");
    let run = sb.run_json(&args);
    let r = &results(&run)[0];
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["verified"]["ok"], false, "{r}");
    let reason = r["reason"].as_str().unwrap();
    assert!(reason.starts_with("verification failed"), "{reason}");
    assert_eq!(r["metrics"], serde_json::json!({}));
    sb.assert_tmp_empty();
}

/// A damaged message fails pingpong and, for a data mechanism, stream,
/// with the sides in `mode`.
pub fn corrupted(mech: &str, mode: &str, data: bool) {
    corrupted_run_in(&Sandbox::new(), mech, "pingpong", mode, &["count=200"]);
    if data {
        let params = ["size=64", "bytes=64k"];
        corrupted_run_in(&Sandbox::new(), mech, "stream", mode, &params);
    }
}

/// `iolab run pingpong --mech MECH` interrupted mid-run exits 130 and
/// leaves no peer and no temp dir.
pub fn interrupted(mech: &str, mode: &str) {
    let sb = Sandbox::new();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "pingpong", "--mech", mech, "--mode", mode])
        .args(["--param", "count=100M", "--repeat", "1", "--no-store"])
        .env("TMPDIR", sb.tmp())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let peers = if mode == "processes" { 2 } else { 0 };
    let deadline = Instant::now() + Duration::from_secs(20);
    let started =
        |kids: &Vec<u32>| kids.len() >= peers && std::fs::read_dir(sb.tmp()).unwrap().count() > 0;
    let kids = loop {
        let kids = children_of(pid);
        if started(&kids) {
            break kids;
        }
        assert!(Instant::now() < deadline, "the run did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(200));
    let int = rustix::process::Signal::INT;
    rustix::process::kill_process(rustix::process::Pid::from_raw(pid as i32).unwrap(), int)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{mode}");
    assert!(kids.iter().all(|k| !alive(*k)), "a peer outlived the run");
    sb.assert_tmp_empty();
}
