//! What a person reads on the terminal, pinned by snapshots: the help of
//! the commands (claims' `--json` writes the claims, report's RUN is
//! optional) and the table of a fabricated stored run. A change to any of
//! them shows up as a snapshot diff to review.

mod common;
#[path = "common/runs.rs"]
mod runs;

use common::Sandbox;

/// `iolab ARGS` on stdout (or stderr when it exits 2), at a fixed width.
fn text(sb: &Sandbox, args: &[&str], code: i32) -> String {
    let out = sb
        .iolab(args)
        .env("COLUMNS", "100")
        .assert()
        .code(code)
        .get_output()
        .clone();
    let bytes = if code == 0 { out.stdout } else { out.stderr };
    String::from_utf8(bytes).unwrap()
}

#[test]
fn help_of_iolab() {
    insta::assert_snapshot!(text(&Sandbox::new(), &["--help"], 0));
}

#[test]
fn help_of_run() {
    insta::assert_snapshot!(text(&Sandbox::new(), &["run", "--help"], 0));
}

#[test]
fn help_of_report_shows_run_as_optional() {
    let help = text(&Sandbox::new(), &["report", "--help"], 0);
    assert!(help.contains("> [RUN]\n"), "{help}");
    insta::assert_snapshot!(help);
}

/// clap's own usage line in an error names the arguments given as
/// required: `report latest` without an output said `<RUN>`.
#[test]
fn report_usage_error_keeps_run_optional() {
    let err = text(&Sandbox::new(), &["report", "latest"], 2);
    assert!(err.contains("[RUN]") && !err.contains("<RUN>"), "{err}");
}

#[test]
fn help_of_claims_says_it_writes_the_claims() {
    let help = text(&Sandbox::new(), &["claims", "--help"], 0);
    assert!(help.contains("Write the claims as JSON"), "{help}");
    assert!(!help.contains("the run as JSON"), "{help}");
    insta::assert_snapshot!(help);
}

/// `iolab show` of a stored fabricated run: sizes as `4 KiB`, times in the
/// unit that fits, and the summary line.
#[test]
fn table_of_a_stored_fabricated_run() {
    let sb = Sandbox::new();
    let mut results = runs::pingpong_sweep(1.0);
    results.push(runs::pingpong("eventfd", 8, &[2_640_000.0]));
    let run = runs::run("r-1", "2024-01-01T00:00:00Z", "fabricated", results);
    runs::save(&sb.db(), &[run]);
    let table = text(&sb, &["show", "latest"], 0);
    assert!(table.contains("pipe/cross-cpu/processes/64 KiB"), "{table}");
    let eventfd = table
        .lines()
        .find(|l| l.contains("eventfd/cross-cpu/processes/8 B"));
    assert!(
        eventfd.is_some_and(|l| l.contains(" 2.64 ms 1 rep ")),
        "{table}"
    );
    assert!(
        table.ends_with("\n7 results: 7 ok, 0 failed, 0 unsupported\n"),
        "{table}"
    );
    insta::assert_snapshot!(table);
}
