//! Under a tight `ulimit -v` iolab says so in one line and exits with a
//! documented status, never a panic or a hang: a thread it cannot start
//! (its stack cannot be mapped) is an error or an unknown figure, not a
//! `failed to spawn thread` panic, and no thread is left waiting for one
//! that never started. The limits start where the binary itself loads.

mod common;
use common::Sandbox;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// A hang guard, not a timing claim.
const LIMIT: Duration = Duration::from_secs(120);

/// `iolab ARGS` under `ulimit -v KB`, killed if it outlives `LIMIT`.
fn under(sb: &Sandbox, kb: u64, args: &[&str]) -> Output {
    let mut child = sb
        .ulimited(&format!("-v {kb}"), args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > LIMIT {
            child.kill().unwrap();
            panic!("iolab under ulimit -v {kb} still ran after {LIMIT:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// The smallest limit (in steps of 1000 KiB) under which the binary loads
/// and prints its version.
fn loads_from(sb: &Sandbox) -> u64 {
    (20_000..200_000)
        .step_by(1000)
        .find(|kb| under(sb, *kb, &["--version"]).status.success())
        .expect("iolab loads under some ulimit -v")
}

#[test]
fn a_tight_address_space_gives_one_line_and_a_documented_status() {
    let sb = Sandbox::new();
    let base = loads_from(&sb);
    let args = common::pipe_pingpong(&["--no-store", "-q"]);
    for kb in [0, 1000, 2000, 4000, 8000, 16000, 32000]
        .map(|more| base + more)
        .into_iter()
        .chain([150_000])
    {
        let out = under(&sb, kb, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "ulimit -v {kb}: exit {code:?} (a signal or a panic), stderr: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "ulimit -v {kb}: {stderr}");
        if code != Some(0) {
            assert_eq!(stderr.lines().count(), 1, "ulimit -v {kb}: {stderr}");
        }
    }
    sb.assert_tmp_empty();
}
