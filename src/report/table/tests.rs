use super::*;
use crate::model::LatencyKind;
use crate::report::fixtures::{self, *};

fn render(run: &Run, color: bool) -> String {
    let mut buf = Vec::new();
    TableReporter {
        color,
        scenarios: true,
        verbose: true,
    }
    .write(run, &mut buf)
    .unwrap();
    String::from_utf8(buf).unwrap()
}

/// A case as the table shows it, e.g. `pipe/cross-cpu/processes/1 B`.
fn shown(case: &str) -> String {
    crate::format::case_label(case)
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
}

#[test]
fn plain_table_has_groups_rows_notes_verdicts_and_summary() {
    let text = render(&fixtures::run(), false);
    let heading = "== pingpong == (round-trip latency, vs limit wake_rtt_ns)\n";
    assert!(text.starts_with(heading), "{text}");
    assert!(text.contains("\n== stream ==\n"), "{text}");
    for case in [OK_CASE, FAILED_CASE, UNSUPPORTED_CASE, STREAM_CASE] {
        assert!(text.contains(&shown(case)), "{case} missing in\n{text}");
    }
    assert!(
        text.contains("pipe/cross-cpu/processes/1 B failed: sequence gap"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "{} unsupported: {UNSUPPORTED_REASON}\n",
        shown(UNSUPPORTED_CASE)
    )));
    assert!(text.contains(&format!("\n-> {VERDICT}\n")), "{text}");
    assert!(text.contains("\n-> only one case\n"), "{text}");
    let claims = text
        .split("== Claims ==\n")
        .nth(1)
        .expect("a Claims section");
    assert!(
        claims.starts_with("-- E9 --\nE9-fixture                 holds         pipe 4.82 us"),
        "{claims}"
    );
    assert!(claims.contains("original: about 5 us\n"), "{claims}");
    assert!(
        text.ends_with("\n4 results: 2 ok, 1 failed, 1 unsupported\n"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "escape codes with colour off:\n{text}"
    );
}

