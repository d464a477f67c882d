//! Many pairs at once (`pairs=N`) and open-loop latency (`rate=R`):
//! N pairs carry N times the messages of one, each verified and named; a
//! descriptor limit too low for N says the largest N that fits; and a
//! stall of the echoer shows in one round trip closed loop but in every
//! request it delayed open loop (no coordinated omission).

mod common;
use common::{pipe_pingpong, results, Sandbox};
use serde_json::Value;
use std::collections::BTreeMap;

const MECHS: &str = "pipe,unix-stream,udp,shm";

fn run(sb: &Sandbox, args: &[&str]) -> Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-", "--no-store"]);
    sb.run_json(&all)
}

#[test]
fn sixteen_pairs_carry_sixteen_times_the_messages_verified_and_merged() {
    let sb = Sandbox::new();
    let run = run(
        &sb,
        &[
            "pingpong",
            "stream",
            "--mech",
            MECHS,
            "--placement",
            "same-cpu",
            "--param",
            "pairs=1,16",
            "--param",
            "count=100",
            "--param",
            "bytes=64k",
            "--param",
            "size=64",
            "--param",
            "wake=futex",
            "--repeat",
            "1",
        ],
    );
    let mut one: BTreeMap<(String, String), u64> = BTreeMap::new();
    let results = results(&run);
    assert_eq!(results.len(), 2 * 4 * 2);
    for r in results {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["ok"], true);
        let key = (r["scenario"].to_string(), r["params"]["mech"].to_string());
        let messages = r["verified"]["messages"].as_u64().unwrap();
        if r["params"]["pairs"] == 1 {
            assert!(r.get("pairs").is_none(), "{r}");
            one.insert(key, messages);
            continue;
        }
        assert_eq!(messages, 16 * one[&key], "{key:?}");
        let fairness = r["metrics"]["fairness"]["value"].as_f64().unwrap();
        assert!(fairness > 0.0 && fairness <= 1.0, "{fairness}");
        let pairs = r["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 16);
        let sum: u64 = pairs.iter().map(|p| p["messages"].as_u64().unwrap()).sum();
        assert_eq!(sum, messages);
        assert!(pairs.iter().all(|p| p["ops_per_s"].as_f64().unwrap() > 0.0));
        let sides = r["sides"].as_array().unwrap();
        assert_eq!(sides.len(), 32);
        assert!(sides[31]["role"].as_str().unwrap().starts_with("pair 15 "));
        assert!(sides
            .iter()
            .all(|s| s["cpus"].as_array().unwrap().len() == 1));
        if r["scenario"] == "pingpong" {
            // 16 initiators' histograms merged: every timed round trip.
            assert_eq!(r["latency"]["count"], 16 * 100);
            assert!(r["latency"]["p99"].as_u64().unwrap() >= r["latency"]["p50"].as_u64().unwrap());
        }
    }
}

#[test]
fn a_corrupted_pair_names_itself() {
    let sb = Sandbox::new();
    for (scenario, count) in [("pingpong", "count=100"), ("stream", "bytes=64k")] {
        let run = run(
            &sb,
            &[
                scenario,
                "--mech",
                "pipe",
                "--placement",
                "same-cpu",
                "--param",
                "pairs=4",
                "--param",
                count,
                "--param",
                "size=64",
                "--repeat",
                "1",
                "--fault",
                "corrupt",
            ],
        );
        let r = &results(&run)[0];
        assert_eq!(r["status"], "failed", "{r}");
        let reason = r["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("pair 3: verification failed"),
            "{scenario}: {reason}"
        );
    }
}

#[test]
fn sixty_four_pairs_start_and_end_with_nothing_left() {
    let sb = Sandbox::new();
    for mode in ["processes", "threads"] {
        let run = run(
            &sb,
            &[
                "pingpong", "--mech", "fifo", "--mode", mode, "--param", "pairs=64", "--param",
                "count=20", "--repeat", "1",
            ],
        );
        for r in results(&run) {
            assert_eq!(r["status"], "ok", "{r}");
            assert_eq!(r["sides"].as_array().unwrap().len(), 128);
        }
    }
}

