//! Ctrl-C (SIGINT) or SIGTERM in the middle of a run: iolab names the
//! signal, exits 128 + the signal (130, 143), its peer processes are gone,
//! its temp dir and FIFOs removed, and nothing is stored.

mod common;
use common::{alive, children_of, Sandbox};
use rustix::process::Signal;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn interrupt_mid_run(mode: &str, mech: &str, signal: Signal) {
    let peers = if mode == "threads" { 0 } else { 2 };
    interrupt_run(
        &[
            "run",
            "pingpong",
            "--mech",
            mech,
            "--mode",
            mode,
            "--param",
            "count=100M",
            "--repeat",
            "1",
        ],
        peers,
        signal,
    );
}

fn interrupt_run(args: &[&str], peers: usize, signal: Signal) {
    interrupt_run_checking(args, peers, signal, &|_| {});
}

/// Starts `iolab ARGS`, waits until it has `peers` child processes and its
/// temp dir, runs `mid` on its pid, sends `signal` (SIGINT or SIGTERM) and
/// checks that iolab names it, exits 128 + it, and leaves nothing.
fn interrupt_run_checking(args: &[&str], peers: usize, signal: Signal, mid: &dyn Fn(u32)) {
    let sb = Sandbox::new();
    let child = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(args)
        .env("TMPDIR", sb.tmp())
        .env("XDG_DATA_HOME", sb.dir.path().join("data"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(20);
    let peers = loop {
        let kids = children_of(pid);
        let busy = kids.len() >= peers;
        if busy && std::fs::read_dir(sb.tmp()).unwrap().count() > 0 {
            std::thread::sleep(Duration::from_millis(200));
            break kids;
        }
        assert!(Instant::now() < deadline, "the run did not start its peers");
        std::thread::sleep(Duration::from_millis(20));
    };
    mid(pid);
    rustix::process::kill_process(rustix::process::Pid::from_raw(pid as i32).unwrap(), signal)
        .unwrap();
    let out = wait_or_kill(child, Duration::from_secs(30));
    let (code, said) = match signal {
        Signal::TERM => (143, "interrupted: stopped by SIGTERM, nothing stored\n"),
        _ => (
            130,
            "interrupted: stopped by SIGINT (Ctrl-C), nothing stored\n",
        ),
    };
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit status after {signal:?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.ends_with(said), "stderr: {stderr}");
    for peer in peers {
        assert!(!alive(peer), "peer process {peer} outlived the run");
    }
    sb.assert_tmp_empty();
    let history = sb
        .iolab(&["history"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&history),
        "no runs stored yet: `iolab run` makes one\n"
    );
}

/// Waits for `child`; one that has not exited after `limit` is hung: it is
/// killed (its status is then no exit code) so the test fails, not hangs.
fn wait_or_kill(child: std::process::Child, limit: Duration) -> std::process::Output {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    let (exited, watched) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if watched.recv_timeout(limit).is_err() {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    });
    let out = child.wait_with_output().unwrap();
    drop(exited);
    watchdog.join().unwrap();
    out
}

#[test]
fn ctrl_c_stops_processes_and_removes_fifos() {
    interrupt_mid_run("processes", "fifo", Signal::INT);
}

#[test]
fn ctrl_c_stops_threads() {
    interrupt_mid_run("threads", "pipe", Signal::INT);
}

/// Each mechanism's peer threads (its own, as futex, signal, vmsplice and
/// io_uring start) end at the first signal, whichever it is.
#[test]
fn the_first_signal_stops_every_mechanism_in_threads_mode() {
    let mechanisms = mechanism_names(&Sandbox::new().stdout(&["list"]));
    assert!(mechanisms.len() >= 17, "{mechanisms:?}");
    for (i, mech) in mechanisms.iter().enumerate() {
        let signal = [Signal::INT, Signal::TERM][i % 2];
        interrupt_mid_run("threads", mech, signal);
    }
}

/// The first column of `iolab list`'s mechanism table.
fn mechanism_names(listed: &str) -> Vec<String> {
    let table = listed
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("mechanism "));
    table
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// The scenarios whose two sides borrow from the caller (`side::both`):
/// the first signal reaches both scoped threads.
#[test]
fn the_first_signal_stops_the_scoped_threads_of_pipe_atime_and_contention() {
    for args in [
        &[
            "run",
            "pipe-atime",
            "--param",
            "count=1000M",
            "--repeat",
            "1",
        ][..],
        &[
            "run",
            "contention",
            "--param",
            "test=two-readers",
            "--param",
            "duration=60s",
            "--repeat",
            "1",
        ][..],
    ] {
        interrupt_run(args, 0, Signal::INT);
    }
}

#[test]
fn sigterm_is_named_and_exits_143() {
    interrupt_mid_run("processes", "fifo", Signal::TERM);
}

#[test]
fn sigterm_stops_threads_too() {
    interrupt_mid_run("threads", "pipe", Signal::TERM);
}

#[test]
fn ctrl_c_stops_sixty_four_pairs() {
    interrupt_run(
        &[
            "run",
            "pingpong",
            "--mech",
            "pipe",
            "--param",
            "pairs=64",
            "--param",
            "count=100M",
            "--repeat",
            "1",
        ],
        128,
        Signal::INT,
    );
}

#[test]
fn ctrl_c_stops_the_server_client_and_idle_holder() {
    interrupt_run(
        &[
            "run",
            "poll-scale",
            "--param",
            "poller=epoll-lt",
            "--param",
            "idle=50",
            "--param",
            "requests=100M",
            "--repeat",
            "1",
        ],
        3,
        Signal::INT,
    );
}

#[test]
fn ctrl_c_stops_fan_in_receiver_and_senders() {
    interrupt_run(
        &[
            "run",
            "fan-in",
            "--mech",
            "mq",
            "--param",
            "senders=8",
            "--param",
            "count=100M",
            "--repeat",
            "1",
        ],
        9,
        Signal::INT,
    );
}

#[test]
fn sigterm_stops_every_hackbench_process() {
    interrupt_run(
        &[
            "run",
            "hackbench",
            "--mech",
            "pipe",
            "--param",
            "groups=1",
            "--param",
            "loops=100M",
            "--repeat",
            "1",
        ],
        40,
        Signal::TERM,
    );
}

/// The perf_event fds process `pid` holds.
fn perf_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter(|target| target.to_string_lossy().contains("perf_event"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn ctrl_c_ends_the_scheduler_tracer_and_the_profiler() {
    if !common::require(common::is_root(), "root, for scheduler tracepoints") {
        return;
    }
    let mounted = common::tracefs_mounts();
    let args = [
        "run",
        "pingpong",
        "--mech",
        "pipe",
        "--param",
        "count=100M",
        "--repeat",
        "1",
        "--explain",
        "--profile",
    ];
    interrupt_run_checking(&args, 2, Signal::INT, &|pid| {
        assert!(perf_fds(pid) > 0, "no tracer or profiler open mid-run");
    });
    common::assert_no_tracefs_mount_added(mounted);
}

/// The outputs are made before the run measures (issue 52): a signal
/// mid-run removes the temp files they were being made as, and writes
/// none of them.
#[test]
fn an_interrupted_run_leaves_none_of_its_outputs() {
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("run.json");
    let prom = out.path().join("run.prom");
    let names = |dir: &std::path::Path| -> Vec<String> {
        let entries = std::fs::read_dir(dir).unwrap().flatten();
        entries
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    let mut args = vec!["run", "pingpong", "--mech", "pipe", "--param", "count=100M"];
    args.extend(["--repeat", "1", "--json", json.to_str().unwrap()]);
    args.extend(["--openmetrics", prom.to_str().unwrap()]);
    let made = |_: u32| {
        let made = names(out.path());
        assert_eq!(made.len(), 2, "{made:?}");
        assert!(made.iter().all(|n| n.starts_with(".iolab-")), "{made:?}");
    };
    interrupt_run_checking(&args, 2, Signal::INT, &made);
    assert_eq!(names(out.path()), Vec::<String>::new());
}
