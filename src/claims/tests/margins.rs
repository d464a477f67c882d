//! Margins and machine-relative claims on fabricated results (issue 24,
//! acceptance 1): a figure 1% either side of a boundary is `inconclusive:
//! near the boundary` with a 5% spread and gets its verdict with a 0.2%
//! spread; an absolute-band claim gives the same verdict on a machine 2x
//! slower in every reference point.

use super::{answer, result, wake, CLAIMS};
use crate::model::{CaseResult, ClaimStatus};
use serde_json::json;
use ClaimStatus::{DoesNotHold, Holds, Inconclusive};

/// Five repetitions of `median`, spread `spread` (0.05: ±5%) evenly.
fn spread(median: f64, spread: f64) -> Vec<f64> {
    [-1.0, -0.5, 0.0, 0.5, 1.0]
        .iter()
        .map(|k| median * (1.0 + k * spread))
        .collect()
}

fn poll_at_0(poller: &str, cost: &[f64]) -> CaseResult {
    result(
        "poll-scale",
        &[
            ("poller", json!(poller)),
            ("transport", json!("tcp")),
            ("idle", json!(0)),
        ],
        &[(super::POLLER_COST, cost)],
    )
}

/// E5-poll-faster-at-0 (boundary: epoll/poll = 1.05, its resolution
/// beyond "the same") with epoll at `ratio`
/// times poll, both spread `s`.
fn poll_vs_epoll(ratio: f64, s: f64) -> crate::model::ClaimVerdict {
    let results = [
        poll_at_0("poll", &spread(1.0, s)),
        poll_at_0("epoll-lt", &spread(ratio, s)),
    ];
    answer("E5-poll-faster-at-0", &results)
}

#[test]
fn one_percent_from_the_boundary_with_a_5_percent_spread_is_near_the_boundary() {
    for ratio in [1.06, 1.04] {
        let v = poll_vs_epoll(ratio, 0.05);
        assert_eq!(v.verdict, Inconclusive, "{}", v.figure);
        assert_eq!(v.verdict_text(), "inconclusive: near the boundary");
        let margin = v.margin.unwrap();
        assert!(margin > 0.0 && margin <= 1.0, "{margin}");
        let decide = v.to_decide.unwrap();
        assert!(
            decide.starts_with("needs ±2.5% on both; got ±")
                && decide.contains("(poll)")
                && decide.contains("(epoll)")
                && decide.ends_with("after 5 repetitions"),
            "{decide}"
        );
    }
}

#[test]
fn one_percent_from_the_boundary_with_a_tenth_of_a_percent_spread_is_decided() {
    let holds = poll_vs_epoll(1.06, 0.002);
    assert_eq!(holds.verdict, Holds, "{}", holds.figure);
    assert!(!holds.near_boundary);
    assert!(holds.margin.unwrap() > 1.0, "{:?}", holds.margin);
    assert_eq!(holds.to_decide, None);
    let fails = poll_vs_epoll(1.04, 0.002);
    assert_eq!(fails.verdict, DoesNotHold, "{}", fails.figure);
    assert!(fails.margin.unwrap() > 1.0, "{:?}", fails.margin);
}

fn ring(us: &[f64]) -> CaseResult {
    result(
        "port-ring",
        &[
            ("relay", json!("threads")),
            ("echo", json!("/bin/cat")),
            ("relays", json!(10)),
        ],
        &[("us_per_msg", us)],
    )
}

/// E2-port-tens-of-us on a machine whose ring costs `us` per message and
/// whose wake-up round trip `wake_ns`, both spread `s`.
fn port(us: f64, wake_ns: f64, s: f64) -> crate::model::ClaimVerdict {
    let results = [ring(&spread(us, s)), wake(&spread(wake_ns, s))];
    answer("E2-port-tens-of-us", &results)
}

#[test]
fn a_machine_twice_as_slow_gets_the_same_machine_relative_verdict() {
    // 9 us per message on a 1 us wake-up: 9 round trips (the claim: 2-20),
    // holds; on an 8 us wake-up: 1.1, does not. Twice both: the same.
    for (us, wake_ns, want) in [(9.0, 1000.0, Holds), (9.0, 8000.0, DoesNotHold)] {
        let fast = port(us, wake_ns, 0.02);
        let slow = port(2.0 * us, 2.0 * wake_ns, 0.02);
        assert_eq!(fast.verdict, want, "{}", fast.figure);
        assert_eq!(slow.verdict, want, "{}", slow.figure);
        let (a, b) = (fast.margin.unwrap(), slow.margin.unwrap());
        assert!((a - b).abs() < 1e-6 * a.max(1.0), "{a} vs {b}");
    }
    // The absolute figures stay in the evidence as context.
    let v = port(18.0, 2000.0, 0.02);
    assert!(
        v.figure.contains("18.0 us (")
            && v.figure
                .contains("here, 30.0 us then; 9 wake-up round trips here"),
        "{}",
        v.figure
    );
    assert!(
        v.figure
            .contains(", 6 then (the claim: 2-20 wake-up round trips"),
        "{}",
        v.figure
    );
    assert!(v.form.starts_with("relative to this machine"), "{}", v.form);
}

