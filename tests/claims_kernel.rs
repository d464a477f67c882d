//! `iolab claims` gives E1's kernel evidence beside its verdict: after a
//! run with `--profile`, the share of the atime update path in the default
//! and the O_NOATIME profiles; after a run without, how to get it. The
//! profiled check needs perf_event_open with kernel symbols (root or
//! perf_event_paranoid <= 1); elsewhere it is skipped with the reason,
//! unless IOLAB_STRICT_TESTS=1.

mod common;
use common::{json, Sandbox};

const PROFILED: &str = "kernel profile: atime update path (touch_atime/atime_needs_update) in ";
const UNPROFILED: &str =
    "no kernel profile of default/anon: run with --profile for the kernel symbol evidence";

/// A small anon pipe-atime run, stored in the sandbox; its E1 evidence.
fn run_e1(sb: &Sandbox, extra: &[&str]) -> String {
    let mut args = vec![
        "run",
        "pipe-atime",
        "-p",
        "pipe=anon",
        "-p",
        "count=20000",
        "--repeat",
        "3",
        "--json",
        "-",
    ];
    args.extend_from_slice(extra);
    let run = sb.run_json(&args);
    let e1 = &run["claims"][0];
    assert_eq!(e1["id"], "E1-noatime-faster", "{e1}");
    e1["kernel_evidence"]
        .as_str()
        .expect("E1 has kernel evidence")
        .to_string()
}

/// The lines `iolab claims` prints for E1, and its stored evidence.
fn stored_e1(sb: &Sandbox) -> (Vec<String>, String) {
    let out = sb.iolab(&["claims"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // The claim's lines: its verdict, then indented ones (the kernel
    // evidence last).
    let lines = text
        .lines()
        .skip_while(|l| !l.starts_with("E1-noatime-faster"))
        .take_while(|l| l.starts_with("E1-noatime-faster") || l.starts_with(' '))
        .map(str::to_string)
        .collect();
    let out = sb.iolab(&["claims", "--json", "-"]).assert().success();
    let claims = json(&out.get_output().stdout);
    let evidence = claims["claims"][0]["kernel_evidence"]
        .as_str()
        .unwrap()
        .to_string();
    (lines, evidence)
}

/// "A% of default samples, B% with O_NOATIME (of N and M samples; ..." as
/// (A, B, N, M).
fn shares(evidence: &str) -> (f64, f64, u64, u64) {
    let rest = evidence.strip_prefix(PROFILED).expect(evidence);
    let (a, rest) = rest.split_once("% of default samples, ").expect(evidence);
    let (b, rest) = rest.split_once("% with O_NOATIME (of ").expect(evidence);
    let (n, rest) = rest.split_once(" and ").expect(evidence);
    let (m, _) = rest.split_once(" samples;").expect(evidence);
    let parse = |s: &str| s.parse::<f64>().expect(evidence);
    let count = |s: &str| s.parse::<u64>().expect(evidence);
    (parse(a), parse(b), count(n), count(m))
}

#[test]
fn e1_names_the_atime_path_share_with_and_without_o_noatime() {
    let sb = Sandbox::new();
    let evidence = run_e1(&sb, &["--profile"]);
    let profiled = common::require(
        !["no samples in", "no kernel symbols in"]
            .iter()
            .any(|refused| evidence.starts_with(refused)),
        &format!("--profile needs perf_event_open and kernel symbols: {evidence}"),
    );
    if !profiled {
        return;
    }
    let (default, noatime, n, m) = shares(&evidence);
    for share in [default, noatime] {
        assert!((0.0..=100.0).contains(&share), "{evidence}");
    }
    assert!(n > 0 && m > 0, "{evidence}");
    let (lines, stored) = stored_e1(&sb);
    assert_eq!(stored, evidence);
    assert!(lines[1].trim_start().starts_with("margin "), "{lines:?}");
    assert_eq!(lines.last().unwrap().trim_start(), evidence);
}

#[test]
fn e1_without_a_profile_says_how_to_get_the_evidence() {
    let sb = Sandbox::new();
    assert_eq!(run_e1(&sb, &[]), UNPROFILED);
    let (lines, stored) = stored_e1(&sb);
    assert_eq!(stored, UNPROFILED);
    assert_eq!(lines.last().unwrap().trim_start(), UNPROFILED, "{lines:?}");
}
