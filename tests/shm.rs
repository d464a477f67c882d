//! The shm mechanism through the binary: every wake mode carries pingpong
//! and stream verified, in both placements and both modes, counts its
//! system calls, and its `wake` parameter is validated.

mod common;
use common::{results, Sandbox};

fn run_all_wakes(mode: &str) {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "pingpong",
        "stream",
        "--mech",
        "shm",
        "--param",
        "wake=spin,futex,eventfd,fifo",
        "--param",
        "count=300",
        "--param",
        "size=64",
        "--param",
        "bytes=128k",
        "--repeat",
        "1",
        "--mode",
        mode,
        "--no-store",
        "--json",
        "-",
    ]);
    let res = results(&run);
    // 2 scenarios x 2 placements x 4 wake modes
    assert_eq!(res.len(), 16);
    for r in res {
        let case = r["case"].as_str().unwrap();
        assert_eq!(r["status"], "ok", "{case}: {}", r["reason"]);
        assert_eq!(r["verified"]["ok"], true, "{case}");
        assert!(case.starts_with("shm/"), "{case}");
        assert!(case.contains(&format!("/{mode}/64B/wake=")), "{case}");
        assert!(r["params"]["wake"].is_string(), "{case}");
        assert!(
            r["metrics"]["syscalls_per_msg"]["value"].is_number(),
            "{case}"
        );
    }
    sb.assert_tmp_empty();
}

#[test]
fn every_wake_mode_is_verified_in_processes() {
    run_all_wakes("processes");
}

#[test]
fn every_wake_mode_is_verified_in_threads() {
    run_all_wakes("threads");
}

#[test]
fn a_bad_wake_mode_is_refused_before_running() {
    let sb = Sandbox::new();
    let err = sb.usage_error(&["run", "pingpong", "--mech", "shm", "--param", "wake=sleepy"]);
    assert!(
        err.contains("invalid value 'sleepy' for wake: expected one of spin, futex, eventfd, fifo"),
        "{err}"
    );
    assert!(!common::exists(&sb.db()));
}

#[test]
fn wake_belongs_to_shm_only() {
    let sb = Sandbox::new();
    let err = sb.usage_error(&["run", "pingpong", "--mech", "pipe", "--param", "wake=spin"]);
    assert!(
        err.contains("wake is a parameter of the shm mechanism; pipe does not take it"),
        "{err}"
    );
}