/// Point 13's numbers as a person reads them: `1 rep`, `4 MiB`, `120x`,
/// `0.0063x`, `2.64 ms` (from 2640 us) and `1 call` (no `±` on a count
/// that did not vary).
#[test]
fn table_of_a_fabricated_run() {
    let text = render(&fixtures::numbers_run(), false);
    for want in [
        "2.64 ms 1 rep",
        "/4 MiB",
        "120x",
        "0.0063x",
        "2.64 ms ±2%",
        "1 call ",
    ] {
        assert!(text.contains(want), "{want:?} missing in\n{text}");
    }
    // A count that did not vary has no interval to show.
    assert!(!text.contains("±0.0%"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn ok_row_shows_every_column() {
    let text = render(&fixtures::run(), false);
    let row: Vec<&str> = line_with(&text, &shown(OK_CASE))
        .split_whitespace()
        .collect();
    let want = [
        "unix-stream/cross-cpu/processes/64",
        "KiB",
        "5.21",
        "us",
        "±3%",
        "rtt_ns",
        "5.12",
        "us",
        "12.3",
        "us",
        "41.0",
        "us",
        "0.12/0.40",
        "s",
        "2.00",
        "3.24x",
        "0|0,1",
    ];
    assert_eq!(row, want, "\n{text}");
    let header: Vec<&str> = line_with(&text, "headline").split_whitespace().collect();
    let want = [
        "case", "headline", "metric", "p50", "p99", "p99.9", "cpu", "usr/sys", "csw/op", "vs",
        "limit", "cpus",
    ];
    assert_eq!(header, want, "\n{text}");
}

#[test]
fn failed_and_unsupported_rows_show_status_and_no_number() {
    let text = render(&fixtures::run(), false);
    for (case, status) in [(FAILED_CASE, "failed"), (UNSUPPORTED_CASE, "unsupported")] {
        let case = shown(case);
        let row = line_with(&text, &format!("{case} "));
        let cells: Vec<&str> = row.split_whitespace().collect();
        let want: Vec<&str> = case.split_whitespace().chain([status]).collect();
        assert_eq!(cells, want, "{row:?}");
    }
    assert!(
        !text.contains("777"),
        "a failed case's number leaked:\n{text}"
    );
}

#[test]
fn fits_in_120_columns() {
    let text = render(&fixtures::run(), false);
    for line in text.lines() {
        assert!(
            line.chars().count() <= 120,
            "{} wide: {line:?}",
            line.chars().count()
        );
    }
}

#[test]
fn mixed_kinds_and_limits_stay_in_the_rows() {
    let mut run = fixtures::run();
    let mut one_way = ok_result();
    one_way.case = "udp/cross-cpu/processes/65536B".into();
    one_way.latency.as_mut().unwrap().kind = LatencyKind::OneWay;
    one_way.limit_ratio.as_mut().unwrap().limit = "wake_ow_ns".into();
    run.results.insert(1, one_way);
    let text = render(&run, false);
    assert!(text.starts_with("== pingpong ==\n"), "{text}");
    assert!(line_with(&text, "headline").contains(" lat "), "{text}");
    let ok = line_with(&text, &shown(OK_CASE));
    assert!(
        ok.contains(" round-trip ") && ok.contains(" 3.24x"),
        "{text}"
    );
    assert!(line_with(&text, "udp/").contains(" one-way "), "{text}");
    // `vs limit` wraps at its space, never inside a word.
    let limits: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.starts_with("wake_"))
        .collect();
    assert_eq!(limits, ["wake_rtt_ns", "wake_ow_ns"], "{text}");
}

#[test]
fn colour_marks_heading_and_statuses() {
    let text = render(&fixtures::run(), true);
    let bold = Style::new().bold();
    assert!(
        text.starts_with(&format!("{bold}== pingpong =={bold:#}")),
        "{text:?}"
    );
    let red = status_style(Status::Failed);
    assert!(
        text.contains(&format!("{red}failed{red:#}: {FAILED_REASON}")),
        "{text:?}"
    );
    assert!(
        line_with(&text, &format!("{} ", shown(FAILED_CASE))).contains('\u{1b}'),
        "{text:?}"
    );
}

#[test]
fn one_result_and_empty_run_summaries() {
    let mut run = fixtures::run();
    run.results.truncate(1);
    assert!(render(&run, false).ends_with("\n1 result: 1 ok, 0 failed, 0 unsupported\n"));
    run.results.clear();
    run.claims.clear();
    assert_eq!(
        render(&run, false),
        "0 results: 0 ok, 0 failed, 0 unsupported\n"
    );
}

#[test]
fn a_flagged_row_names_the_flag_instead_of_the_number() {
    let mut run = fixtures::run();
    run.results[0].flags.push(crate::model::Flag {
        name: "not_really_moved".into(),
        reason: "faster than memcpy".into(),
    });
    let text = render(&run, false);
    let row = line_with(&text, &shown(OK_CASE));
    assert!(
        row.contains("not really moved") && !row.contains("5.21"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  {} not_really_moved: faster than memcpy\n",
            shown(OK_CASE)
        )),
        "{text}"
    );
}

#[test]
fn cpus_format() {
    let side = |cpus: Vec<usize>| Side {
        role: "x".into(),
        cpus,
        cpu: Default::default(),
    };
    assert_eq!(cpus(&[side(vec![0]), side(vec![1])]), "0|1");
    assert_eq!(cpus(&[side(vec![0, 1]), side(vec![1])]), "0,1|1");
    assert_eq!(cpus(&[]), "");
    let pairs: Vec<Side> = (0..8).map(|k| side(vec![k % 2])).collect();
    assert_eq!(cpus(&pairs), "0|1 x4");
    let odd = [0, 1, 0, 1, 1, 1].map(|c| side(vec![c]));
    assert_eq!(cpus(&odd), "0|1|0|1|1|1");
}

#[test]
#[ignore = "prints the fixture table for eyes: cargo test print_fixture -- --ignored --nocapture"]
fn print_fixture() {
    print!("{}", render(&fixtures::run(), false));
}
