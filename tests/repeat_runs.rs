//! `iolab run ... --repeat-runs K`: K independent runs, each stored as its
//! own, then the CV of every case's headline across them; bad K refused.

mod common;
use common::{exists, Sandbox};

fn stdout(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

/// The table's lines with their columns joined by single spaces.
fn squeezed(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn two_runs_are_stored_and_each_case_gets_its_cv() {
    let sb = Sandbox::new();
    let args = ["run", "limits", "--param", "probe=clock,syscall"];
    let extra = [
        "--param",
        "count=1000",
        "--repeat",
        "1",
        "--repeat-runs",
        "2",
    ];
    let text = stdout(&mut sb.iolab(&[&args[..], &extra[..]].concat()));
    sb.assert_tmp_empty();
    let runs = [0, 1].map(|back| {
        let show = ["show", &format!("latest~{back}"), "--json", "-"];
        common::json(stdout(&mut sb.iolab(&show)).as_bytes())
    });
    let ids = runs
        .each_ref()
        .map(|r| r["run_id"].as_str().unwrap().to_string());
    assert_ne!(ids[0], ids[1]);
    for run in &runs {
        assert_eq!(common::results(run).len(), 2);
    }
    let header = format!(
        "== run-to-run stability over 2 runs ({}, {}) ==",
        ids[1], ids[0]
    );
    assert!(text.contains(&header), "{text}");
    let lines = squeezed(&text);
    for (case, metric) in [("clock", "clock_ns"), ("syscall", "syscall_ns")] {
        let row = format!("limits {case} {metric} 2 of 2 ");
        let line = lines.iter().find(|l| l.starts_with(&row));
        let line = line.unwrap_or_else(|| panic!("no row {row}: {text}"));
        assert!(line.ends_with('%'), "{line}");
    }
    let history = stdout(&mut sb.iolab(&["history"]));
    assert_eq!(
        history.lines().filter(|l| l.contains(" limits ")).count(),
        2
    );
}

#[test]
fn a_bad_number_of_runs_or_a_json_file_is_refused_and_nothing_written() {
    let sb = Sandbox::new();
    let run = ["run", "limits", "--param", "probe=clock", "--repeat-runs"];
    // 18446744073709551615 was accepted with no cap.
    for bad in ["0", "1", "two", "1001", "18446744073709551615"] {
        let err = sb.usage_error(&[&run[..], &[bad]].concat());
        assert_eq!(
            err,
            format!(
                "error: invalid --repeat-runs '{bad}': expected a whole number of runs, 2 to 1000\n"
            )
        );
    }
    let err = sb.usage_error(&[&run[..], &["3", "--json", "-"]].concat());
    assert_eq!(
        err,
        "error: --repeat-runs 3 cannot write --json or --csv, which hold one run: \
         each run is stored, `iolab show RUN --json` gives it\n"
    );
    assert!(!exists(&sb.db()));
    sb.assert_tmp_empty();
}
