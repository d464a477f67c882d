//! The `sysv-msg` mechanism leaves no System V queue behind: after runs in
//! both modes, a failed case, a usage error and Ctrl-C, /proc/sysvipc/msg
//! (what `ipcs -q` reads) lists as many queues as before.

mod common;
use common::mech::{corrupted_run, here, interrupted, verified_run};
use common::Sandbox;

/// The ids of the System V message queues that exist now.
fn queues() -> Vec<String> {
    let table = std::fs::read_to_string("/proc/sysvipc/msg").unwrap();
    let ids = table
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(1));
    ids.map(str::to_string).collect()
}

fn assert_clean(before: &[String], after: &str) {
    assert_eq!(queues(), before, "queues after {after}");
}

#[test]
fn no_queue_remains_after_runs_errors_and_ctrl_c() {
    if !here("sysv-msg") {
        return;
    }
    let before = queues();
    let sb = Sandbox::new();
    for mode in ["threads", "processes"] {
        verified_run(&sb, "sysv-msg", "pingpong", mode, &["count=200"]);
        assert_clean(&before, &format!("pingpong in {mode}"));
    }
    let params = ["test=both", "duration=40ms", "interval=20ms"];
    verified_run(&sb, "sysv-msg", "contention", "processes", &params);
    corrupted_run(&sb, "sysv-msg", "pingpong", &["count=200"]);
    assert_clean(&before, "contention and a failed case");
    let args = ["run", "stream", "--mech", "sysv-msg", "--param", "size=1M"];
    let err = sb.usage_error(&args);
    assert!(err.contains("above what sysv-msg carries"), "{err}");
    assert_clean(&before, "a usage error");
    for mode in ["processes", "threads"] {
        interrupted("sysv-msg", mode);
        assert_clean(&before, &format!("Ctrl-C in {mode}"));
    }
}
