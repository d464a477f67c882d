//! `iolab import` fuzzed with proptest (issue 36): arbitrary bytes, a
//! saved run cut short anywhere, and a saved run with one field replaced by
//! a hostile value. Whatever the file holds, reading and vetting it gives a
//! one-line refusal or a run that stores, loads back, and reads in every
//! reader (`reader_fuzz`): never a panic. `IOLAB_FUZZ_SECS=N` keeps it
//! going for N seconds and prints how many cases ran; `cargo test` runs
//! one short round.

use super::reader_fuzz::import_and_read;
use super::{ok_result, run};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::time::{Duration, Instant};

/// A saved run, as `import` reads it: the JSON and a histogram per result.
fn saved_bytes() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let r = run("fuzz-run", "2026-01-02T03:04:05Z", vec![ok_result()]);
    let file = super::super::saved::save_in(&r, &[dir.path().to_path_buf()]).unwrap();
    std::fs::read(file).unwrap()
}

/// The fields a hostile value replaces, as JSON pointers.
const FIELDS: &[&str] = &[
    "/schema_version",
    "/run_id",
    "/started_at",
    "/finished_at",
    "/iolab_version",
    "/suite",
    "/label",
    "/results",
    "/results/0",
    "/results/0/scenario",
    "/results/0/status",
    "/results/0/metrics",
    "/results/0/params",
    "/histograms",
    "/histograms/0",
    "/environment",
    "/verdicts",
    "/claims",
];

fn hostile_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    prop_oneof![
        Just(json!(null)),
        Just(json!("")),
        Just(json!("../../../../tmp/x")),
        Just(json!("99.0.0")),
        Just(json!([])),
        Just(json!({})),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|x| json!(x)),
        "\\PC{0,40}".prop_map(|s| json!(s)),
        "[0-9a-f]{0,64}".prop_map(|s| json!(s)),
        proptest::collection::vec("\\PC{0,8}", 0..4).prop_map(|v| json!(v)),
    ]
}

fn hostile_file(valid: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let len = valid.len();
    let cut = valid.clone();
    let replaced = valid.clone();
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..512),
        (0..len).prop_map(move |n| cut[..n].to_vec()),
        (proptest::sample::select(FIELDS), hostile_value()).prop_map(move |(field, value)| {
            let mut json: serde_json::Value = serde_json::from_slice(&replaced).unwrap();
            if let Some(slot) = json.pointer_mut(field) {
                *slot = value;
            }
            serde_json::to_vec(&json).unwrap()
        }),
    ]
}

/// Runs `round` (one proptest run of `per_round` cases) once, or, with
/// `IOLAB_FUZZ_SECS=N`, round after round for N seconds, then says how
/// many cases ran (`what` names the target, `more` what it adds).
pub(super) fn fuzz_for(
    what: &str,
    per_round: u32,
    mut round: impl FnMut(&mut TestRunner),
    more: impl Fn() -> String,
) {
    let secs: u64 = std::env::var("IOLAB_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut cases = 0u64;
    loop {
        round(&mut TestRunner::new(Config {
            cases: per_round,
            failure_persistence: None,
            ..Config::default()
        }));
        cases += u64::from(per_round);
        if Instant::now() >= deadline {
            break;
        }
    }
    if secs > 0 {
        eprintln!("{what}: {cases} cases in {secs} s{}, no finding", more());
    }
}

#[test]
fn no_file_makes_import_panic() {
    let valid = saved_bytes();
    assert!(import_and_read(&valid));
    let round = |runner: &mut TestRunner| {
        runner
            .run(&hostile_file(valid.clone()), |bytes| {
                import_and_read(&bytes);
                Ok(())
            })
            .unwrap();
    };
    fuzz_for("import fuzz", 64, round, String::new);
}