#[test]
fn a_machine_relative_figure_near_its_boundary_needs_more_precision() {
    // The band starts at 2 round trips: 1% either side of it.
    for us in [10.1, 9.9] {
        let unsure = port(us, 5000.0, 0.05);
        assert!(unsure.near_boundary, "{}", unsure.figure);
        let sure = port(us, 5000.0, 0.002);
        let want = if us > 10.0 { Holds } else { DoesNotHold };
        assert_eq!(sure.verdict, want, "{}", sure.figure);
    }
}

#[test]
fn a_claim_without_its_reference_point_is_inconclusive_with_the_reason() {
    let v = answer("E2-port-tens-of-us", &[ring(&[9.0, 9.1])]);
    assert_eq!(v.verdict, Inconclusive);
    assert!(
        v.figure.contains("no result limits probe=wake in this run"),
        "{}",
        v.figure
    );
    assert_eq!(v.margin, None);
}

#[test]
fn the_precision_a_case_needs_is_the_finest_of_the_claims_reading_it() {
    let poll = poll_at_0("poll", &[1.0]);
    assert_eq!(crate::claims::required_precision(&poll), Some(0.025));
    let limits = wake(&[1.0]);
    assert_eq!(crate::claims::required_precision(&limits), Some(0.1));
    let unread = result("pingpong", &[], &[]);
    assert_eq!(crate::claims::required_precision(&unread), None);
}

#[test]
fn a_single_repetition_gives_no_verdict_and_no_interval() {
    let results = [poll_at_0("poll", &[1.0]), poll_at_0("epoll-lt", &[1.04])];
    let v = answer("E5-poll-faster-at-0", &results);
    assert_eq!(v.verdict, Inconclusive, "{}", v.figure);
    assert!(
        v.figure.ends_with(
            "1.04x; no verdict from 1 repetition(s) of poll: an interval needs at least 3 \
             (or the seeds suite's interleaved rounds)"
        ),
        "{}",
        v.figure
    );
    assert!(!v.figure.contains("interval 0"), "{}", v.figure);
    assert_eq!(v.margin, None);
}

#[test]
fn the_seeds_suites_measure_the_reference_points_of_machine_relative_claims() {
    use crate::claims::engine::rule::Rule;
    for name in ["seeds", "seeds-quick"] {
        let suite = crate::scenario::suite::find(name).unwrap();
        for claim in CLAIMS.iter() {
            let Rule::Relative { reference, .. } = &claim.rule else {
                continue;
            };
            let (_, probe) = reference.at.params[0];
            let measured = suite.entries.iter().any(|e| {
                e.scenario == "limits"
                    && e.params
                        .iter()
                        .find(|(k, _)| *k == "probe")
                        .is_none_or(|(_, v)| v.split(',').any(|p| p == probe))
            });
            assert!(
                measured,
                "{name} lacks limits probe={probe} for {}",
                claim.id
            );
        }
    }
}

#[test]
fn an_interval_reaching_the_farther_boundary_is_near_it_too() {
    use crate::claims::engine::estimate::Estimate;
    use crate::claims::engine::margin::{judge, Bands};
    // Holds in 2..20; the figure 3 is clear of 2 but its interval reaches 20.
    let e = Estimate {
        value: 3.0,
        lo: 2.9,
        hi: 25.0,
    };
    let bands = Bands {
        edges: &[2.0, 20.0],
        verdicts: &[DoesNotHold, Holds, DoesNotHold],
    };
    let (status, m) = judge(e, &bands, Vec::new());
    assert_eq!(status, Inconclusive);
    assert!(m.near && m.boundary == 20.0, "{m:?}");
    let clear = Estimate { hi: 3.1, ..e };
    let (status, m) = judge(clear, &bands, Vec::new());
    assert_eq!(status, Holds);
    assert!((m.margin - 10.0).abs() < 1e-9, "{m:?}");
}

/// `r` with its server CPU per request in earlier runs of this host, run0 the newest.
fn with_past(mut r: CaseResult, cost: &[f64]) -> CaseResult {
    r.past = cost
        .iter()
        .enumerate()
        .map(|(at, s)| crate::model::Earlier {
            run_id: format!("run{at}"),
            metrics: [(super::POLLER_COST.to_string(), *s)].into(),
            ..Default::default()
        })
        .collect();
    r
}

#[test]
fn earlier_runs_are_context_and_never_move_this_runs_verdict() {
    // 10% apart with a 0.2% spread: decided on this run's repetitions...
    let tight = |poll_past: &[f64]| {
        let results = [
            with_past(poll_at_0("poll", &spread(1.0, 0.002)), poll_past),
            poll_at_0("epoll-lt", &spread(1.1, 0.002)),
        ];
        answer("E5-poll-faster-at-0", &results)
    };
    let calm = tight(&[1.01, 0.99]);
    assert_eq!(calm.verdict, Holds, "{}", calm.figure);
    // ...and still when poll's earlier runs spanned 1.44x: the drift is
    // shown beside the figure, not weighed in it.
    let drifting = tight(&[1.2, 0.833]);
    assert_eq!(drifting.verdict, Holds, "{}", drifting.figure);
    assert_eq!(drifting.margin, calm.margin);
    assert!(
        drifting.figure.contains("runs ±53% over 3 runs"),
        "{}",
        drifting.figure
    );
}
