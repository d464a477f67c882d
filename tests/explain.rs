//! `iolab run --explain`: every ok pingpong result carries an `explain`
//! object with its measured components per operation, each with its
//! source; as root the scheduler tracer's blocked time, wake-up latency and
//! preemptions, and without privileges those named as missing with their
//! reason while the rest is still given; and `unattributed`.

mod common;

use common::Sandbox;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;

const NOBODY: u32 = 65534;
const RUN: &[&str] = &[
    "run",
    "pingpong",
    "--mech",
    "pipe,eventfd",
    "--placement",
    "same-cpu,cross-cpu",
    "--explain",
    "--param",
    "count=20000",
    "--repeat",
    "2",
    "--json",
    "-",
    "--no-store",
    "--quiet",
];
const PER_SIDE: [(&str, &str); 4] = [
    ("user_cpu", "ns"),
    ("kernel_cpu", "ns"),
    ("voluntary_csw", "csw"),
    ("involuntary_csw", "csw"),
];
const CPU_WIDE: [(&str, &str); 2] = [("resched_ipi", "ipi"), ("call_ipi", "ipi")];
const TRACED: [&str; 5] = [
    "blocked",
    "wakeup_latency",
    "preempted",
    "migrations",
    "syscalls",
];

/// Checks one result's `explain` object: components, units, sources, and
/// the scheduler's components measured (`traced`) or missing with a reason.
fn check_explain(r: &serde_json::Value, traced: bool) {
    let e = &r["explain"];
    assert!(e["ops"].as_u64().unwrap() == 40_000, "{e}");
    let components = e["components"].as_array().expect("components");
    let find = |name: &str, side: Option<&str>| {
        components
            .iter()
            .find(|c| c["name"] == name && c["side"].as_str() == side)
            .unwrap_or_else(|| panic!("no {name} {side:?} in {e}"))
    };
    for side in ["initiator", "echoer"] {
        for (name, unit) in PER_SIDE {
            let c = find(name, Some(side));
            assert_eq!(c["unit"], unit, "{c}");
            assert!(c["value"].as_f64().unwrap() >= 0.0, "{c}");
        }
        for name in TRACED {
            check_traced(e, name, side, traced);
        }
    }
    assert!(
        components
            .iter()
            .all(|c| c["source"].as_str().is_some_and(|s| !s.is_empty())),
        "{e}"
    );
    for (name, unit) in CPU_WIDE {
        let c = find(name, None);
        assert_eq!(c["unit"], unit, "{c}");
        assert!(c["value"].as_f64().unwrap() >= 0.0, "{c}");
    }
    let named = |name: &str| {
        let measured = components.iter().any(|c| c["name"] == name);
        let missing = e["missing"].as_array().unwrap().iter();
        measured
            || missing
                .clone()
                .any(|m| m["name"] == name && m["reason"].is_string())
    };
    assert!(named("run_queue") && named("cpuidle_entries"), "{e}");
    assert_eq!(e["unattributed"]["name"], "unattributed");
    assert_eq!(e["unattributed"]["unit"], "ns");
    assert!(e["unattributed"]["value"].is_f64(), "{e}");
}

/// A scheduler component of `side`: measured (a wake-up latency may be
/// missing for switch-ins this kernel does not trace), or missing with the
/// tracer's reason.
fn check_traced(e: &serde_json::Value, name: &str, side: &str, traced: bool) {
    let of = |key: &str| {
        e[key]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name && c["side"] == side)
            .cloned()
    };
    match (of("components"), of("missing")) {
        (Some(c), None) if traced => {
            assert!(c["value"].as_f64().unwrap() >= 0.0, "{c}");
            if !["migrations", "syscalls"].contains(&name) {
                assert!(c["intervals"]["count"].is_u64(), "{c}");
            }
        }
        (None, Some(m)) if traced => {
            assert!(name == "wakeup_latency" || name == "preempted", "{m}");
            assert!(
                m["reason"]
                    .as_str()
                    .unwrap()
                    .contains("switch-ins not traced"),
                "{m}"
            );
        }
        (None, Some(m)) => {
            let reason = m["reason"].as_str().unwrap();
            assert!(
                reason.contains("perf_event_open") || reason.contains("tracefs"),
                "{m}"
            );
        }
        other => panic!("{name} of {side} (traced: {traced}): {other:?} in {e}"),
    }
}

fn check_run(run: &serde_json::Value, traced: bool) {
    let results = common::results(run);
    assert_eq!(results.len(), 4);
    let ok: Vec<_> = results.iter().filter(|r| r["status"] == "ok").collect();
    assert!(!ok.is_empty(), "no ok result: {run}");
    ok.iter().for_each(|r| check_explain(r, traced));
}

