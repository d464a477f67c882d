//! Verification bites: with the test-only fault switch one message arrives
//! damaged, and the case is reported failed with the reason, never as a
//! number.

mod common;
use common::{results, Sandbox};

/// One run with the fault switch on; the run itself must end (exit 1: a case
/// failed) and clean up.
fn faulty_run(scenario: &str, mech: &str, params: &[&str]) -> serde_json::Value {
    let sb = Sandbox::new();
    let mut args = vec![
        "run",
        scenario,
        "--mech",
        mech,
        "--placement",
        "same-cpu",
        "--repeat",
        "1",
    ];
    for p in params {
        args.extend(["--param", p]);
    }
    args.extend(["--fault", "corrupt", "--json", "-", "--no-store"]);
    let run = sb.run_json(&args);
    sb.assert_tmp_empty();
    run
}

fn pingpong_faulty_run(mech: &str) -> serde_json::Value {
    faulty_run("pingpong", mech, &["count=200"])
}

fn stream_faulty_run(mech: &str) -> serde_json::Value {
    faulty_run("stream", mech, &["size=64", "bytes=64k"])
}

fn assert_failed_verification(run: &serde_json::Value) {
    let r = &results(run)[0];
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["verified"]["ok"], false);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .starts_with("verification failed"),
        "{}",
        r["reason"]
    );
    assert_eq!(
        r["metrics"],
        serde_json::json!({}),
        "a failed case carries no figures"
    );
    assert!(r["latency"].is_null());
}

#[test]
fn corrupted_echo_fails_pingpong() {
    let run = pingpong_faulty_run("pipe");
    assert_failed_verification(&run);
    let reason = results(&run)[0]["reason"].as_str().unwrap().to_string();
    // the initiator saw the damaged echo of the message after warm-up (20) plus half a repetition (100)
    assert!(reason.contains("message 120"), "{reason}");
}

#[test]
fn corrupted_shm_echo_fails_pingpong_in_its_typed_loop() {
    // shm runs pingpong's loops compiled for its own endpoint type
    // (mechanism::run_typed), apart from the dyn loops pipe runs.
    let run = faulty_run("pingpong", "shm", &["count=200", "wake=spin"]);
    assert_failed_verification(&run);
    let reason = results(&run)[0]["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("message 120"), "{reason}");
}

#[test]
fn corrupted_eventfd_echo_fails_pingpong() {
    assert_failed_verification(&pingpong_faulty_run("eventfd"));
}

#[test]
fn corrupted_datagram_fails_stream() {
    assert_failed_verification(&stream_faulty_run("unix-dgram"));
}

#[test]
fn extra_eventfd_count_fails_stream() {
    let run = stream_faulty_run("eventfd");
    assert_failed_verification(&run);
    assert!(results(&run)[0]["reason"]
        .as_str()
        .unwrap()
        .contains("counter sum"));
}
