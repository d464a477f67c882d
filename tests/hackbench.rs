//! `hackbench` through the binary: every receiver gets `loops` messages of
//! 100 bytes from each of its group's 20 senders, a damaged message fails
//! the case naming the receiver and the sender, a sender that quits fails
//! it at once by its place, other mechanisms and
//! threads are unsupported with the reason, and too few descriptors for
//! the groups names the most that fit.

mod common;
use common::{reason_past_the_limit, results, Sandbox};
use serde_json::Value;

fn run(sb: &Sandbox, extra: &[&str]) -> Value {
    let mut args = vec!["run", "hackbench", "--no-store", "--json", "-"];
    args.extend(extra);
    sb.run_json(&args)
}

#[test]
fn every_receiver_gets_each_senders_messages_over_pipes_and_sockets() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        &[
            "--param",
            "groups=1,2",
            "--param",
            "loops=10",
            "--repeat",
            "2",
        ],
    );
    let rs = results(&out);
    let cases: Vec<&str> = rs.iter().map(|r| r["case"].as_str().unwrap()).collect();
    assert_eq!(
        cases,
        [
            "pipe/unpinned/processes/groups=1/loops=10",
            "unix-stream/unpinned/processes/groups=1/loops=10",
            "pipe/unpinned/processes/groups=2/loops=10",
            "unix-stream/unpinned/processes/groups=2/loops=10",
        ]
    );
    for r in rs {
        assert_eq!(r["status"], "ok", "{r}");
        let groups = r["params"]["groups"].as_u64().unwrap();
        // 20 senders x 20 receivers x 10 loops per group, twice.
        let messages = groups * 20 * 20 * 10 * 2;
        assert_eq!(r["verified"]["ok"], true);
        assert_eq!(r["verified"]["messages"], messages);
        assert_eq!(r["verified"]["bytes"], messages * 100);
        assert_eq!(r["headline"], "seconds");
        for metric in ["seconds", "msgs_per_s"] {
            assert_eq!(r["metrics"][metric]["reps"].as_array().unwrap().len(), 2);
        }
        let roles: Vec<&str> = r["sides"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["receivers", "senders"]);
    }
    // One verdict per point: the faster mechanism against the slower, or
    // the two about the same (which, depends on the host's moment).
    let verdicts: Vec<&str> = out["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["scenario"] == "hackbench")
        .map(|v| v["text"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts.len(), 2, "{verdicts:?}");
    for (line, groups) in verdicts.iter().zip([1, 2]) {
        let tail = format!("(hackbench, unpinned, groups={groups} loops=10, total time)");
        let pair = ["pipe ", "unix-stream "]
            .iter()
            .any(|m| line.starts_with(m));
        assert!(pair && line.contains(&tail), "{line}");
    }
}

#[test]
fn a_damaged_message_names_its_receiver_and_sender() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        &[
            "--param", "groups=2", "--param", "loops=5", "--repeat", "1", "--fault", "corrupt",
        ],
    );
    for r in results(&out) {
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(
            r["reason"],
            "verification failed: receiver 0 of group 0: sender 10: message 0: \
             payload differs from what was sent at byte 99"
        );
        assert_eq!(r["verified"]["ok"], false);
        // Every receiver still read all it was sent.
        assert_eq!(r["verified"]["messages"], 2 * 20 * 20 * 5);
        assert!(r["metrics"].as_object().unwrap().is_empty());
    }
}

/// Its group's receivers would wait for the quitter's messages until the
/// case timeout (300 s); the case fails at once instead, and the next runs.
#[test]
fn a_sender_that_quits_fails_the_case_at_once_naming_it_and_leaves_no_process() {
    let sb = Sandbox::new();
    let args = [
        "run",
        "hackbench",
        "--param",
        "groups=1,2,3",
        "--param",
        "loops=5",
    ];
    let out = sb.run_failing_at_once(
        &args,
        "die-sender",
        "sender 10 of group 0: quit after 1 message (the test-only fault die-sender)",
    );
    assert_eq!(results(&out).len(), 6, "every case ran");
}

#[test]
fn other_mechanisms_and_threads_are_unsupported_with_the_reason() {
    let sb = Sandbox::new();
    let out = run(
        &sb,
        &["--mech", "tcp", "--param", "groups=1", "--param", "loops=5"],
    );
    assert_eq!(results(&out)[0]["status"], "unsupported");
    assert_eq!(
        results(&out)[0]["reason"],
        "hackbench runs over pipe (hackbench -p) or unix-stream (its socketpairs), not tcp"
    );
    let out = run(
        &sb,
        &[
            "--mode", "threads", "--param", "groups=1", "--param", "loops=5",
        ],
    );
    for r in results(&out) {
        assert_eq!(r["status"], "unsupported");
        assert_eq!(
            r["reason"],
            "hackbench here runs processes (perf's default); threads (-t) are not built"
        );
    }
}

#[test]
fn too_few_descriptors_for_the_groups_names_the_most_that_fit() {
    let sb = Sandbox::new();
    let out = sb.under_ulimit(
        "-n 256",
        &[
            "run",
            "hackbench",
            "--mech",
            "pipe",
            "--param",
            "groups=1,10",
            "--param",
            "loops=5",
            "--repeat",
            "1",
            "--no-store",
            "--json",
            "-",
        ],
    );
    let why = reason_past_the_limit(&out);
    assert!(
        why.starts_with("groups=10 needs ")
            && why.ends_with(
                "descriptors in the iolab process (120 per group), above the hard \
                 RLIMIT_NOFILE of 256; the largest groups that fits is 1"
            ),
        "{why}"
    );
}