#[test]
fn every_ok_pingpong_result_is_explained() {
    let sb = Sandbox::new();
    let run = sb.run_json(RUN);
    if !common::is_root() {
        common::require(false, "root, for scheduler tracepoints");
        return check_run(&run, false);
    }
    check_run(&run, true);
    // A blocking round trip is one write and one read on each side.
    for r in common::results(&run).iter().filter(|r| r["status"] == "ok") {
        for side in ["initiator", "echoer"] {
            let calls = r["explain"]["components"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == "syscalls" && c["side"] == side)
                .unwrap()["value"]
                .as_f64()
                .unwrap();
            assert!(
                (2.0..2.01).contains(&calls),
                "{side}: {calls} calls per round trip"
            );
        }
    }
    // Across CPUs the measuring side sleeps, at most once per round trip
    // (plus the odd extra wait), and sometimes finds the answer already in.
    let crossed = |r: &&serde_json::Value| r["case"].as_str().unwrap().contains("cross-cpu");
    for r in common::results(&run)
        .iter()
        .filter(|r| r["status"] == "ok")
        .filter(crossed)
    {
        let blocked = r["explain"]["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "blocked" && c["side"] == "initiator")
            .unwrap()
            .clone();
        // The tracer recorded a share of the repetitions: their round trips
        // (a loaded host adds the odd second wait to a round trip).
        let share = r["explain"]["traced_share"].as_f64().unwrap();
        assert!(share > 0.0 && share < 0.5, "traced share {share}");
        let traced_round_trips = 40_000.0 * share;
        let sleeps = blocked["intervals"]["count"].as_u64().unwrap();
        assert!(
            sleeps >= 1 && sleeps as f64 <= 2.0 * traced_round_trips + 10.0,
            "{sleeps} sleeps for {traced_round_trips} traced round trips: {blocked}"
        );
    }
}

#[test]
fn without_explain_there_is_no_explain_object() {
    let sb = Sandbox::new();
    let args: Vec<&str> = RUN.iter().copied().filter(|a| *a != "--explain").collect();
    let run = sb.run_json(&args);
    assert!(common::results(&run)
        .iter()
        .all(|r| r.get("explain").is_none()));
}

#[test]
fn the_table_has_one_explain_line_per_case() {
    let sb = Sandbox::new();
    let args: Vec<&str> = RUN[..RUN.len() - 4].to_vec();
    let out = sb
        .iolab(&[&args[..], &["--no-store"]].concat())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" explain (initiator): user "))
        .collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines
        .iter()
        .all(|l| l.contains(" csw, ") && l.contains("; unattributed ")));
}

#[test]
fn an_unprivileged_user_gets_the_unprivileged_components() {
    let sb = Sandbox::new();
    for dir in [sb.dir.path().to_path_buf(), sb.tmp()] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"));
    cmd.args(RUN)
        .current_dir(sb.dir.path())
        .env("TMPDIR", sb.tmp())
        .env("XDG_DATA_HOME", sb.dir.path().join("data"))
        .env_remove("CI");
    if common::is_root() {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    let out = assert_cmd::Command::from_std(cmd).assert().success();
    let run = common::json(&out.get_output().stdout);
    check_run(&run, false);
    sb.assert_tmp_empty();
}

#[test]
fn a_stream_is_explained_per_message_as_the_receiver_measured_it() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "stream",
        "--mech",
        "pipe",
        "--placement",
        "same-cpu",
        "--param",
        "size=4096",
        "--param",
        "bytes=128M",
        "--repeat",
        "2",
        "--explain",
        "--json",
        "-",
        "--no-store",
        "--quiet",
    ]);
    let results = common::results(&run);
    assert_eq!(results.len(), 1);
    let e = &results[0]["explain"];
    assert_eq!(e["ops"], 2 * 32 * 1024, "{e}");
    assert_eq!(e["unattributed"]["side"], "receiver", "{e}");
    let components = e["components"].as_array().unwrap();
    for side in ["receiver", "sender"] {
        for name in ["user_cpu", "kernel_cpu", "voluntary_csw"] {
            assert!(
                components
                    .iter()
                    .any(|c| c["name"] == name && c["side"] == side),
                "no {name} of {side} in {e}"
            );
        }
        for name in TRACED {
            check_traced(e, name, side, common::is_root());
        }
    }
}

#[test]
fn explain_with_profile_folds_the_time_off_cpu_by_the_stack_switched_out_with() {
    if !common::require(common::is_root(), "root, for scheduler tracepoints") {
        return;
    }
    let sb = Sandbox::new();
    let mut args = RUN.to_vec();
    args.push("--profile");
    let run = sb.run_json(&args);
    for r in common::results(&run).iter().filter(|r| r["status"] == "ok") {
        let lines = r["explain"]["offcpu_folded"]
            .as_array()
            .expect("offcpu_folded");
        assert!(!lines.is_empty(), "{}", r["case"]);
        for line in lines.iter().map(|l| l.as_str().unwrap()) {
            let (stack, ns) = line.rsplit_once(' ').unwrap();
            assert!(ns.parse::<u64>().unwrap() > 0, "{line}");
            let root = stack.split(';').next().unwrap();
            assert!(
                ["initiator", "echoer", "[other stacks]"].contains(&root),
                "{line}"
            );
        }
        let initiator_sleeps = lines.iter().any(|l| {
            let l = l.as_str().unwrap();
            l.starts_with("initiator;[kernel];") && l.contains(";schedule")
        });
        assert!(initiator_sleeps, "{lines:?}");
    }
    // Without --profile no stacks are recorded.
    assert!(common::results(&sb.run_json(RUN))
        .iter()
        .all(|r| r["explain"].get("offcpu_folded").is_none()));
}
