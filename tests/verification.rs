//! Verification bites: with the test-only fault switch one message arrives
//! damaged, and the case is reported failed with the reason, never as a
//! number.

mod common;
use common::{json, results, Sandbox};

fn faulty_run(scenario: &str, mech: &str) -> serde_json::Value {
    let sb = Sandbox::new();
    let out = sb
        .iolab(&[
            "run",
            scenario,
            "--mech",
            mech,
            "--placement",
            "same-cpu",
            "--param",
            "count=200",
            "--repeat",
            "1",
            "--fault",
            "corrupt",
            "--json",
            "-",
            "--no-store",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    sb.assert_tmp_empty();
    json(&out)
}

fn stream_faulty_run(mech: &str) -> serde_json::Value {
    let sb = Sandbox::new();
    let out = sb
        .iolab(&[
            "run",
            "stream",
            "--mech",
            mech,
            "--placement",
            "same-cpu",
            "--param",
            "size=64",
            "--param",
            "bytes=64k",
            "--repeat",
            "1",
            "--fault",
            "corrupt",
            "--json",
            "-",
            "--no-store",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    sb.assert_tmp_empty();
    json(&out)
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
    let run = faulty_run("pingpong", "pipe");
    assert_failed_verification(&run);
    let reason = results(&run)[0]["reason"].as_str().unwrap().to_string();
    // the initiator saw the damaged echo of the message after warm-up (20) plus half a repetition (100)
    assert!(reason.contains("message 120"), "{reason}");
}

#[test]
fn corrupted_eventfd_echo_fails_pingpong() {
    assert_failed_verification(&faulty_run("pingpong", "eventfd"));
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
