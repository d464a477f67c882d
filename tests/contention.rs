//! `contention` through the binary: every test for every default
//! mechanism, each with a per-call histogram, time series and verdicts; and
//! its CPU hogs and sides are gone after the run and after Ctrl-C.

mod common;
use common::{alive, children_of, results, Sandbox};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn all_cases_have_histograms_series_and_verdicts() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "contention",
        "--param",
        "duration=60ms",
        "--param",
        "interval=20ms",
        "--param",
        "hogs=1",
        "--repeat",
        "1",
        "--json",
        "-",
    ]);
    let res = results(&run);
    assert_eq!(res.len(), 20, "4 tests x 5 mechanisms");
    for mech in ["fifo", "pipe", "eventfd", "udp", "unix-dgram"] {
        for test in ["reader-only", "writer-only", "both", "both+hogs"] {
            let case = format!("{mech}/unpinned/processes/{test}");
            let r = res
                .iter()
                .find(|r| r["case"] == case.as_str())
                .unwrap_or_else(|| panic!("no case {case}"));
            assert_eq!(r["status"], "ok", "{case}: {}", r["reason"]);
            assert_eq!(r["verified"]["ok"], true, "{case}");
            assert_eq!(r["latency"]["kind"], "per-call", "{case}");
            assert!(r["latency"]["count"].as_u64().unwrap() > 0, "{case}");
            let series = r["series"].as_array().unwrap();
            let sides = if test.starts_with("both") { 2 } else { 1 };
            assert_eq!(series.len(), 3 * sides, "{case}");
            assert!(series
                .iter()
                .all(|s| !s["points"].as_array().unwrap().is_empty()));
            let role = if test == "writer-only" {
                "writer"
            } else {
                "reader"
            };
            assert!(
                r["metrics"][format!("{role}_calls_per_s")]["value"].is_number(),
                "{case}"
            );
            let hogs = r["metrics"]["hogs"]["value"].as_f64().unwrap();
            assert_eq!(hogs, if test == "both+hogs" { 1.0 } else { 0.0 }, "{case}");
        }
    }
    let verdicts: Vec<&str> = run["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["scenario"] == "contention")
        .map(|v| v["text"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts.len(), 6, "{verdicts:?}");
    assert!(verdicts[5].starts_with("this kernel"), "{verdicts:?}");
    sb.assert_tmp_empty();
}

#[test]
fn shm_takes_part_when_asked() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "contention",
        "--mech",
        "shm",
        "--param",
        "wake=spin,futex",
        "--param",
        "test=both",
        "--param",
        "duration=50ms",
        "--repeat",
        "1",
        "--mode",
        "threads",
        "--no-store",
        "--json",
        "-",
    ]);
    let res = results(&run);
    assert_eq!(res.len(), 2);
    for r in res {
        assert_eq!(r["status"], "ok", "{}", r["reason"]);
        let m = |name: &str| r["metrics"][name]["value"].as_f64().unwrap();
        let moved = m("reader_transfers");
        assert!(moved >= 1.0, "the reader received nothing: {r}");
        assert!(moved <= m("reader_calls"), "more transfers than calls: {r}");
        assert!(
            moved <= m("writer_transfers"),
            "read more than written: {r}"
        );
        assert_eq!(r["verified"]["messages"].as_f64(), Some(moved), "{r}");
    }
}

/// Starts a both+hogs run with 2 hogs; returns it once all four children
/// (two sides, two hogs) are seen, with their pids. The caller waits.
#[allow(clippy::zombie_processes)]
fn start_with_hogs(sb: &Sandbox, duration: &str) -> (std::process::Child, Vec<u32>) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "contention",
            "--mech",
            "pipe",
            "--param",
            "test=both+hogs",
            "--param",
            "hogs=2",
            "--param",
            &format!("duration={duration}"),
            "--repeat",
            "1",
            "--no-store",
        ])
        .env("TMPDIR", sb.tmp())
        .env("XDG_DATA_HOME", sb.dir.path().join("data"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let kids = children_of(child.id());
        if kids.len() >= 4 {
            return (child, kids);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not start its hogs and sides");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn hogs_and_sides_are_gone_after_the_run() {
    let sb = Sandbox::new();
    let (mut child, kids) = start_with_hogs(&sb, "1s");
    let status = child.wait().unwrap();
    assert!(status.success());
    for pid in kids {
        assert!(!alive(pid), "process {pid} outlived the run");
    }
    sb.assert_tmp_empty();
}

#[test]
fn hogs_and_sides_are_gone_after_ctrl_c() {
    let sb = Sandbox::new();
    let (mut child, kids) = start_with_hogs(&sb, "60s");
    std::thread::sleep(Duration::from_millis(200));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    for pid in kids {
        assert!(!alive(pid), "process {pid} outlived the run");
    }
    sb.assert_tmp_empty();
}

/// Two repetitions of a FIFO case each connect anew (the first one's FIFO
/// once stood in the second's way: "File exists"), and `--explain` gives
/// the reader's calls explained over both, with its off-CPU stacks under
/// `--profile` where the scheduler can be traced.
#[test]
fn repetitions_reconnect_and_the_readers_calls_are_explained() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "contention",
        "--mech",
        "fifo",
        "--param",
        "test=both,writer-only",
        "--param",
        "duration=60ms",
        "--repeat",
        "2",
        "--explain",
        "--profile",
        "--json",
        "-",
    ]);
    let res = results(&run);
    assert_eq!(res.len(), 2);
    for r in res {
        assert_eq!(r["status"], "ok", "{}: {}", r["case"], r["reason"]);
        let e = &r["explain"];
        let both = r["case"].as_str().unwrap().ends_with("/both");
        let (measuring, calls) = match both {
            true => ("reader", "reader_calls"),
            false => ("writer", "writer_calls"),
        };
        assert_eq!(e["unattributed"]["side"], measuring, "{e}");
        let reps = r["metrics"][calls]["reps"].as_array().unwrap();
        let total: f64 = reps.iter().map(|v| v.as_f64().unwrap()).sum();
        assert_eq!(reps.len(), 2);
        assert_eq!(e["ops"].as_f64().unwrap(), total, "{e}");
        if !common::is_root() {
            continue;
        }
        let traced = e["components"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "blocked" && c["side"] == measuring);
        assert!(traced, "{e}");
        // A side that never left the CPU has no off-CPU stacks to fold.
        let folded = e["offcpu_folded"].as_array().cloned().unwrap_or_default();
        for line in folded.iter().map(|l| l.as_str().unwrap()) {
            let root = line.split(';').next().unwrap();
            assert!(
                ["reader", "writer", "[other stacks] "]
                    .iter()
                    .any(|r| root.starts_with(r)),
                "{line}"
            );
        }
    }
}
