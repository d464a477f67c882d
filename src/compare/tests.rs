//! Matching, direction and regression decisions on fabricated runs.

use super::*;
use crate::measure::stats::metric;
use crate::report::fixtures;

fn with_headline(case: &str, unit: &str, reps: Vec<f64>) -> CaseResult {
    let mut r = CaseResult::new("pingpong", case, Default::default());
    r.metrics.insert("m".into(), metric(reps, unit));
    r.headline = Some("m".into());
    r
}

fn run_of(results: Vec<CaseResult>) -> Run {
    let mut run = fixtures::run();
    run.results = results;
    run
}

#[test]
fn slower_time_is_worse_and_regresses() {
    let a = run_of(vec![with_headline("x", "ns", vec![100.0, 101.0, 99.0])]);
    let b = run_of(vec![with_headline("x", "ns", vec![150.0, 151.0, 149.0])]);
    let c = compare(&a, &b);
    let x = &c.cases[0];
    assert_eq!(x.change, Change::Worse);
    assert!((x.ratio - 1.5).abs() < 1e-9);
    assert!(x.regressed(10.0) && !x.regressed(60.0));
    assert!(text(&c, Some(10.0)).contains("REGRESSION: 1 case significantly"));
}

#[test]
fn lower_rate_is_worse_higher_rate_better() {
    let a = run_of(vec![with_headline("x", "bytes/s", vec![10.0, 10.1, 9.9])]);
    let b = run_of(vec![with_headline("x", "bytes/s", vec![5.0, 5.1, 4.9])]);
    assert_eq!(compare(&a, &b).cases[0].change, Change::Worse);
    assert_eq!(compare(&b, &a).cases[0].change, Change::Better);
    assert_eq!(direction("1/s"), Direction::HigherIsBetter);
    assert_eq!(direction("fds"), Direction::Unknown);
}

#[test]
fn unmatched_failed_and_single_rep_cases_are_listed() {
    let mut failed = with_headline("f", "ns", vec![1.0, 2.0]);
    failed.status = Status::Failed;
    failed.reason = Some("checksum".into());
    let a = run_of(vec![
        with_headline("only-a", "ns", vec![1.0, 2.0]),
        with_headline("f", "ns", vec![1.0, 2.0]),
        with_headline("one", "ns", vec![1.0]),
    ]);
    let b = run_of(vec![
        failed,
        with_headline("one", "ns", vec![1.0]),
        with_headline("only-b", "ns", vec![1.0, 2.0]),
    ]);
    let c = compare(&a, &b);
    assert_eq!(c.only_in_a[0].case, "only-a");
    assert_eq!(c.only_in_b[0].case, "only-b");
    assert_eq!(c.not_comparable[0].reason, "failed in B: checksum");
    assert_eq!(c.cases.len(), 1);
    assert_eq!(c.cases[0].change, Change::Unknown);
    assert!(!c.cases[0].regressed(0.0));
    let out = text(&c, None);
    assert!(out.contains("only in A: pingpong only-a"), "{out}");
    assert!(out.contains("not comparable: pingpong f: failed in B: checksum"));
}
