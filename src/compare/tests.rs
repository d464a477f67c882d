//! Matching, direction and regression decisions on fabricated runs.

use super::*;
use crate::measure::metric::metric;
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

/// `reps` scaled by `by`.
fn scaled(reps: &[f64], by: f64) -> Vec<f64> {
    reps.iter().map(|v| v * by).collect()
}

#[test]
fn a_shift_inside_overlapping_spreads_is_no_change() {
    let noisy = [94.0, 100.0, 106.0, 97.0, 104.0];
    let a = run_of(vec![with_headline("x", "ns", noisy.to_vec())]);
    let b = run_of(vec![with_headline("x", "ns", scaled(&noisy, 1.03))]);
    let c = compare_with(&a, &b, 0.0);
    let x = &c.cases[0];
    assert!(x.ranges_overlap && !x.significant);
    assert_eq!(x.change, Change::NotSignificant);
    assert!(!x.regressed(1.0));
    // One outlier each way: the interval of the medians excludes 1, but
    // the repetitions still overlap, so it is no change either.
    let mut a_reps = vec![100.0; 8];
    a_reps.push(130.0);
    let mut b_reps = vec![103.0; 8];
    b_reps.push(90.0);
    let a = run_of(vec![with_headline("x", "ns", a_reps)]);
    let b = run_of(vec![with_headline("x", "ns", b_reps)]);
    let x = &compare_with(&a, &b, 0.0).cases[0];
    assert!(x.ci_low.unwrap() > 1.0, "{x:?}");
    assert!(x.ranges_overlap && !x.significant);
    assert_eq!(x.change, Change::NotSignificant);
}

#[test]
fn a_consistent_change_smaller_than_the_min_effect_is_no_change() {
    let tight = [100.0, 100.1, 99.9, 100.05, 99.95];
    let a = run_of(vec![with_headline("x", "bytes/s", tight.to_vec())]);
    let b = run_of(vec![with_headline("x", "bytes/s", scaled(&tight, 0.97))]);
    let default = compare(&a, &b);
    assert_eq!(default.min_effect_pct, DEFAULT_MIN_EFFECT_PCT);
    assert!(!default.cases[0].ranges_overlap);
    assert_eq!(default.cases[0].change, Change::NotSignificant);
    assert_eq!(default.test, TEST);
    assert!(TEST.contains(&format!("default {DEFAULT_MIN_EFFECT_PCT}%")));
    let strict = compare_with(&a, &b, 2.0);
    assert_eq!(strict.cases[0].change, Change::Worse);
    assert!(strict.cases[0].regressed(1.0) && !strict.cases[0].regressed(3.5));
    assert!(
        strict.test.ends_with("minimum effect here: 2%"),
        "{}",
        strict.test
    );
}

#[test]
fn a_run_compared_with_itself_is_warned_about() {
    let a = run_of(vec![with_headline("x", "ns", vec![1.0, 2.0])]);
    let mut b = run_of(vec![with_headline("x", "ns", vec![1.0, 2.0])]);
    let warning = same_run_warning(&a, &b).unwrap();
    assert!(
        warning.contains(&a.run_id) && warning.contains("itself"),
        "{warning}"
    );
    b.run_id.push_str("-other");
    assert_eq!(same_run_warning(&a, &b), None);
}

fn graded(mut r: CaseResult, grade: crate::model::Grade, cause: &str) -> CaseResult {
    r.noise = Some(crate::model::Noise::graded(grade, &[cause]));
    r
}

/// 8% slower with tight repetitions: a change at the default minimum
/// effect (5%), none when B was noisy (the bar doubles to 10%) or
/// disturbed (whatever the minimum effect).
#[test]
fn a_change_inside_the_noise_the_guard_found_is_not_significant() {
    use crate::model::Grade;
    let tight = [100.0, 100.1, 99.9, 100.05, 99.95];
    let a = run_of(vec![with_headline("x", "ns", tight.to_vec())]);
    let b = |grade, cause| {
        let r = with_headline("x", "ns", scaled(&tight, 1.08));
        run_of(vec![graded(r, grade, cause)])
    };
    let clean = compare(&a, &b(Grade::Clean, "x"));
    assert_eq!(clean.cases[0].change, Change::Worse);
    assert_eq!(clean.cases[0].noise, None);
    let noisy = compare(&a, &b(Grade::Noisy, "steal 8%"));
    assert_eq!(noisy.cases[0].change, Change::NotSignificant);
    assert_eq!(noisy.cases[0].noise.as_deref(), Some("B noisy: steal 8%"));
    assert!(cells(&noisy.cases[0])[7].contains("noise"));
    let noisy_but_large = compare_with(&a, &b(Grade::Noisy, "steal 8%"), 3.0);
    assert_eq!(noisy_but_large.cases[0].change, Change::Worse);
    let disturbed = compare_with(&a, &b(Grade::Disturbed, "migrated"), 0.0);
    assert_eq!(disturbed.cases[0].change, Change::NotSignificant);
    assert!(!disturbed.cases[0].regressed(0.0));
    assert!(TEST.contains("disturbed"));
}
