//! `poll-scale` and `event-bench` through the binary: every round trip and
//! every write is counted, a damaged answer fails the case, and a poller or
//! a descriptor limit that cannot take a point makes it `unsupported` with
//! the reason, while the rest of the sweep runs.

mod common;
use common::{results, Sandbox};
use serde_json::Value;

fn run_json(sb: &Sandbox, args: &[&str]) -> Value {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--no-store", "--quiet", "--json", "-"]);
    sb.run_json(&all)
}

fn by_case<'a>(run: &'a Value, case: &str) -> &'a Value {
    results(run)
        .iter()
        .find(|r| r["case"] == case)
        .unwrap_or_else(|| panic!("no case {case}"))
}

#[test]
fn poll_scale_verifies_every_round_trip_for_every_poller() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "poll-scale",
            "--param",
            "idle=0,5",
            "--param",
            "requests=300",
            "--param",
            "active=3",
            "--repeat",
            "2",
            "--warmup",
            "30",
        ],
    );
    let rs = results(&run);
    assert_eq!(rs.len(), 10);
    for r in rs.iter().filter(|r| !common::io_uring_unsupported(r)) {
        assert_eq!(r["status"], "ok", "{r}");
        // 630 requests counted by the server plus 630 answers checked by
        // the client, one byte each.
        assert_eq!(r["verified"]["messages"], 1260, "{r}");
        assert_eq!(r["verified"]["bytes"], 1260, "{r}");
        assert_eq!(r["latency"]["kind"], "round-trip");
        assert_eq!(r["latency"]["count"], 600);
        assert_eq!(r["metrics"]["seconds"]["reps"].as_array().unwrap().len(), 2);
        assert!(r["metrics"]["server_cpu_us_per_req"]["value"].is_number());
    }
    assert!(
        run["verdicts"].as_array().unwrap().len() >= 4,
        "{}",
        run["verdicts"]
    );
}

#[test]
fn poll_scale_over_unix_sockets() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "poll-scale",
            "--param",
            "poller=epoll-et",
            "--param",
            "transport=unix",
            "--param",
            "idle=20",
            "--param",
            "requests=200",
            "--repeat",
            "1",
        ],
    );
    let r = by_case(&run, "epoll-et/unix/idle=20");
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["verified"]["messages"], 440);
}

#[test]
fn a_wrong_answer_fails_poll_scale() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "poll-scale",
            "--param",
            "poller=poll",
            "--param",
            "idle=0",
            "--param",
            "requests=200",
            "--repeat",
            "1",
            "--fault",
            "corrupt",
        ],
    );
    let r = by_case(&run, "poll/tcp/idle=0");
    assert_eq!(r["status"], "failed");
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("verification failed: answer"),
        "{reason}"
    );
    assert_eq!(r["verified"]["ok"], false);
    assert!(r["metrics"].as_object().unwrap().is_empty());
}

#[test]
fn select_is_unsupported_past_fd_setsize_and_the_sweep_goes_on() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "poll-scale",
            "--param",
            "poller=select,epoll-lt",
            "--param",
            "idle=0,2000",
            "--param",
            "requests=100",
            "--repeat",
            "1",
        ],
    );
    let r = by_case(&run, "select/tcp/idle=2000");
    assert_eq!(r["status"], "unsupported");
    let reason = r["reason"].as_str().unwrap();
    assert!(reason.starts_with("idle=2000 needs "), "{reason}");
    assert!(
        reason.contains("descriptors in the server, above select's FD_SETSIZE of 1024; the largest idle that fits is "),
        "{reason}"
    );
    assert_eq!(by_case(&run, "select/tcp/idle=0")["status"], "ok");
    assert_eq!(by_case(&run, "epoll-lt/tcp/idle=2000")["status"], "ok");

    let run = run_json(
        &sb,
        &[
            "event-bench",
            "--param",
            "poller=select",
            "--param",
            "fds=100,600",
        ],
    );
    let r = by_case(&run, "select/nonblocking/socketpair/fds=600/active=1");
    assert_eq!(r["status"], "unsupported");
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.contains("above select's FD_SETSIZE of 1024; the largest fds that fits is "),
        "{reason}"
    );
    assert_eq!(
        by_case(&run, "select/nonblocking/socketpair/fds=100/active=1")["status"],
        "ok"
    );
}

