//! Claims over cases that ran in interleaved rounds, on fabricated round
//! series (issue 35, acceptance 5): a host 2x slower for the second half
//! of the run does not move the paired verdict; the same drift between
//! sequential blocks does, which is why the seeds suites interleave; an
//! interval across a boundary is inconclusive and says what would decide it.

use super::{answer, result};
use crate::model::{CaseResult, ClaimStatus, ClaimVerdict, Rounds};
use serde_json::json;
use ClaimStatus::{DoesNotHold, Holds, Inconclusive};

/// `n` rounds of a case costing `cost` (server CPU per request) on a host that is 2x
/// slower from round `slow_from` on, each round wobbling by up to ±2%.
fn host(n: usize, cost: f64, slow_from: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let slow = if i >= slow_from { 2.0 } else { 1.0 };
            let wobble = 1.0 + 0.01 * ((i * 7 % 5) as f64 - 2.0);
            cost * slow * wobble
        })
        .collect()
}

/// E5-poll-faster-at-0's case of `poller` with one repetition per round.
fn poller_in_rounds(poller: &str, cost: &[f64], interleaved: bool) -> CaseResult {
    let mut r = result(
        "poll-scale",
        &[
            ("poller", json!(poller)),
            ("transport", json!("tcp")),
            ("idle", json!(0)),
        ],
        &[(super::POLLER_COST, cost)],
    );
    r.rounds = Some(Rounds {
        seed: 7,
        interleaved,
        values: cost.to_vec(),
        positions: vec![0; cost.len()],
        metrics: [(super::POLLER_COST.to_string(), cost.to_vec())].into(),
        batch: String::new(),
    });
    r
}

/// Poll against epoll, epoll's rounds given.
fn weigh(poll: &[f64], epoll: &[f64], interleaved: bool) -> ClaimVerdict {
    let results = [
        poller_in_rounds("poll", poll, interleaved),
        poller_in_rounds("epoll-lt", epoll, interleaved),
    ];
    answer("E5-poll-faster-at-0", &results)
}

#[test]
fn a_drift_that_slows_both_cases_of_each_round_does_not_move_the_paired_verdict() {
    // Epoll 3% faster than poll in every round: poll is not faster.
    let steady = host(30, 1.0, 30);
    let drifting = host(30, 1.0, 15);
    for poll in [&steady, &drifting] {
        let epoll: Vec<f64> = poll.iter().map(|s| s * 0.97).collect();
        let v = weigh(poll, &epoll, true);
        assert_eq!(v.verdict, DoesNotHold, "{}", v.figure);
        assert!(
            v.figure
                .contains("0.97x; paired over 30 interleaved rounds, 99.5% interval"),
            "{}",
            v.figure
        );
    }
}

#[test]
fn the_same_drift_between_sequential_blocks_reads_as_a_difference() {
    // All of poll's rounds on the fast host, then all of epoll's on the
    // slow one: epoll is 3% faster, yet poll reads 1.9x faster.
    let host = host(60, 1.0, 30);
    let poll = &host[..30];
    let epoll: Vec<f64> = host[30..].iter().map(|s| s * 0.97).collect();
    let v = weigh(poll, &epoll, false);
    assert_eq!(v.verdict, Holds, "{}", v.figure);
    assert!(!v.figure.contains("paired"), "{}", v.figure);
}

#[test]
fn an_interval_across_the_boundary_is_inconclusive_and_names_what_would_decide_it() {
    // Epoll/poll per round scatters ±8% around 1.05, the claim's edge,
    // over 12 rounds.
    let poll = vec![1.0; 12];
    let epoll: Vec<f64> = (0..12)
        .map(|i| 1.05 + 0.08 * ((i % 5) as f64 - 2.0) / 2.0)
        .collect();
    let v = weigh(&poll, &epoll, true);
    assert_eq!(v.verdict, Inconclusive, "{}", v.figure);
    assert!(v.near_boundary);
    let decide = v.to_decide.unwrap();
    assert!(
        decide.starts_with("needs ±2.5%: more interleaved rounds than its time cap allowed; got ±")
            && decide.contains("(poll / epoll, paired by round) after 12 interleaved rounds"),
        "{decide}"
    );
}

#[test]
fn rounds_of_different_seeds_are_not_paired() {
    let poll = host(20, 1.0, 10);
    let epoll: Vec<f64> = poll.iter().map(|s| s * 1.1).collect();
    let mut results = [
        poller_in_rounds("poll", &poll, true),
        poller_in_rounds("epoll-lt", &epoll, true),
    ];
    results[1].rounds.as_mut().unwrap().seed = 8;
    let v = answer("E5-poll-faster-at-0", &results);
    assert!(!v.figure.contains("paired"), "{}", v.figure);
}
