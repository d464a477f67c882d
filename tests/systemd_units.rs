//! `contrib/systemd/`: the fleet host's service and timer are what
//! `systemd-analyze verify` accepts without a word, and run the quick suite
//! at low priority, pushing. Without systemd-analyze the test skips, saying
//! why (`require`).

mod common;

use common::{find_program, require};
use std::path::Path;
use std::process::Command;

const UNITS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/contrib/systemd");

/// Where the service expects iolab (`cargo install --root /usr/local`).
const INSTALLED: &str = "/usr/local/bin/iolab";

fn unit(name: &str) -> String {
    std::fs::read_to_string(Path::new(UNITS).join(name)).unwrap()
}

#[test]
fn the_service_runs_the_quick_suite_at_low_priority_and_pushes() {
    let service = unit("iolab-fleet.service");
    let lines: Vec<&str> = service.lines().collect();
    for setting in [
        "Type=oneshot",
        "Nice=19",
        "IOSchedulingClass=idle",
        "CPUSchedulingPolicy=batch",
        "EnvironmentFile=/etc/iolab/fleet.env",
    ] {
        assert!(lines.contains(&setting), "no {setting}:\n{service}");
    }
    let exec = lines
        .iter()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("an ExecStart");
    let words: Vec<&str> = exec.split_whitespace().collect();
    assert_eq!(words[..2], [INSTALLED, "run"], "{exec}");
    assert!(exec.contains("--push ${IOLAB_FLEET}"), "{exec}");
    let timer = unit("iolab-fleet.timer");
    for setting in [
        "OnCalendar=*-*-* 03:00:00",
        "Persistent=true",
        "WantedBy=timers.target",
    ] {
        assert!(
            timer.lines().any(|l| l == setting),
            "no {setting}:\n{timer}"
        );
    }
}

#[test]
fn systemd_analyze_verify_accepts_the_units() {
    let Some(analyze) = find_program(&["systemd-analyze"]) else {
        require(
            false,
            "systemd-analyze, to verify contrib/systemd (Debian: apt-get install systemd)",
        );
        return;
    };
    // verify checks that ExecStart's program exists and is executable: the
    // copy it reads runs this build's iolab instead of /usr/local/bin/iolab,
    // which a test machine need not have; the rest is the unit as shipped.
    let dir = tempfile::tempdir().unwrap();
    let iolab = assert_cmd::cargo::cargo_bin("iolab");
    let service = unit("iolab-fleet.service");
    let exec = format!("ExecStart={INSTALLED} ");
    assert_eq!(service.matches(&exec).count(), 1, "{service}");
    let service = service.replace(&exec, &format!("ExecStart={} ", iolab.display()));
    std::fs::write(dir.path().join("iolab-fleet.service"), service).unwrap();
    std::fs::write(
        dir.path().join("iolab-fleet.timer"),
        unit("iolab-fleet.timer"),
    )
    .unwrap();
    // Its Documentation= names iolab's man pages: `iolab man --dir` makes
    // them, where man (if any) finds them.
    let man = dir.path().join("man");
    let made = Command::new(&iolab)
        .args(["man", "--dir"])
        .arg(man.join("man1"))
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let mut verify = Command::new(analyze);
    verify
        .current_dir(dir.path())
        .env("MANPATH", &man)
        .arg("verify");
    if find_program(&["man"]).is_none() {
        verify.arg("--man=no");
    }
    let out = verify
        .args(["iolab-fleet.service", "iolab-fleet.timer"])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "systemd-analyze verify: {said}");
    assert!(
        said.trim().is_empty(),
        "systemd-analyze verify warned: {said}"
    );
}