#[test]
fn event_bench_reads_every_write_for_every_poller_in_both_dispatch_modes() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "event-bench",
            "--param",
            "fds=50",
            "--param",
            "active=1,10",
            "--param",
            "pair=pipe,socketpair",
            "--param",
            "dispatch=nonblocking,blocking",
            "--param",
            "writes=200",
            "--repeat",
            "3",
        ],
    );
    let rs = results(&run);
    assert_eq!(rs.len(), 40);
    let blocking = rs.iter().filter(|r| r["params"]["dispatch"] == "blocking");
    assert_eq!(blocking.count(), 20);
    let r = by_case(&run, "epoll-et/blocking/pipe/fds=50/active=10");
    assert_eq!(r["params"]["pair"], "pipe");
    for r in rs.iter().filter(|r| !common::io_uring_unsupported(r)) {
        assert_eq!(r["status"], "ok", "{r}");
        let active = r["params"]["active"].as_u64().unwrap();
        // Three timed loops (the warm-up loop is not counted), each reading
        // every byte written: the first `active` plus 200 from the callbacks.
        assert_eq!(r["verified"]["messages"], 3 * (active + 200), "{r}");
        let metric = |name: &str| r["metrics"][name]["value"].as_f64().unwrap();
        assert_eq!(
            r["metrics"]["us_per_loop"]["reps"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        assert!(metric("events_per_s") > 0.0);
        // One byte in flight: every wait, blocking or not, finds exactly
        // one pair ready (bench.c's xcount equals its count).
        if active == 1 {
            assert_eq!(metric("waits_per_loop"), 201.0, "{r}");
        }
    }
}

#[test]
fn event_bench_defaults_to_bench_c_nonblocking_dispatch_over_socketpairs() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "event-bench",
            "--param",
            "poller=poll",
            "--param",
            "fds=10",
            "--param",
            "writes=20",
            "--repeat",
            "1",
        ],
    );
    assert_eq!(results(&run).len(), 1);
    let r = by_case(&run, "poll/nonblocking/socketpair/fds=10/active=1");
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["params"]["dispatch"], "nonblocking");
    assert_eq!(r["params"]["pair"], "socketpair");
    assert_eq!(r["verified"]["messages"], 21);
    let err = sb.usage_error(&["run", "event-bench", "--param", "dispatch=sometimes"]);
    assert!(
        err.contains(
            "invalid value 'sometimes' for dispatch: expected one of nonblocking, blocking"
        ),
        "{err}"
    );
    sb.assert_tmp_empty();
}

#[test]
fn a_damaged_byte_fails_event_bench_in_both_dispatch_modes() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "event-bench",
            "--param",
            "poller=epoll-lt",
            "--param",
            "dispatch=nonblocking,blocking",
            "--fault",
            "corrupt",
        ],
    );
    for case in [
        "epoll-lt/nonblocking/socketpair/fds=100/active=1",
        "epoll-lt/blocking/socketpair/fds=100/active=1",
    ] {
        let r = by_case(&run, case);
        assert_eq!(r["status"], "failed");
        let reason = r["reason"].as_str().unwrap();
        assert!(reason.starts_with("verification failed: pair "), "{reason}");
    }
}

#[test]
fn active_above_fds_is_unsupported_and_idle_zero_is_accepted() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "event-bench",
            "--param",
            "poller=poll",
            "--param",
            "fds=5",
            "--param",
            "active=10",
        ],
    );
    assert_eq!(
        by_case(&run, "poll/nonblocking/socketpair/fds=5/active=10")["reason"],
        "active=10 is more than fds=5: at most one first write per pair"
    );
    sb.iolab(&["run", "poll-scale", "--param", "idle=-1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid value '-1' for idle: expected a count such as 0, 10 or 10k, at most 1000G",
        ));
}
