//! The `sysv-msg` mechanism leaves no System V queue behind: after runs in
//! both modes, a failed case, a usage error and Ctrl-C, /proc/sysvipc/msg
//! (what `ipcs -q` reads) lists as many queues as before.

mod common;
use common::mech::{corrupted_run, here, interrupted, verified_run};
use common::Sandbox;

/// The tests count the queues of the whole machine: one at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

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
    let _one = serial();
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

/// The queue ids a run of `pid` noted in `TMPDIR/iolab-<pid>-*/sysv-msg/`.
fn noted(tmp: &std::path::Path, pid: u32) -> Vec<String> {
    let prefix = format!("iolab-{pid}-");
    let Ok(dirs) = std::fs::read_dir(tmp) else {
        return Vec::new();
    };
    let run_dir = dirs
        .flatten()
        .find(|d| d.file_name().to_string_lossy().starts_with(&prefix));
    let Some(notes) = run_dir.and_then(|d| std::fs::read_dir(d.path().join("sysv-msg")).ok())
    else {
        return Vec::new();
    };
    let ids = notes
        .flatten()
        .map(|n| n.file_name().to_string_lossy().to_string());
    ids.collect()
}

/// System V queues once survived SIGKILL and the next run did not sweep
/// them, unlike every other leftover: the next run removes them now.
#[test]
fn a_sigkilled_runs_queues_are_swept_by_the_next_run() {
    let _one = serial();
    if here("sysv-msg") {
        killed_then_swept(true);
    }
}

/// A run killed by SIGKILL whose parent has not reaped it yet (a slow
/// PID 1 does that) is a zombie: its queues stayed until a later run,
/// because the sweep counted the zombie as alive.
#[test]
fn a_killed_run_left_a_zombie_still_has_its_queues_swept() {
    let _one = serial();
    if here("sysv-msg") {
        killed_then_swept(false);
    }
}

/// The state letter of `pid` in /proc (`Z` for a zombie).
fn state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    after.chars().next().unwrap()
}

/// Kills a run of sysv-msg once it has its queues (reaping it when
/// `reap`, else leaving it a zombie); the next run must sweep them.
fn killed_then_swept(reap: bool) {
    use std::time::{Duration, Instant};
    let before = queues();
    let sb = Sandbox::new();
    let mut child = sb.spawn(&[
        "run",
        "pingpong",
        "--mech=sysv-msg",
        "--placement=same-cpu",
        "--mode=threads",
        "--param=count=1000M",
        "--repeat=1",
        "--no-store",
    ]);
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(20);
    let ids = loop {
        let ids = noted(&sb.tmp(), pid);
        if ids.len() == 2 {
            break ids;
        }
        assert!(Instant::now() < deadline, "the run noted no queues");
        std::thread::sleep(Duration::from_millis(20));
    };
    let pid_fd = rustix::process::Pid::from_raw(pid as i32).unwrap();
    rustix::process::kill_process(pid_fd, rustix::process::Signal::KILL).unwrap();
    if reap {
        child.wait().unwrap();
    } else {
        while state(pid) != 'Z' {
            assert!(Instant::now() < deadline, "the run never died");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let left = queues();
    assert!(
        ids.iter().all(|id| left.contains(id)),
        "{ids:?} not in {left:?}"
    );
    let out = sb
        .iolab(&["run", "limits", "-p", "count=1000", "-q", "--no-store"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    for id in &ids {
        let line = format!(
            "removed stale System V message queue {id}, left by iolab process {pid}, which is gone"
        );
        assert!(stderr.contains(&line), "{stderr}");
    }
    assert_clean(&before, "the sweep after SIGKILL");
    child.wait().unwrap();
    sb.assert_tmp_empty();
}
