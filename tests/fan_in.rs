//! `fan-in` through the binary: every supported mechanism verified at 1, 8
//! and 64 senders, a damaged message failing the case by its sender, a
//! sender that quits failing it at once by its name, the
//! atomic-write limit of a shared pipe, mechanisms that cannot fan in,
//! pollers only where they apply, the descriptor budget, and the sweep
//! chart of the report.

mod common;
use common::{reason_past_the_limit, results, Sandbox};
use serde_json::Value;

/// The mechanisms fan-in runs by default.
const MECHS: [&str; 9] = [
    "pipe",
    "fifo",
    "unix-stream",
    "unix-dgram",
    "udp",
    "tcp",
    "mq",
    "unix-seqpacket",
    "sysv-msg",
];

fn run(sb: &Sandbox, extra: &[&str]) -> Value {
    let mut args = vec![
        "run",
        "fan-in",
        "--repeat",
        "1",
        "--no-store",
        "--json",
        "-",
    ];
    args.extend(extra);
    sb.run_json(&args)
}

/// A repetition of 100 messages a sender is far shorter than what a
/// socket stream buffers: the receiver may time a drain of the backlog
/// while the senders wait, a rate the runner fails as beyond the machine
/// (every message still arrived, verified).
fn drained_a_backlog(r: &Value, mech: &str) -> bool {
    let reason = r["reason"].as_str().unwrap_or_default();
    let beyond = r["status"] == "failed" && reason.contains("is beyond this machine");
    assert!(
        !beyond || ["tcp", "unix-stream"].contains(&mech),
        "{mech} buffers too little to drain: {r}"
    );
    beyond
}

fn param(r: &Value, key: &str) -> u64 {
    r["params"][key].as_u64().unwrap()
}

#[test]
fn every_mechanism_verifies_each_senders_stream_at_1_8_and_64_senders() {
    let sb = Sandbox::new();
    let out = run(&sb, &["--param", "senders=1,8,64", "--param", "count=100"]);
    let rs = results(&out);
    assert_eq!(rs.len(), MECHS.len() * 3);
    for r in rs {
        let mech = r["params"]["mech"].as_str().unwrap();
        assert!(MECHS.contains(&mech));
        let senders = param(r, "senders");
        let v = &r["verified"];
        // Every sender sends warm-up (count/10) and one repetition at least.
        let messages = v["messages"].as_u64().unwrap();
        assert!(messages >= senders * 110, "{messages} from {senders}: {r}");
        assert_eq!(v["bytes"].as_u64().unwrap(), messages * 64);
        if drained_a_backlog(r, mech) {
            continue;
        }
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(v["ok"], true);
        assert_eq!(r["headline"], "msgs_per_s");
        for metric in [
            "msgs_per_s",
            "bytes_per_s",
            "recv_cpu_ns_per_msg",
            "fairness",
        ] {
            assert_eq!(
                r["metrics"][metric]["reps"].as_array().unwrap().len(),
                1,
                "{metric}"
            );
        }
        let fairness = r["metrics"]["fairness"]["value"].as_f64().unwrap();
        assert!(fairness > 0.0 && fairness <= 1.0 + 1e-9, "{fairness}");
        if senders == 1 {
            assert_eq!(fairness, 1.0);
        }
        let roles: Vec<&str> = r["sides"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["receiver", "senders"]);
    }
}

#[test]
fn a_damaged_message_fails_the_case_naming_its_sender() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        &[
            "--mech",
            "pipe,tcp,udp,mq",
            "--param",
            "senders=8",
            "--param",
            "count=100",
            "--fault",
            "corrupt",
        ],
    );
    let rs = results(&out);
    assert_eq!(rs.len(), 4);
    for r in rs {
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(
            r["reason"],
            "verification failed: sender 4: message 0: payload differs from what was sent at byte 63"
        );
        assert_eq!(r["verified"]["ok"], false);
        assert!(r["metrics"].as_object().unwrap().is_empty());
    }
}

/// The receiver would wait for the quitter's messages until the case
/// timeout (300 s); the case fails at once instead, and the next runs.
#[test]
fn a_sender_that_quits_fails_the_case_at_once_naming_it_and_leaves_no_process() {
    let sb = Sandbox::new();
    let mechs = "pipe,fifo,unix-dgram,tcp,udp,mq";
    let args = [
        "run",
        "fan-in",
        "--mech",
        mechs,
        "--param",
        "senders=8",
        "--param",
        "count=100",
    ];
    let out = sb.run_failing_at_once(
        &args,
        "die-sender",
        "sender 4: quit after 1 message (the test-only fault die-sender)",
    );
    let ran: Vec<&str> = results(&out)
        .iter()
        .map(|r| r["params"]["mech"].as_str().unwrap())
        .collect();
    assert_eq!(ran.join(","), mechs);
}

