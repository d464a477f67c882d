//! `iolab doctor` on real programs nobody here wrote: a shell pipeline
//! (dd into cat) and Python's multiprocessing.Pipe between two processes;
//! its bad input, the command's exit status passed through, Ctrl-C, and
//! nothing left behind.

mod common;

use common::{json, require, Sandbox};
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

/// Whether any process runs with `arg` on its command line.
fn process_with_arg(arg: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        cmdline.split(|b| *b == 0).any(|a| a == arg.as_bytes())
    })
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// `iolab doctor --json - ARGS`, its diagnosis and exit status.
fn doctor(sb: &Sandbox, args: &[&str]) -> (Value, i32) {
    let mut all = vec!["doctor", "--quiet", "--json", "-"];
    all.extend(args);
    let out = sb.command(&all).output().unwrap();
    (json(&out.stdout), out.status.code().unwrap_or(-1))
}

fn channels_of<'a>(d: &'a Value, comm: &str) -> Vec<&'a Value> {
    let pids: Vec<i64> = d["threads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["comm"] == comm)
        .map(|t| t["pid"].as_i64().unwrap())
        .collect();
    d["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| pids.contains(&c["channel"]["pid"].as_i64().unwrap()))
        .collect()
}

fn call<'a>(channel: &'a Value, name: &str) -> Option<&'a Value> {
    channel["calls"]
        .as_array()?
        .iter()
        .find(|c| c["syscall"] == name)
}

