//! `iolab run`'s exit status: 1 when a case failed, after the run is still
//! printed and stored; an unsupported case exits 0 unless
//! `--fail-on-unsupported` (for CI) counts it too.

mod common;
use common::{json, results, Sandbox};

/// A pipe pingpong of one small case on one CPU, then `more`.
fn small(more: &[&'static str]) -> Vec<&'static str> {
    let mut args = common::pipe_pingpong(&["--param", "count=50", "--repeat", "1"]);
    args.extend(more);
    args
}

/// Runs `iolab ARGS`, which must exit with `code`; its stdout and stderr.
fn exits(sb: &Sandbox, args: &[&str], code: i32) -> (String, String) {
    let out = sb.iolab(args).assert().code(code).get_output().clone();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (text(&out.stdout), text(&out.stderr))
}

#[test]
fn a_failed_case_exits_1_after_printing_and_storing_the_run() {
    let sb = Sandbox::new();
    let (stdout, stderr) = exits(&sb, &small(&["--fault", "corrupt"]), 1);
    assert!(
        stdout.contains("1 result: 0 ok, 1 failed, 0 unsupported"),
        "{stdout}"
    );
    assert!(stderr.starts_with("stored run "), "{stderr}");
    assert!(stderr.ends_with("error: 1 of 1 cases failed\n"), "{stderr}");
    let shown = sb
        .iolab(&["show", "latest", "--json", "-"])
        .assert()
        .success();
    let run = json(&shown.get_output().stdout);
    assert_eq!(results(&run).len(), 1);
    assert_eq!(results(&run)[0]["status"], "failed");
    sb.assert_tmp_empty();
}

#[test]
fn a_failed_case_exits_1_under_quiet_json_too() {
    let sb = Sandbox::new();
    let args = small(&["--fault", "corrupt", "--quiet", "--json", "-", "--no-store"]);
    let (stdout, stderr) = exits(&sb, &args, 1);
    assert_eq!(results(&json(stdout.as_bytes()))[0]["status"], "failed");
    assert_eq!(stderr, "error: 1 of 1 cases failed\n");
}

#[test]
fn an_unsupported_case_exits_0_unless_fail_on_unsupported() {
    let sb = Sandbox::new();
    // udp carries at most 65507 bytes per message: its case is unsupported.
    let args = [
        "run",
        "pingpong",
        "--mech",
        "pipe,udp",
        "--placement",
        "same-cpu",
        "--param",
        "size=70000",
        "--param",
        "count=20",
        "--repeat",
        "1",
        "--quiet",
        "--json",
        "-",
    ];
    let (stdout, stderr) = exits(&sb, &args, 0);
    let statuses = |out: &str| -> Vec<String> {
        let run = json(out.as_bytes());
        results(&run)
            .iter()
            .map(|r| r["status"].to_string())
            .collect()
    };
    assert_eq!(statuses(&stdout), ["\"ok\"", "\"unsupported\""]);
    assert_eq!(stderr, "");
    let strict = [&args[..], &["--fail-on-unsupported"]].concat();
    let (stdout, stderr) = exits(&sb, &strict, 1);
    assert_eq!(statuses(&stdout), ["\"ok\"", "\"unsupported\""]);
    assert_eq!(
        stderr,
        "error: 1 of 2 cases unsupported (--fail-on-unsupported)\n"
    );
    let history = sb.iolab(&["history"]).assert().success();
    let listed = String::from_utf8_lossy(&history.get_output().stdout).into_owned();
    assert_eq!(
        listed.lines().count(),
        3,
        "a header and both runs: {listed}"
    );
    sb.assert_tmp_empty();
}

#[test]
fn run_help_documents_the_exit_statuses() {
    let sb = Sandbox::new();
    let (help, _) = exits(&sb, &["run", "--help"], 0);
    let section = help
        .split("EXIT STATUS:")
        .nth(1)
        .expect("an EXIT STATUS section");
    for code in ["0 ", "1 ", "2 ", "130 "] {
        let line = section.lines().any(|l| l.trim_start().starts_with(code));
        assert!(line, "no line for exit status {code}: {section}");
    }
    assert!(help.contains("--fail-on-unsupported"), "{help}");
}