#[test]
fn a_shared_pipe_takes_messages_up_to_pipe_buf_and_streams_any_size() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        &[
            "--mech",
            "pipe,fifo,unix-stream",
            "--param",
            "senders=2",
            "--param",
            "count=50",
            "--param",
            "size=4096,8192",
        ],
    );
    let status: Vec<(String, u64, String)> = results(&out)
        .iter()
        .map(|r| {
            let mech = r["params"]["mech"].as_str().unwrap().to_string();
            (mech, param(r, "size"), r["status"].as_str().unwrap().into())
        })
        .collect();
    for (mech, size, status) in &status {
        let want = if *size > 4096 && mech != "unix-stream" {
            "unsupported"
        } else {
            "ok"
        };
        assert_eq!(status, want, "{mech} {size}");
    }
    let reason = results(&out)
        .iter()
        .find(|r| r["params"]["mech"] == "fifo" && param(r, "size") == 8192)
        .map(|r| r["reason"].as_str().unwrap().to_string())
        .unwrap();
    assert_eq!(
        reason,
        "size 8192 is above PIPE_BUF (4096 bytes): writes to a fifo shared by several \
         senders are atomic only up to it, so larger messages could interleave"
    );
}

#[test]
fn mechanisms_that_cannot_fan_in_say_why_and_the_rest_run() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        &[
            "--mech",
            "pipe,eventfd,shm",
            "--param",
            "senders=2",
            "--param",
            "count=50",
        ],
    );
    let reasons: Vec<(String, String)> = results(&out)
        .iter()
        .map(|r| {
            let mech = r["params"]["mech"].as_str().unwrap().to_string();
            let why = r["reason"].as_str().unwrap_or("ok").to_string();
            (mech, why)
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("pipe".to_string(), "ok".to_string()),
            (
                "eventfd".into(),
                "eventfd carries a counter, not messages: no sender id or sequence to check".into()
            ),
            (
                "shm".into(),
                "shm has one producer per channel and no descriptor for a poller: fan-in needs either"
                    .into()
            ),
        ]
    );
}

#[test]
fn the_poller_applies_only_where_each_sender_has_its_own_channel() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        &[
            "--mech",
            "pipe,unix-stream",
            "--param",
            "senders=3",
            "--param",
            "count=50",
            "--param",
            "poller=poll,epoll-et",
        ],
    );
    let cases: Vec<&str> = results(&out)
        .iter()
        .map(|r| r["case"].as_str().unwrap())
        .collect();
    assert_eq!(
        cases,
        [
            "pipe/unpinned/processes/senders=3/64B",
            "unix-stream/unpinned/processes/senders=3/64B/poll",
            "unix-stream/unpinned/processes/senders=3/64B/epoll-et",
        ]
    );
    for r in results(&out) {
        let mech = r["params"]["mech"].as_str().unwrap();
        assert!(r["status"] == "ok" || drained_a_backlog(r, mech), "{r}");
    }
    assert!(results(&out)[0]["params"].get("poller").is_none());
}

#[test]
fn a_size_below_the_header_is_refused() {
    let sb = Sandbox::new();
    let err = sb.usage_error(&["run", "fan-in", "--param", "size=8", "--no-store"]);
    assert_eq!(
        err,
        "error: size=8 is too small for fan-in: every message carries its sender id and \
         sequence, at least 12 bytes\n"
    );
}

#[test]
fn too_few_descriptors_for_the_senders_is_unsupported_with_the_largest_that_fits() {
    let sb = Sandbox::new();
    let out = sb.under_ulimit(
        "-n 64",
        &[
            "run",
            "fan-in",
            "--mech",
            "unix-stream",
            "--param",
            "senders=2,64",
            "--param",
            // Enough messages that the socket buffers' backlog, filled
            // before the receiver's clock starts, is a small part of a
            // repetition (at 50 its rate read past the machine's bound).
            "count=20000",
            "--repeat",
            "1",
            "--no-store",
            "--json",
            "-",
        ],
    );
    let why = reason_past_the_limit(&out);
    assert!(
        why.starts_with("senders=64 needs ")
            && why.contains(" descriptors in the iolab process (5 per sender), above the hard RLIMIT_NOFILE of 64; the largest senders that fits is "),
        "{why}"
    );
}

#[test]
fn the_report_draws_throughput_against_senders_per_mechanism() {
    let sb = Sandbox::new();
    let db = sb.dir.path().join("runs.db");
    let db = db.to_str().unwrap();
    sb.iolab(&[
        "run",
        "fan-in",
        "--mech",
        "pipe,unix-dgram",
        "--param",
        "senders=1,2,4",
        "--param",
        "count=50",
        "--repeat",
        "1",
        "--quiet",
        "--db",
        db,
    ])
    .assert()
    .success();
    let html = sb.dir.path().join("report.html");
    sb.iolab(&[
        "report",
        "latest",
        "--db",
        db,
        "--html",
        html.to_str().unwrap(),
    ])
    .assert()
    .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("msgs per s by senders"), "no sweep chart");
    assert!(page.contains("senders (count)"), "no senders axis");
}