#[test]
fn a_shell_pipeline_shows_its_pipe_its_sizes_and_its_wake_ups() {
    if !require(is_root(), "root, for the tracer's per-thread tracepoints") {
        return;
    }
    let sb = Sandbox::new();
    let pipeline = "dd if=/dev/zero bs=64 count=3000000 status=none | cat > /dev/null";
    let (d, status) = doctor(&sb, &["--alternatives", "0", "--", "sh", "-c", pipeline]);
    assert_eq!(status, 0, "the pipeline's own status: {d}");
    assert_eq!(d["ending"], "exited");
    assert!(
        d["tracer"]["windows"].as_u64().unwrap() >= 2,
        "{}",
        d["tracer"]
    );
    let dd = channels_of(&d, "dd");
    let out = dd
        .iter()
        .find(|c| c["channel"]["kind"] == "pipe" && call(c, "write").is_some())
        .unwrap_or_else(|| panic!("dd's pipe with writes: {dd:?}"));
    let peers: Vec<&str> = out["channel"]["peers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["comm"].as_str().unwrap())
        .collect();
    assert!(
        peers.contains(&"cat"),
        "the pipe's other end is cat: {peers:?}"
    );
    assert_eq!(
        out["bytes_out"][0][0], 64,
        "64 bytes per write: {}",
        out["bytes_out"]
    );
    let cat = channels_of(&d, "cat");
    let input = cat
        .iter()
        .find(|c| c["channel"]["inode"] == out["channel"]["inode"])
        .expect("cat's end of the same pipe");
    assert!(call(input, "read").is_some(), "cat's reads: {input}");
    let read_sizes = input["bytes_in"].as_array().unwrap();
    assert!(!read_sizes.is_empty(), "the read sizes seen");
    assert!(
        read_sizes.iter().all(|s| s[0].as_u64().unwrap() % 64 == 0),
        "cat reads whole writes: {read_sizes:?}"
    );
    let woken =
        out["wakeups"]["count"].as_u64().unwrap() + input["wakeups"]["count"].as_u64().unwrap();
    assert!(woken > 0, "the wake-ups between them: {out} {input}");
}

const PING_PONG: &str = r#"
import multiprocessing as mp, time
def echo(conn):
    while True:
        m = conn.recv_bytes()
        if m == b"stop":
            return
        conn.send_bytes(m)
if __name__ == "__main__":
    a, b = mp.Pipe()
    p = mp.Process(target=echo, args=(b,))
    p.start()
    end = time.time() + 3
    while time.time() < end:
        a.send_bytes(b"x" * 100)
        assert a.recv_bytes() == b"x" * 100
    a.send_bytes(b"stop")
    p.join()
"#;

#[test]
fn python_multiprocessing_pipe_is_a_socketpair_with_its_round_trips() {
    let python = Command::new("python3").arg("-V").output().is_ok();
    if !require(python, "python3") || !require(is_root(), "root, for the tracer") {
        return;
    }
    let sb = Sandbox::new();
    let script = sb.dir.path().join("pingpong.py");
    std::fs::write(&script, PING_PONG).unwrap();
    let args = [
        "--alternatives",
        "2",
        "--alternatives-time",
        "8s",
        "--",
        "python3",
        script.to_str().unwrap(),
    ];
    let (d, status) = doctor(&sb, &args);
    assert_eq!(status, 0, "{d}");
    let busy: Vec<&Value> = d["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["channel"]["kind"] == "unix" && call(c, "write").is_some())
        .collect();
    assert!(busy.len() >= 2, "both processes' ends: {busy:?}");
    for end in &busy {
        assert_eq!(end["channel"]["ty"], "stream", "{end}");
        let peers = end["channel"]["peers"].as_array().unwrap();
        assert!(
            peers
                .iter()
                .any(|p| p["pid"] != end["channel"]["pid"] && p["comm"] == "python3"),
            "the other python process holds the other end: {end}\nunreadable: {}",
            d["unreadable"]
        );
        assert_eq!(end["process"], "python3");
        assert!(call(end, "write").unwrap()["per_s"].as_f64().unwrap() > 100.0);
        let sizes = end["bytes_out"].as_array().unwrap();
        assert!(
            sizes.iter().any(|s| s[0] == 100 || s[0] == 104),
            "the 100-byte messages (with their 4-byte header): {sizes:?}"
        );
    }
    let wakes: u64 = busy
        .iter()
        .map(|c| c["wakeups"]["count"].as_u64().unwrap())
        .sum();
    assert!(wakes > 0, "the round trips wake the other side");
    let woken: Vec<&Value> = d["threads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["comm"] == "python3" && t["woken"].as_u64().unwrap() > 0)
        .collect();
    assert!(woken.len() >= 2, "both sides are woken: {}", d["threads"]);
    assert!(woken
        .iter()
        .all(|t| t["wakeup_latency_median_ns"].as_f64().unwrap() > 0.0));
    // The busiest channels' alternatives, the socketpair's among them.
    let alternatives = d["alternatives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pattern"]["mechanism"] == "unix-stream")
        .unwrap_or_else(|| panic!("the socketpair's alternatives: {}", d["alternatives"]));
    let pattern = &alternatives["pattern"];
    assert_eq!(pattern["scenario"], "pingpong", "round trips: {pattern}");
    assert!(
        [100, 104].contains(&pattern["size"].as_u64().unwrap()),
        "{pattern}"
    );
    let options = alternatives["options"].as_array().unwrap();
    assert!(
        options.len() >= 4,
        "the program's and its alternatives: {options:?}"
    );
    let programs: Vec<&Value> = options.iter().filter(|o| o["programs"] == true).collect();
    assert_eq!(programs.len(), 1);
    assert!(programs[0]["spec"]
        .as_str()
        .unwrap()
        .starts_with("pingpong --mech unix-stream"));
    for o in options {
        assert!(o["median"].as_f64().unwrap() > 0.0, "{o}");
        let [median, lo, hi] = [0, 1, 2].map(|i| o["ratio"][i].as_f64().unwrap());
        assert!(lo <= median && median <= hi, "{o}");
        assert_eq!(o["unit"], "ns");
    }
    let medians: Vec<f64> = options
        .iter()
        .map(|o| o["ratio"][0].as_f64().unwrap())
        .collect();
    assert!(
        medians.windows(2).all(|w| w[0] <= w[1]),
        "ranked, fastest first: {medians:?}"
    );
    // The rounds' floor runs whatever the time cap.
    assert!(
        alternatives["rounds"].as_u64().unwrap() >= 3,
        "{alternatives}"
    );
}

#[test]
fn the_commands_exit_status_is_passed_through() {
    let sb = Sandbox::new();
    let (d, status) = doctor(&sb, &["--", "sh", "-c", "sleep 0.5; exit 7"]);
    assert_eq!(status, 7);
    assert_eq!(d["exit_status"], 7);
    assert_eq!(d["ending"], "exited");
}

#[test]
fn for_ends_the_watch_and_stops_the_command_and_all_it_started() {
    let sb = Sandbox::new();
    let marker = "37.0417";
    let script = format!("sleep {marker} & sleep {marker}; wait");
    let (d, status) = doctor(&sb, &["--for", "1s", "--", "sh", "-c", &script]);
    assert_eq!(d["ending"], "time_up");
    assert_eq!(status, 137, "killed by doctor at the end of --for");
    assert!(!process_with_arg(marker), "a sleep was left running");
}

#[test]
fn ctrl_c_ends_the_watch_prints_the_summary_and_leaves_nothing() {
    let sb = Sandbox::new();
    let marker = "38.0417";
    let mounted = common::tracefs_mounts();
    let child = sb
        .command(&["doctor", "--", "sleep", marker])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{text}");
    assert!(text.contains("until interrupted"), "{text}");
    assert!(!process_with_arg(marker), "the command was left running");
    common::assert_no_tracefs_mount_added(mounted);
}

#[test]
fn a_process_watched_by_pid_is_left_running_and_unchanged() {
    let sb = Sandbox::new();
    let mut sleeper = Command::new("sleep").arg("39.0417").spawn().unwrap();
    let pid = sleeper.id().to_string();
    let (d, status) = doctor(&sb, &["--pid", &pid, "--for", "1s"]);
    assert_eq!(status, 0);
    assert_eq!(d["ending"], "time_up");
    assert_eq!(d["command"], "sleep");
    assert!(
        sleeper.try_wait().unwrap().is_none(),
        "doctor must not stop what it watches"
    );
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let sb = Sandbox::new();
    let cases: [(&[&str], &str); 5] = [
        (&["--pid", "999999999"], "--pid 999999999: no such process"),
        (&["--pid", "abc"], "--pid \"abc\": expected a process id"),
        (
            &["--for", "0", "--", "true"],
            "--for \"0\": expected a duration above zero",
        ),
        (
            &["--", "/no/such/iolab-command"],
            "cannot start \"/no/such/iolab-command\"",
        ),
        (&[], "doctor needs a process"),
    ];
    for (args, message) in cases {
        let mut all = vec!["doctor"];
        all.extend(args);
        let out = sb.command(&all).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn another_users_process_is_refused() {
    if !require(is_root(), "root, to run doctor as another user") {
        return;
    }
    let sb = Sandbox::new();
    let bin = assert_cmd::cargo::cargo_bin("iolab");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args(["doctor", "--pid", "1"])
        .env("TMPDIR", sb.tmp())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--pid 1: the process belongs to uid 0, not to you (uid 65534)"),
        "{err}"
    );
}

#[test]
fn without_privileges_proc_still_gives_the_channels_and_the_tracer_says_why_not() {
    if !require(
        is_root(),
        "root, to run doctor and its target as another user",
    ) {
        return;
    }
    let sb = Sandbox::new();
    let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    let script = "exec 3<>/dev/null; sleep 40.0417 | cat";
    let mut target = Command::new("setpriv")
        .args(nobody)
        .args(["sh", "-c", script])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let pid = target.id().to_string();
    let bin = assert_cmd::cargo::cargo_bin("iolab");
    let out = Command::new("setpriv")
        .args(nobody)
        .arg(&bin)
        .args([
            "doctor",
            "--quiet",
            "--json",
            "-",
            "--children",
            "--for",
            "1s",
            "--pid",
            &pid,
        ])
        .env("TMPDIR", sb.tmp())
        .output()
        .unwrap();
    let _ = target.kill();
    let _ = target.wait();
    let _ = Command::new("pkill").args(["-f", "sleep 40.0417"]).status();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = json(&out.stdout);
    let why = d["tracer"]["unavailable"]
        .as_str()
        .expect("the tracer names why it is off");
    assert!(
        why.contains("perf_event_open") || why.contains("tracefs"),
        "{why}"
    );
    let pipes: Vec<&Value> = d["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["channel"]["kind"] == "pipe")
        .collect();
    assert!(
        pipes.iter().any(|c| c["process"] == "sleep")
            && pipes.iter().any(|c| c["process"] == "cat"),
        "the pipeline's pipe from /proc alone: {pipes:?}"
    );
    assert!(
        d["threads"].as_array().unwrap().len() >= 3,
        "sh, sleep and cat: {}",
        d["threads"]
    );
}
