//! Bad input is refused before anything runs: exit status 2, one line on
//! stderr naming the bad value and what is allowed, nothing written.

mod common;
use common::Sandbox;

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
        "unknown mechanism 'carrier-pigeon': expected one of pipe, fifo, eventfd",
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
        "unknown parameter 'colour' for pingpong: expected one of count, size",
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
        "invalid --repeat '0': expected a whole number of repetitions, at least 1",
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
