//! `iolab run pingpong` over every basic mechanism: every result ok,
//! verified with the exact message count, round-trip latency recorded.

mod common;
use common::{results, Sandbox};

const MECHS: &str = "pipe,fifo,eventfd,unix-stream,unix-dgram,udp,tcp";

fn pingpong(mode: &str) {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "pingpong",
        "--mech",
        MECHS,
        "--placement",
        "same-cpu",
        "--mode",
        mode,
        "--param",
        "count=300",
        "--repeat",
        "2",
        "--json",
        "-",
        "--no-store",
    ]);
    let results = results(&run);
    assert_eq!(results.len(), 7);
    // 30 warm-up + 2 x 300 timed round trips, each message verified by both sides.
    let per_side = 30 + 2 * 300;
    for r in results {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["ok"], true);
        assert_eq!(r["verified"]["messages"], 2 * per_side);
        assert_eq!(r["latency"]["kind"], "round-trip");
        assert_eq!(r["latency"]["count"], 2 * 300);
        assert_eq!(r["params"]["placement"], "same-cpu");
        assert_eq!(r["params"]["mode"], mode);
        assert_eq!(r["metrics"]["rtt_ns"]["unit"], "ns");
        assert_eq!(r["metrics"]["rtt_ns"]["reps"].as_array().unwrap().len(), 2);
        let sides = r["sides"].as_array().unwrap();
        assert_eq!(sides.len(), 2);
        assert_eq!(
            sides[0]["cpus"], sides[1]["cpus"],
            "same-cpu sides share one CPU"
        );
    }
    let bytes: Vec<u64> = results
        .iter()
        .map(|r| r["verified"]["bytes"].as_u64().unwrap())
        .collect();
    // eventfd carries its 8-byte counter, the others the 1-byte message.
    assert_eq!(bytes, vec![1260, 1260, 8 * 1260, 1260, 1260, 1260, 1260]);
    assert_eq!(results[0]["case"], format!("pipe/same-cpu/{mode}/1B"));
    sb.assert_tmp_empty();
    assert!(!sb.db().exists(), "--no-store wrote a store");
}

#[test]
fn every_mechanism_round_trips_as_processes() {
    pingpong("processes");
}

#[test]
fn every_mechanism_round_trips_as_threads() {
    pingpong("threads");
}

#[test]
fn stream_counts_every_message_and_eventfd_sums_its_counter() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "stream",
        "--mech",
        MECHS,
        "--placement",
        "same-cpu",
        "--param",
        "size=64",
        "--param",
        "bytes=64k",
        "--repeat",
        "2",
        "--warmup",
        "0",
        "--json",
        "-",
        "--no-store",
    ]);
    for r in results(&run) {
        assert_eq!(r["status"], "ok", "{r}");
        // at least 1024 messages per repetition, no warm-up
        assert_eq!(r["verified"]["messages"], 2 * 1024, "{}", r["case"]);
        assert!(r["latency"].is_null());
        assert!(r["metrics"]["bytes_per_s"]["value"].as_f64().unwrap() > 0.0);
    }
    sb.assert_tmp_empty();
}

#[test]
fn stream_sizes_its_repetitions_by_time_from_a_probe() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "stream",
        "--mech",
        "pipe,fifo,eventfd",
        "--placement",
        "same-cpu",
        "--param",
        "size=64",
        "--param",
        "rep_time=20ms",
        "--repeat",
        "2",
        "--json",
        "-",
        "--no-store",
    ]);
    for r in results(&run) {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["params"]["bytes"], "auto", "{}", r["case"]);
        let per_rep = r["params"]["messages_per_rep"]
            .as_u64()
            .expect("chosen count");
        assert!(per_rep >= 1024, "{}: {per_rep}", r["case"]);
        // the default warm-up is a tenth of a repetition
        let expected = per_rep / 10 + 2 * per_rep;
        assert_eq!(r["verified"]["messages"], expected, "{}", r["case"]);
        assert_eq!(
            r["metrics"]["bytes_per_s"]["reps"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }
    sb.assert_tmp_empty();
}
