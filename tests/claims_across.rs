//! `iolab claims --across RUN...` over two fabricated stored runs: each
//! claim's verdict per run side by side with its figure and margin, and the
//! claims whose verdicts differ marked (issue 24, acceptance 3).

mod common;
#[path = "common/runs.rs"]
mod runs;

use common::{json, Sandbox};
use iolab::claims::CLAIMS;
use iolab::measure::metric::metric;
use iolab::model::{CaseResult, Run};
use runs::{run, save};
use serde_json::json;

/// poll-scale at 0 idle connections: the server's CPU per request, what
/// E5-poll-faster-at-0 weighs, per repetition.
fn at_zero(poller: &str, cpu_us: &[f64]) -> CaseResult {
    let params = [
        ("poller", json!(poller)),
        ("transport", json!("tcp")),
        ("idle", json!(0)),
    ];
    let params = params
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut r = CaseResult::new("poll-scale", &format!("{poller}/tcp/idle=0"), params);
    r.metrics.insert(
        "server_cpu_us_per_req".into(),
        metric(cpu_us.to_vec(), "us"),
    );
    r
}

/// A stored run whose epoll takes `epoll` times poll's 1 us (±0.2%), with
/// its poll-scale claims answered as a run stores them.
fn poll_run(id: &str, started_at: &str, epoll: f64) -> Run {
    let reps = |m: f64| [m * 0.998, m * 0.999, m, m * 1.001, m * 1.002];
    let results = vec![
        at_zero("poll", &reps(1.0)),
        at_zero("epoll-lt", &reps(epoll)),
    ];
    let mut r = run(id, started_at, id, results);
    r.claims = CLAIMS
        .iter()
        .filter(|c| c.scenario == "poll-scale")
        .map(|c| c.answer(&r.results))
        .collect();
    r
}

fn two_runs() -> Sandbox {
    let sb = Sandbox::new();
    save(
        &sb.db(),
        &[
            poll_run("run-a", "2026-01-01T00:00:00Z", 1.10),
            poll_run("run-b", "2026-01-02T00:00:00Z", 0.95),
        ],
    );
    sb
}

#[test]
fn across_two_runs_shows_both_and_marks_the_difference() {
    let sb = two_runs();
    let text = sb.stdout(&["claims", "--across", "latest~1", "latest"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "== Claims across 2 runs ==", "{text}");
    let at = lines
        .iter()
        .position(|l| l.starts_with("E5-poll-faster-at-0"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(lines[at].ends_with("DIFFERS (opposite verdicts)"), "{text}");
    let (a, b) = (lines[at + 1], lines[at + 3]);
    assert!(
        a.contains("run-a (latest~1)") && a.contains(" holds "),
        "{text}"
    );
    assert!(a.contains("poll 1.00 us"), "{text}");
    assert!(
        b.contains("run-b (latest)") && b.contains(" does not hold "),
        "{text}"
    );
    for margin in [lines[at + 2], lines[at + 4]] {
        assert!(margin.trim_start().starts_with("margin "), "{text}");
    }
    // The sweep claims lack their points in both runs: the same verdict.
    let linear = lines
        .iter()
        .find(|l| l.starts_with("E5-poll-linear"))
        .unwrap();
    assert!(linear.ends_with(" same"), "{text}");
    // Every claim on poll-scale is answered in both runs.
    let answered = iolab::claims::CLAIMS
        .iter()
        .filter(|c| c.scenario == "poll-scale")
        .count();
    assert_eq!(
        lines.last().unwrap(),
        &format!("1 of {answered} claims differ across the runs: E5-poll-faster-at-0"),
        "{text}"
    );
}

#[test]
fn across_as_json_gives_each_run_its_claims_with_margins() {
    let sb = two_runs();
    let runs = json(
        &sb.iolab(&["claims", "--across", "run-a", "run-b", "--json", "-"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let runs = runs["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["run_id"], "run-a");
    assert_eq!(runs[1]["selector"], "run-b");
    let faster = |i: usize| {
        runs[i]["claims"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "E5-poll-faster-at-0")
            .unwrap()
            .clone()
    };
    assert_eq!(faster(0)["verdict"], "holds");
    assert_eq!(faster(1)["verdict"], "does not hold");
    assert!(faster(0)["margin"].as_f64().unwrap() > 1.0, "{}", faster(0));
}

#[test]
fn across_needs_two_runs_that_exist() {
    let sb = two_runs();
    let msg = sb.usage_error(&["claims", "--across", "latest~1", "latest~7"]);
    assert!(msg.contains("latest~7"), "{msg}");
    let msg = sb.usage_error(&["claims", "--across", "latest"]);
    assert!(msg.contains("--across"), "{msg}");
}
