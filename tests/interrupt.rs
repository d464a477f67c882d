//! Ctrl-C in the middle of a run: iolab exits 130, its peer processes are
//! gone, its temp dir and FIFOs removed, and nothing is stored.

mod common;
use common::{alive, children_of, Sandbox};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn interrupt_mid_run(mode: &str, mech: &str) {
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
    );
}

/// Starts `iolab ARGS`, waits until it has `peers` child processes and its
/// temp dir, sends SIGINT and checks that nothing is left.
fn interrupt_run(args: &[&str], peers: usize) {
    let sb = Sandbox::new();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
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
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exit status after Ctrl-C");
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

#[test]
fn ctrl_c_stops_processes_and_removes_fifos() {
    interrupt_mid_run("processes", "fifo");
}

#[test]
fn ctrl_c_stops_threads() {
    interrupt_mid_run("threads", "pipe");
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
    );
}
