//! `iolab run` prints each scenario's table as soon as that scenario
//! finished, its verdicts right below it, and the run's claims and summary
//! line at the end; nothing on stdout with --quiet, and only JSON when
//! `--json -` takes stdout.

mod common;
use common::Sandbox;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Two small scenarios: the `limits` reference point, then pingpong over
/// one mechanism, which is held against it.
const TWO_SCENARIOS: [&str; 14] = [
    "run",
    "limits",
    "pingpong",
    "--param",
    "probe=syscall",
    "--param",
    "count=2000",
    "--mech",
    "pipe",
    "--placement",
    "same-cpu",
    "--repeat",
    "1",
    "--no-store",
];

fn position(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("{needle:?} missing in\n{text}"))
}

#[test]
fn tables_come_in_scenario_order_and_the_summary_last() {
    let sb = Sandbox::new();
    let text = sb.stdout(&TWO_SCENARIOS);
    let limits = position(&text, "== limits ==\n");
    let syscall = position(&text, "\n syscall ");
    // Measured after limits, pingpong's table already holds it to syscall_ns.
    let pingpong = position(&text, "\n== pingpong == (round-trip latency)\n");
    let row = position(&text, "\n pipe/same-cpu/processes/1 B ");
    let summary = position(&text, "\n2 results: 2 ok, 0 failed, 0 unsupported\n");
    assert!(limits < syscall && syscall < pingpong, "{text}");
    assert!(pingpong < row && row < summary, "{text}");
    // The summary, then the host's state through the run, last.
    let host = position(&text, "\nhost: ");
    assert!(summary < host, "{text}");
    let last = text.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("host: quiet: ") || last.starts_with("host: busy ("),
        "{text}"
    );
    assert!(last.contains(" samples over "), "{last}");
    assert_eq!(text.matches("== limits ==").count(), 1, "{text}");
    assert_eq!(text.matches("== pingpong ==").count(), 1, "{text}");
    sb.assert_tmp_empty();
}

#[test]
fn quiet_and_json_on_stdout_print_no_table() {
    let sb = Sandbox::new();
    let mut quiet = TWO_SCENARIOS.to_vec();
    quiet.push("--quiet");
    assert_eq!(sb.stdout(&quiet), "");
    let mut json = TWO_SCENARIOS.to_vec();
    json.extend(["--json", "-"]);
    let run = common::json(sb.stdout(&json).as_bytes());
    assert_eq!(common::results(&run).len(), 2);
}

/// A run that a failing test does not leave running for its hour.
struct Stopped(std::process::Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The limits table is on stdout while the next scenario still runs: it
/// survives a Ctrl-C that stops the run (which prints nothing at its end).
#[test]
fn a_scenario_table_is_printed_before_the_run_ends() {
    let sb = Sandbox::new();
    let mut child = Stopped(
        Command::new(assert_cmd::cargo::cargo_bin("iolab"))
            .args([
                "run",
                "limits",
                "contention",
                "--param",
                "probe=syscall",
                "--param",
                "count=2000",
                "--param",
                "test=reader-only",
                "--param",
                "duration=300s",
                "--mech",
                "pipe",
                "--placement",
                "same-cpu",
                "--repeat",
                "1",
                "--no-store",
            ])
            .env("TMPDIR", sb.tmp())
            .env("XDG_DATA_HOME", sb.dir.path().join("data"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (lines, seen) = mpsc::channel();
    let out = BufReader::new(child.0.stdout.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in out.lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
            let _ = lines.send(line);
        }
        all
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    // The table ends with a blank line.
    let mut in_limits = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = seen
            .recv_timeout(left)
            .expect("the limits table before the run ends");
        in_limits |= line == "== limits ==";
        if in_limits && line.is_empty() {
            break;
        }
    }
    let pid = rustix::process::Pid::from_raw(child.0.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    assert_eq!(child.0.wait().unwrap().code(), Some(130));
    let text = reader.join().unwrap();
    assert!(text.starts_with("== limits ==\n"), "{text}");
    assert!(text.contains("\n syscall "), "{text}");
    assert!(
        !text.contains("== contention") && !text.contains("results:"),
        "{text}"
    );
    sb.assert_tmp_empty();
}