/// `iolab ARGS` under `ulimit -n LIMIT`, its JSON.
fn run_limited(sb: &Sandbox, limit: u32, args: &[&str]) -> Value {
    let iolab = assert_cmd::cargo::cargo_bin("iolab");
    let script = format!("ulimit -n {limit} && exec \"$0\" \"$@\"");
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .arg(iolab)
        .args(args)
        .args(["--json", "-", "--no-store"])
        .env("TMPDIR", sb.tmp())
        .env("XDG_DATA_HOME", sb.dir.path().join("data"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    sb.assert_tmp_empty();
    common::json(&out.stdout)
}

#[test]
fn a_low_descriptor_limit_names_the_most_pairs_that_fit() {
    let sb = Sandbox::new();
    let args = |pairs: &str| {
        let param = format!("pairs={pairs}");
        let args = pipe_pingpong(&["--param", &param, "--param", "count=20", "--repeat", "1"]);
        args.into_iter().map(String::from).collect::<Vec<String>>()
    };
    let too_many = args("64");
    let too_many: Vec<&str> = too_many.iter().map(String::as_str).collect();
    let run = run_limited(&sb, 100, &too_many);
    let r = &results(&run)[0];
    assert_eq!(r["status"], "unsupported", "{r}");
    let reason = r["reason"].as_str().unwrap();
    assert!(reason.starts_with("pairs=64 needs "), "{reason}");
    assert!(reason.contains("the hard RLIMIT_NOFILE of 100"), "{reason}");
    let largest = reason
        .rsplit_once("the largest pairs that fits is ")
        .and_then(|(_, n)| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no largest value in: {reason}"));
    assert!((1..64).contains(&largest), "{largest}");
    // And that many do fit under the same limit.
    let fits = args(&largest.to_string());
    let fits: Vec<&str> = fits.iter().map(String::as_str).collect();
    let run = run_limited(&sb, 100, &fits);
    assert_eq!(results(&run)[0]["status"], "ok", "{run}");
}

/// The latency summary of the one pingpong case run with `rate` and the
/// test-only stall (250 round trips, the stall half-way).
fn stalled(sb: &Sandbox, rate: &str) -> Value {
    let run = run(
        sb,
        &[
            "pingpong",
            "--mech",
            "pipe",
            "--placement",
            "same-cpu",
            "--param",
            "count=250",
            "--param",
            rate,
            "--repeat",
            "1",
            "--warmup",
            "0",
            "--fault",
            "stall",
        ],
    );
    let r = results(&run)[0].clone();
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["latency"]["count"], 250);
    r
}

const SLOW_NS: u64 = 10_000_000;

#[test]
fn a_stall_is_one_slow_round_trip_closed_loop_and_many_open_loop() {
    let sb = Sandbox::new();
    // Closed loop: the 50 ms stall is one round trip; p99 of 250 (the
    // 248th) is fast, so at most two were slower than 10 ms.
    let closed = stalled(&sb, "rate=max");
    assert!(
        closed["latency"]["max"].as_u64().unwrap() >= 50_000_000,
        "{closed}"
    );
    assert!(
        closed["latency"]["p99"].as_u64().unwrap() < SLOW_NS,
        "{closed}"
    );
    assert!(closed["metrics"].get("offered_per_s").is_none());
    // Open loop at 1000/s: the stall delays about 1000 x 50 ms = 50
    // requests; p90 slower than 10 ms means more than 25 (R x 50 ms / 2) were.
    let open = stalled(&sb, "rate=1000");
    assert!(open["latency"]["p90"].as_u64().unwrap() > SLOW_NS, "{open}");
    assert!(open["latency"]["p99"].as_u64().unwrap() > SLOW_NS, "{open}");
    assert_eq!(open["metrics"]["offered_per_s"]["value"], 1000.0);
    assert!(open["metrics"]["ops_per_s"]["value"].as_f64().unwrap() > 0.0);
    assert_eq!(open["params"]["rate"], 1000);
    assert!(open["case"].as_str().unwrap().ends_with("/rate=1000"));
}

#[test]
fn bad_pairs_and_rates_are_refused() {
    let sb = Sandbox::new();
    let err = sb.usage_error(&["run", "pingpong", "--param", "rate=fast"]);
    assert_eq!(
        err,
        "error: invalid value 'fast' for rate: expected max or a positive count such as 2000, 100k or 10M, at most 1000G\n"
    );
    let err = sb.usage_error(&["run", "stream", "--param", "pairs=0"]);
    assert!(err.contains("invalid value '0' for pairs"), "{err}");
    sb.assert_tmp_empty();
}
