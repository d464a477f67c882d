//! The findings of fabricated runs: counts, grouping by reason, the noisy
//! threshold, the limits and the links to the evidence.

use super::*;
use crate::model::{Flag, Grade, LimitRatio};
use crate::report::fixtures::{self, CLAIM_FIGURE, UNSUPPORTED_REASON, VERDICT};

fn unsupported(scenario: &str, case: &str, reason: &str) -> CaseResult {
    let mut r = CaseResult::new(scenario, case, Default::default());
    r.status = Status::Unsupported;
    r.reason = Some(reason.into());
    r
}

fn texts(lines: &[Line]) -> Vec<&str> {
    lines.iter().map(|l| l.text.as_str()).collect()
}

#[test]
fn summary_counts_results_and_claims() {
    let f = build(&fixtures::run());
    assert_eq!(
        f.summary,
        "4 results: 2 ok, 1 failed, 1 unsupported; 1 classic claim: 1 holds, 0 do not hold, 0 inconclusive"
    );
    let c = &f.claims[0];
    assert_eq!(
        (c.id.as_str(), c.verdict.as_str(), c.class.as_str()),
        ("E9-fixture", "holds", "holds")
    );
    assert_eq!(c.figure, CLAIM_FIGURE);
    assert_eq!(
        c.margin.as_deref(),
        Some("margin 3.2; ±1.0% after 5 repetitions")
    );
    assert_eq!(c.anchor, "claim-E9-fixture");
    assert_eq!(c.scenario.anchor, "scenario-pingpong");
}

#[test]
fn every_scenario_verdict_is_listed_under_its_scenario() {
    let f = build(&fixtures::run());
    let groups: Vec<(&str, Option<&str>, Vec<&str>)> = f
        .verdicts
        .iter()
        .map(|g| (g.title.as_str(), g.anchor.as_deref(), texts(&g.lines)))
        .collect();
    assert_eq!(
        groups,
        [
            ("pingpong", Some("scenario-pingpong"), vec![VERDICT]),
            ("stream", Some("scenario-stream"), vec!["only one case"]),
        ]
    );
}

#[test]
fn unsupported_cases_are_grouped_by_reason_with_counts() {
    let mut run = fixtures::run();
    run.results.extend([
        unsupported("stream", "a", "io_uring disabled"),
        unsupported("poll-scale", "b", "io_uring disabled"),
        unsupported("stream", "c", "io_uring disabled"),
    ]);
    let f = build(&run);
    let group = f
        .warnings
        .iter()
        .find(|g| g.title.ends_with("unsupported"))
        .unwrap();
    assert_eq!(group.title, "4 cases unsupported");
    assert_eq!(
        texts(&group.lines),
        [
            format!("{UNSUPPORTED_REASON} (1)"),
            "io_uring disabled (3)".to_string()
        ]
    );
    let anchors: Vec<&str> = group.lines[1]
        .links
        .iter()
        .map(|k| k.anchor.as_str())
        .collect();
    assert_eq!(anchors, ["scenario-stream", "scenario-poll-scale"]);
    let failed = f.warnings.iter().find(|g| g.title == "1 case failed");
    assert!(failed.is_some(), "{:?}", f.warnings);
}

#[test]
fn noisy_results_are_named_widest_first_per_scenario() {
    let mut run = fixtures::run();
    // The fixture's rtt spreads +-3%, under the threshold.
    assert!(!f_titles(&run).iter().any(|t| t.contains("noisy")));
    for (i, half) in [0.12, 0.5].into_iter().enumerate() {
        let mut r = fixtures::ok_result();
        r.case = format!("noisy-{i}");
        let m = r.metrics.get_mut("rtt_ns").unwrap();
        (m.min, m.max) = (Some(m.value * (1.0 - half)), Some(m.value * (1.0 + half)));
        run.results.push(r);
    }
    let f = build(&run);
    let group = f
        .warnings
        .iter()
        .find(|g| g.title.contains("noisy"))
        .unwrap();
    assert_eq!(
        group.title,
        "2 results noisy: repetitions spread 10% or more around the median \
         (half their min-max range, not the ± of the tables)"
    );
    assert_eq!(
        texts(&group.lines),
        ["2 of 5: noisy-1 spread 50%, noisy-0 spread 12%"]
    );
    assert_eq!(group.lines[0].links[0].anchor, "scenario-pingpong");
}

fn f_titles(run: &Run) -> Vec<String> {
    build(run).warnings.into_iter().map(|g| g.title).collect()
}

#[test]
fn the_noise_guard_s_grades_are_summed_up_not_listed_as_warnings() {
    let mut run = fixtures::run();
    let noise = |grade, cause: &str| crate::model::Noise {
        migrated: grade == Grade::Disturbed,
        ..crate::model::Noise::graded(grade, &[cause])
    };
    run.results[0].noise = Some(noise(Grade::Noisy, "steal 3%"));
    run.results[3].noise = Some(noise(Grade::Disturbed, "migrated"));
    let f = build(&run);
    let n = f.noise.expect("a noise summary");
    assert_eq!(n.causes, ["1 of 2: steal 3%", "1 of 2: migrated"]);
    assert_eq!(
        texts(&n.cases),
        [
            "unix-stream/cross-cpu/processes/64 KiB: noisy: steal 3%",
            "pipe/cross-cpu/threads/64 KiB: disturbed: migrated"
        ]
    );
    assert_eq!(n.cases[1].links[0].anchor, "scenario-stream");
    assert!(f.warnings.iter().all(|g| !g.title.contains("disturbed")));
}

#[test]
fn flagged_figures_are_warned_about_with_their_reason() {
    let mut run = fixtures::run();
    run.results[3].flags.push(Flag {
        name: "not_really_moved".into(),
        reason: "35 GB/s is 4.7x memcpy".into(),
    });
    let f = build(&run);
    let group = f.warnings.last().unwrap();
    assert_eq!(group.title, "1 result not really moved");
    assert_eq!(
        texts(&group.lines),
        ["pipe/cross-cpu/threads/64 KiB: 35 GB/s is 4.7x memcpy"]
    );
}

#[test]
fn limits_name_the_reference_points_ratios_and_missing_facilities() {
    let mut run = fixtures::run();
    let mut wake = CaseResult::new("limits", "wake", Default::default());
    crate::scenario::limits::WAKE_RTT_NS.set(&mut wake, vec![40_000.0, 44_200.0, 48_000.0]);
    crate::scenario::limits::WAKE_RTT_NS.set_headline(&mut wake);
    run.results.insert(0, wake);
    run.results[1].limit_ratio = Some(LimitRatio {
        limit: "wake_rtt_ns".into(),
        ratio: 0.12,
    });
    run.environment.io_uring.detail = "disabled by kernel.io_uring_disabled=2".into();
    let f = build(&run);
    assert_eq!(
        texts(&f.limits),
        [
            "futex wake-up round trip between two CPUs: 44.2 us ±9%",
            "pingpong: headlines at 0.12x wake_rtt_ns (vs limit)",
            "io_uring not available here: disabled by kernel.io_uring_disabled=2",
        ]
    );
    assert_eq!(f.limits[0].links[0].anchor, "scenario-limits");
    assert_eq!(f.limits[2].links[0].anchor, "environment");
}
