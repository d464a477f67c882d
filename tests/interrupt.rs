//! Ctrl-C in the middle of a run: iolab exits 130, its peer processes are
//! gone, its temp dir and FIFOs removed, and nothing is stored.

mod common;
use common::{alive, children_of, Sandbox};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn interrupt_mid_run(mode: &str, mech: &str) {
    let sb = Sandbox::new();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
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
        ])
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
        let busy = mode == "threads" || kids.len() >= 2;
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
