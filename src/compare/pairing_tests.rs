//! Pairing by parameters: cases run with other parameters are listed as
//! unmatched with the parameters named, never compared or counted as a
//! regression; recorded figures and the repetitions alone do not part two
//! cases; many unmatched cases are summarised first and condensed.

use super::*;
use crate::measure::metric::metric;
use crate::report::fixtures;
use serde_json::json;

/// A poll-scale `select/tcp/idle=0` at `requests` and `repeat`, its
/// seconds per repetition `reps`.
fn select(requests: u64, repeat: u64, reps: &[f64]) -> CaseResult {
    select_at("select", 0, requests, repeat, reps)
}

fn select_at(poller: &str, idle: u64, requests: u64, repeat: u64, reps: &[f64]) -> CaseResult {
    let params = [
        ("poller", json!(poller)),
        ("transport", json!("tcp")),
        ("idle", json!(idle)),
        ("active", json!(10)),
        ("requests", json!(requests)),
        ("repeat", json!(repeat)),
    ];
    let params = params.into_iter().map(|(k, v)| (k.to_string(), v));
    let case = format!("{poller}/tcp/idle={idle}");
    let mut r = CaseResult::new("poll-scale", &case, params.collect());
    r.metrics
        .insert("seconds".into(), metric(reps.to_vec(), "s"));
    r.headline = Some("seconds".into());
    r
}

fn run_of(results: Vec<CaseResult>) -> Run {
    let mut run = fixtures::run();
    run.results = results;
    run
}

const FAST: [f64; 5] = [1.0, 1.01, 0.99, 1.005, 0.995];
const SLOW: [f64; 5] = [2.0, 2.01, 1.99, 2.005, 1.995];

#[test]
fn cases_run_with_other_parameters_are_unmatched_not_regressions() {
    let a = run_of(vec![select(1000, 5, &FAST)]);
    let b = run_of(vec![select(2000, 5, &SLOW)]);
    let mut c = compare(&a, &b);
    c.judge(10.0);
    assert_eq!(c.cases.len(), 0);
    assert_eq!(c.regressions, []);
    assert_eq!(c.mismatched.len(), 1);
    let m = &c.mismatched[0];
    assert_eq!(m.name, "select/tcp/idle=0");
    assert_eq!(m.differences.len(), 1);
    assert_eq!(m.differences[0].text(), "requests 1000 vs 2000");
    let out = text(&c, Some(10.0));
    assert!(
        out.contains("unmatched: poll-scale select/tcp/idle=0: requests 1000 vs 2000"),
        "{out}"
    );
    assert!(out.contains("no case got significantly worse"), "{out}");
}

#[test]
fn a_recorded_figure_does_not_part_two_cases() {
    let with_count = |count: u64, reps: &[f64]| {
        let mut r = select(1000, 5, reps);
        r.params.insert("messages_per_rep".into(), json!(count));
        r.params
            .insert("mount_point".into(), json!(format!("/m{count}")));
        r
    };
    let c = compare(
        &run_of(vec![with_count(10, &FAST)]),
        &run_of(vec![with_count(20, &SLOW)]),
    );
    assert_eq!(c.cases.len(), 1);
    assert_eq!(c.cases[0].change, Change::Worse);
    assert!(c.mismatched.is_empty() && c.only_in_a.is_empty() && c.only_in_b.is_empty());
}

#[test]
fn repetitions_alone_do_not_part_two_cases_and_the_row_says_so() {
    let c = compare(
        &run_of(vec![select(1000, 5, &FAST)]),
        &run_of(vec![select(1000, 10, &FAST)]),
    );
    assert_eq!(c.cases.len(), 1);
    assert_eq!(c.cases[0].differences[0].text(), "repeat 5 vs 10");
    assert_eq!(cells(&c.cases[0])[1], "select/tcp/idle=0 (repeat 5 vs 10)");
}

