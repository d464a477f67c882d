//! Printed names: the hidden parameters that tell cases apart, the
//! repetitions only as a last resort, recorded figures never; and over
//! whole suites' plans, no two results of a run named alike.

use super::names::printed;
use crate::format::case_label;
use crate::model::CaseResult;
use serde_json::json;

/// A poll-scale result of `poll/tcp/idle=0` at these parameters.
fn poll(active: u64, requests: u64, repeat: u64) -> CaseResult {
    let params = [
        ("poller", json!("poll")),
        ("transport", json!("tcp")),
        ("idle", json!(0)),
        ("active", json!(active)),
        ("requests", json!(requests)),
        ("repeat", json!(repeat)),
    ];
    let params = params.into_iter().map(|(k, v)| (k.to_string(), v));
    CaseResult::new("poll-scale", "poll/tcp/idle=0", params.collect())
}

fn names_of(results: &[CaseResult]) -> Vec<String> {
    printed(&results.iter().collect::<Vec<_>>())
}

#[test]
fn cases_named_alike_carry_the_parameters_they_differ_in() {
    let results = [poll(10, 20000, 1), poll(10, 10000, 15), poll(100, 10000, 7)];
    assert_eq!(
        names_of(&results),
        [
            "poll/tcp/idle=0/active=10/requests=20000",
            "poll/tcp/idle=0/active=10/requests=10000",
            "poll/tcp/idle=0/active=100/requests=10000",
        ]
    );
}

#[test]
fn a_unique_name_stays_as_it_was() {
    let mut other = poll(10, 1000, 5);
    other.case = "select/tcp/idle=0".into();
    other.params.insert("poller".into(), json!("select"));
    let results = [poll(10, 1000, 5), other];
    assert_eq!(names_of(&results), ["poll/tcp/idle=0", "select/tcp/idle=0"]);
}

#[test]
fn repetitions_are_named_only_when_nothing_else_differs() {
    let results = [poll(10, 1000, 20), poll(10, 1000, 5), poll(100, 1000, 5)];
    assert_eq!(
        names_of(&results),
        [
            "poll/tcp/idle=0/active=10/reps=20",
            "poll/tcp/idle=0/active=10/reps=5",
            "poll/tcp/idle=0/active=100",
        ]
    );
}

#[test]
fn recorded_figures_do_not_name_a_case_and_the_same_inputs_share_a_name() {
    let stream = |count: u64| {
        let params = [
            ("mech", json!("pipe")),
            ("size", json!(4096)),
            ("repeat", json!(5)),
            ("messages_per_rep", json!(count)),
            ("filesystem", json!(format!("fs{count}"))),
        ];
        let params = params.into_iter().map(|(k, v)| (k.to_string(), v));
        CaseResult::new("stream", "pipe/same-cpu/threads/4096B", params.collect())
    };
    let results = [stream(100), stream(200)];
    assert_eq!(names_of(&results), ["pipe/same-cpu/threads/4 KiB"; 2]);
}

#[test]
fn a_byte_count_reads_as_a_size() {
    let with_size = |size: u64| {
        let mut r = poll(10, 1000, 5);
        r.scenario = "pingpong".into();
        r.case = "pipe/same-cpu/threads".into();
        r.params = [("mech", json!("pipe")), ("size", json!(size))]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        r
    };
    let names = names_of(&[with_size(65536), with_size(64)]);
    assert_eq!(
        names,
        [
            "pipe/same-cpu/threads/size=64 KiB",
            "pipe/same-cpu/threads/size=64 B"
        ]
    );
}

/// The cases `iolab run SUITE` plans on this machine, as results with the
/// figures some scenarios record as they run, different in each.
fn planned(suite: &str) -> Vec<CaseResult> {
    use crate::cli::{Cli, Command};
    use clap::Parser;
    let cli = Cli::try_parse_from(["iolab", "run", suite]).unwrap();
    let Command::Run(args) = cli.command else {
        unreachable!()
    };
    let plan = crate::plan::build(&args).unwrap_or_else(|e| panic!("{suite}: {}", e.0));
    let result = |(i, case): (usize, &crate::scenario::common::case::CaseSpec)| {
        let mut r = CaseResult::new(case.scenario.name(), &case.name(), case.params_json());
        r.params.insert("messages_per_rep".into(), json!(1000 + i));
        r.params
            .insert("filesystem".into(), json!(format!("fs{i}")));
        r
    };
    plan.cases.iter().enumerate().map(result).collect()
}

/// (scenario, name) pairs that more than one result has.
fn repeated(results: &[CaseResult], names: &[String]) -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = results
        .iter()
        .zip(names)
        .map(|(r, n)| (r.scenario.clone(), n.clone()))
        .collect();
    keys.sort();
    let mut out: Vec<_> = keys
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0].clone())
        .collect();
    out.dedup();
    out
}

#[test]
fn no_two_results_of_a_suite_share_a_printed_name() {
    for suite in ["quick", "seeds", "seeds-quick", "full"] {
        let results = planned(suite);
        assert!(results.len() > 10, "{suite}: {} cases", results.len());
        let names = names_of(&results);
        assert_eq!(repeated(&results, &names), [], "{suite}");
    }
}

#[test]
fn the_seeds_suites_cases_are_stored_under_names_apart_and_printed_as_stored() {
    let results = planned("seeds");
    let stored: Vec<String> = results.iter().map(|r| r.case.clone()).collect();
    assert_eq!(repeated(&results, &stored), []);
    assert!(
        stored
            .iter()
            .any(|n| n.starts_with("poll/tcp/idle=0/active=100")),
        "{stored:?}"
    );
    let printed: Vec<String> = stored.iter().map(|n| case_label(n)).collect();
    assert_eq!(names_of(&results), printed);
}
