//! No figure beyond physics: a stream whose messages all arrive, verified,
//! but outside the timed window (the test-only fault `phantom`, as the
//! futex stream once did when its sender ran repetitions ahead) is
//! `failed` with the figure and the machine's bound named, never `ok`.

mod common;
use common::{json, results, Sandbox};

/// `stream` over `mechs`, on one CPU, two short repetitions, and `more`.
fn stream_args<'a>(mechs: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "stream",
        "--mech",
        mechs,
        "--placement",
        "same-cpu",
        "--repeat",
        "2",
        "--param",
        "size=64",
        "--param",
        "bytes=64k",
        "--json",
        "-",
        "--no-store",
    ];
    args.extend(more);
    args
}

fn phantom_stream(mech: &str) -> serde_json::Value {
    let sb = Sandbox::new();
    // The exit status says that a case failed; the JSON says which and why.
    let out = sb
        .iolab(&stream_args(mech, &["--fault", "phantom"]))
        .output()
        .unwrap();
    sb.assert_tmp_empty();
    json(&out.stdout)
}

fn assert_beyond_the_machine(run: &serde_json::Value) {
    let r = &results(run)[0];
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["verified"]["ok"], false, "{r}");
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("bytes_per_s ") && reason.contains("is beyond this machine"),
        "{reason}"
    );
    assert!(reason.contains("this run's fastest memcpy ("), "{reason}");
    assert!(
        reason.contains("the 1 CPU(s) the case ran on ("),
        "{reason}"
    );
    assert_eq!(r["metrics"], serde_json::json!({}), "no figure survives");
}

#[test]
fn a_pipe_stream_timed_outside_its_window_fails_with_the_bound_named() {
    assert_beyond_the_machine(&phantom_stream("pipe"));
}

#[test]
fn a_counter_stream_timed_outside_its_window_fails_with_the_bound_named() {
    assert_beyond_the_machine(&phantom_stream("futex"));
}

#[test]
fn without_the_fault_the_same_streams_are_ok() {
    let sb = Sandbox::new();
    let run = sb.run_json(&stream_args("pipe,futex,eventfd", &[]));
    for r in results(&run) {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["ok"], true, "{r}");
    }
    assert_eq!(results(&run).len(), 3);
}

/// The first measurement of the bounds reads ten times too tight (a host
/// at its slowest moment): the bounds are measured again before any case
/// fails, so no valid stream fails, while a phantom one still does.
#[test]
fn a_bound_read_at_a_slow_moment_fails_no_valid_case() {
    let sb = Sandbox::new();
    let mechs = "pipe,unix-stream,shm,vmsplice";
    let mut args = stream_args(mechs, &["--fault", "slow-bound"]);
    let at = args.iter().position(|a| *a == "bytes=64k").unwrap();
    args[at] = "bytes=16M";
    let at = args.iter().position(|a| *a == "size=64").unwrap();
    args[at] = "size=65536";
    let run = sb.run_json(&args);
    let rs = results(&run);
    assert_eq!(rs.len(), 7, "{run}");
    for r in rs {
        assert_eq!(r["status"], "ok", "{r}");
    }
    // The slowed bound did bite: a valid figure went past it, and the
    // bounds were measured again rather than the case failed.
    let bounds = &run["environment"]["bounds"];
    assert!(bounds["measured_again"].as_u64().unwrap() >= 1, "{bounds}");
    let closest = bounds["closest"]["ratio"].as_f64().unwrap();
    assert!(closest > 0.0 && closest <= 1.0, "{bounds}");
    sb.assert_tmp_empty();
    let failed = phantom_stream("pipe");
    assert_beyond_the_machine(&failed);
    let reason = results(&failed)[0]["reason"].as_str().unwrap().to_string();
    assert!(
        reason.contains("measured again before failing it"),
        "{reason}"
    );
}