#[test]
fn repetitions_that_could_pair_either_way_do_not_pair() {
    let a = run_of(vec![select(1000, 5, &FAST), select(1000, 20, &FAST)]);
    let b = run_of(vec![select(1000, 10, &FAST)]);
    let c = compare(&a, &b);
    assert_eq!(c.cases.len(), 0);
    assert_eq!(c.mismatched.len(), 1);
    assert_eq!(c.only_in_a.len(), 1);
    // Named apart by their repetitions, the only difference in A.
    assert_eq!(c.mismatched[0].name, "select/tcp/idle=0/reps=5");
    assert_eq!(c.only_in_a[0].name, "select/tcp/idle=0/reps=20");
}

#[test]
fn cases_named_alike_pair_by_their_parameters_in_any_order() {
    let a = run_of(vec![select(1000, 5, &FAST), select(2000, 5, &SLOW)]);
    let b = run_of(vec![select(2000, 5, &SLOW), select(1000, 5, &FAST)]);
    let c = compare(&a, &b);
    assert_eq!(c.cases.len(), 2);
    assert!(c.cases.iter().all(|x| x.change == Change::NotSignificant));
    let names: Vec<&str> = c.cases.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "select/tcp/idle=0/requests=1000",
            "select/tcp/idle=0/requests=2000"
        ]
    );
}

#[test]
fn a_parameter_a_run_predates_is_read_at_its_default() {
    let mut old = select(1000, 5, &FAST);
    old.params.remove("active");
    let c = compare(&run_of(vec![old]), &run_of(vec![select(1000, 5, &FAST)]));
    assert_eq!(c.cases.len(), 1);
}

#[test]
fn a_case_only_one_run_has_is_named_among_both_runs() {
    let a = run_of(vec![select(1000, 5, &FAST)]);
    let b = run_of(vec![select(1000, 5, &FAST), select(2000, 5, &FAST)]);
    let c = compare(&a, &b);
    assert_eq!(c.cases.len(), 1);
    assert_eq!(c.only_in_b[0].name, "select/tcp/idle=0/requests=2000");
    assert_eq!(c.cases[0].name, "select/tcp/idle=0/requests=1000");
}

#[test]
fn many_unmatched_cases_come_summarised_and_condensed() {
    let sweep = |requests: u64, idles: std::ops::Range<u64>| -> Vec<CaseResult> {
        let pollers = ["select", "poll", "epoll-lt"];
        let at = |p: &&str, i: u64| select_at(p, i * 10, requests, 5, &FAST);
        pollers
            .iter()
            .flat_map(|p| idles.clone().map(move |i| at(p, i)))
            .collect()
    };
    let a = run_of(sweep(1000, 0..10));
    let mut b_results = sweep(2000, 0..10);
    b_results.push(select_at("poll", 5000, 2000, 5, &FAST));
    let b = run_of(b_results);
    let lines = unmatched_lines(&compare(&a, &b));
    assert_eq!(
        lines[0],
        "31 cases unmatched, not compared: 30 with other parameters (requests in 30), 1 only in B"
    );
    assert_eq!(
        lines[1],
        "unmatched: poll-scale, requests 1000 vs 2000: select/tcp/idle=0, select/tcp/idle=10, \
select/tcp/idle=20, select/tcp/idle=30 and 26 more"
    );
    assert_eq!(lines[2], "only in B: poll-scale: poll/tcp/idle=5000");
    assert_eq!(lines.len(), 3, "{lines:?}");
}

#[test]
fn condensed_lines_are_capped() {
    let a: Vec<CaseResult> = (0..20)
        .map(|i| select_at("poll", i, 1000, 5, &FAST))
        .collect();
    let b: Vec<CaseResult> = (0..20)
        .map(|i| select_at("poll", i, 2000 + i, 5, &FAST))
        .collect();
    let lines = unmatched_lines(&compare(&run_of(a), &run_of(b)));
    assert!(lines[0].starts_with("20 cases unmatched"), "{lines:?}");
    assert_eq!(lines.len(), 1 + 12 + 1, "{lines:?}");
    assert_eq!(lines[13], "8 lines not shown: --json lists every case");
}
