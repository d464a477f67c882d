//! The rules on fabricated results: each rule kind holds, does not hold and
//! is inconclusive, and a missing or failed result is inconclusive with the
//! reason. No timing involved.

mod by_seed;
mod compare;
mod e3_to_e6;
mod kernel;
mod margins;
mod params;
mod plain;
mod probe;
mod probe_e2_e6;
mod probe_e4_e5;
mod restated;
mod rounds;
mod stall;

use super::{evaluate, CLAIMS};
use crate::measure::metric::metric;
use crate::model::{CaseResult, ClaimStatus, ClaimVerdict, Status};
use serde_json::{json, Value};
use ClaimStatus::{DoesNotHold, Holds, Inconclusive};

fn result(scenario: &str, params: &[(&str, Value)], metrics: &[(&str, &[f64])]) -> CaseResult {
    let params = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let mut r = CaseResult::new(scenario, &format!("{scenario}-case"), params);
    for (name, reps) in metrics {
        let unit = match *name {
            n if n.contains("ns") => "ns",
            n if n.starts_with("us_") || n.contains("_us_") => "us",
            n if n == "seconds" || n.ends_with("_s") => "s",
            _ => "",
        };
        r.metrics
            .insert(name.to_string(), metric(reps.to_vec(), unit));
    }
    r
}

/// What the claims weighing two pollers at one point read (E5's 5% claims).
const POLLER_COST: &str = "server_cpu_us_per_req";

fn answer(id: &str, results: &[CaseResult]) -> ClaimVerdict {
    let claim = CLAIMS.iter().find(|c| c.id == id).expect("claim id");
    claim.answer(results)
}

fn atime(variant: &str, reps: &[f64]) -> CaseResult {
    result(
        "pipe-atime",
        &[
            ("variant", json!(variant)),
            ("pipe", json!("anon")),
            ("count", json!(10_000_000)),
        ],
        &[("ns_per_msg", reps)],
    )
}

#[test]
fn faster_holds_fails_and_is_inconclusive_on_overlap() {
    let holds = answer(
        "E1-noatime-faster",
        &[
            atime("noatime", &[300.0, 310.0, 305.0]),
            atime("default", &[350.0, 360.0, 355.0]),
        ],
    );
    assert_eq!(holds.verdict, Holds, "{}", holds.figure);
    assert!(
        holds.figure.contains("noatime at count=10000000 305 ns"),
        "{}",
        holds.figure
    );
    let fails = answer(
        "E1-noatime-faster",
        &[
            atime("noatime", &[400.0, 410.0, 405.0]),
            atime("default", &[350.0, 360.0, 355.0]),
        ],
    );
    assert_eq!(fails.verdict, DoesNotHold, "{}", fails.figure);
    let unsure = answer(
        "E1-noatime-faster",
        &[
            atime("noatime", &[300.0, 370.0, 340.0]),
            atime("default", &[350.0, 360.0, 355.0]),
        ],
    );
    assert_eq!(unsure.verdict, Inconclusive, "{}", unsure.figure);
    assert!(unsure.near_boundary, "{}", unsure.figure);
    assert_eq!(unsure.verdict_text(), "inconclusive: near the boundary");
    let decide = unsure.to_decide.as_deref().unwrap();
    assert!(
        decide.starts_with("needs ±1.0% on both; got ±") && decide.ends_with("after 3 repetitions"),
        "{decide}"
    );
}

#[test]
fn missing_or_failed_results_are_inconclusive_with_the_reason() {
    let missing = answer("E1-noatime-faster", &[atime("default", &[350.0])]);
    assert_eq!(missing.verdict, Inconclusive);
    assert!(
        missing
            .figure
            .contains("no result pipe-atime variant=noatime"),
        "{}",
        missing.figure
    );
    let mut failed = atime("noatime", &[]);
    failed.status = Status::Failed;
    failed.reason = Some("sequence gap at message 7".into());
    failed.metrics.clear();
    let v = answer("E1-noatime-faster", &[failed, atime("default", &[350.0])]);
    assert_eq!(v.verdict, Inconclusive);
    assert!(
        v.figure.contains("failed: sequence gap at message 7"),
        "{}",
        v.figure
    );
    let mut unsupported = atime("noatime", &[]);
    unsupported.status = Status::Unsupported;
    unsupported.reason = Some("needs root".into());
    let v = answer(
        "E1-noatime-faster",
        &[unsupported, atime("default", &[350.0])],
    );
    assert_eq!(v.verdict, Inconclusive);
    assert!(v.figure.contains("unsupported: needs root"), "{}", v.figure);
}

fn ring(us: &[f64], csw: &[f64], msgs: &[f64]) -> CaseResult {
    result(
        "port-ring",
        &[
            ("relay", json!("threads")),
            ("echo", json!("/bin/cat")),
            ("relays", json!(10)),
        ],
        &[("us_per_msg", us), ("csw_per_s", csw), ("msgs_per_s", msgs)],
    )
}

/// A `limits` wake-up round trip of `ns` (per repetition).
fn wake(ns: &[f64]) -> CaseResult {
    result(
        "limits",
        &[("probe", json!("wake"))],
        &[("wake_rtt_ns", ns)],
    )
}

#[test]
fn within_holds_fails_and_straddles() {
    // At the original's estimated 5 us per wake-up, the band is its 10-100 us.
    let r = |us: &[f64]| {
        let results = [ring(us, &[1.0], &[1.0]), wake(&[5000.0, 5000.0, 5000.0])];
        answer("E2-port-tens-of-us", &results).verdict
    };
    assert_eq!(r(&[30.0, 31.0, 29.0]), Holds);
    assert_eq!(r(&[3.0, 3.1, 2.9]), DoesNotHold);
    assert_eq!(r(&[8.0, 12.0, 15.0]), Inconclusive);
    // Context switches per message, per repetition.
    let csw = |c: &[f64]| {
        answer(
            "E2-ring-csw-bound",
            &[ring(&[30.0], c, &[30000.0, 30000.0, 30000.0])],
        )
    };
    let bound = csw(&[60000.0, 57000.0, 54000.0]);
    assert_eq!(bound.verdict, Holds, "{}", bound.figure);
    assert!(
        bound.figure.contains("1.90 csw/msg (1.80-2.00, 3 reps)"),
        "{}",
        bound.figure
    );
    assert_eq!(csw(&[3000.0, 3150.0, 3300.0]).verdict, DoesNotHold);
    assert_eq!(csw(&[27000.0, 30000.0, 33000.0]).verdict, Inconclusive);
}

fn transfer(copier: &str, link: &str, wall: &[f64], cpu: &[f64]) -> CaseResult {
    result(
        "file-transfer",
        &[
            ("copier", json!(copier)),
            ("buf", json!(4096)),
            ("tcp", json!("plain")),
            ("link", json!(link)),
            ("cache", json!("warm")),
            ("file-size", json!(67108864)),
        ],
        &[("wall_s", wall), ("sender_cpu_s", cpu)],
    )
}

#[test]
fn no_faster_holds_fails_and_is_inconclusive() {
    let v = |send: &[f64], rw: &[f64]| {
        answer(
            "E4-sendfile-no-faster",
            &[
                transfer("sendfile", "100mbit", send, &[1.0]),
                transfer("read-write", "100mbit", rw, &[1.0]),
            ],
        )
        .verdict
    };
    assert_eq!(v(&[5.4, 5.41, 5.405], &[5.4, 5.42, 5.41]), Holds);
    // Two repetitions have no interval of their own: no verdict.
    let two = answer(
        "E4-sendfile-no-faster",
        &[
            transfer("sendfile", "100mbit", &[3.0, 3.1], &[1.0]),
            transfer("read-write", "100mbit", &[5.4, 5.42], &[1.0]),
        ],
    );
    assert_eq!(two.verdict, Inconclusive);
    assert!(
        two.figure.contains("no verdict from 2 repetition(s)"),
        "{}",
        two.figure
    );
    assert_eq!(v(&[3.0, 3.05, 3.1], &[5.4, 5.41, 5.42]), DoesNotHold);
    assert_eq!(v(&[4.0, 6.0, 5.0], &[5.4, 5.42, 5.41]), Inconclusive);
    // Loopback results do not answer the 100 Mbit claim.
    let other = answer(
        "E4-sendfile-no-faster",
        &[transfer("sendfile", "loopback", &[1.0], &[1.0])],
    );
    assert_eq!(other.verdict, Inconclusive);
    assert!(other.figure.contains("link=100mbit"), "{}", other.figure);
    let cpu = answer(
        "E4-sendfile-less-cpu",
        &[
            transfer("sendfile", "loopback", &[1.0], &[0.02, 0.0205, 0.021]),
            transfer("read-write", "loopback", &[1.0], &[0.05, 0.055, 0.06]),
        ],
    );
    assert_eq!(cpu.verdict, Holds, "{}", cpu.figure);
    let zero = answer(
        "E4-sendfile-less-cpu",
        &[
            transfer("sendfile", "loopback", &[1.0], &[0.0, 0.0]),
            transfer("read-write", "loopback", &[1.0], &[0.05, 0.06]),
        ],
    );
    assert_eq!(zero.verdict, Inconclusive);
    assert!(
        zero.figure.contains("too small to compare"),
        "{}",
        zero.figure
    );
}

fn sweep(poller: &str, points: &[(u64, f64)]) -> Vec<CaseResult> {
    points
        .iter()
        .map(|(idle, s)| {
            result(
                "poll-scale",
                &[
                    ("poller", json!(poller)),
                    ("transport", json!("tcp")),
                    ("idle", json!(idle)),
                    ("repeat", json!(1)),
                ],
                &[
                    ("seconds", &[s * 0.995, *s, s * 1.005]),
                    (POLLER_COST, &[s * 0.995, *s, s * 1.005]),
                ],
            )
        })
        .collect()
}

#[test]
fn linear_and_flat_sweeps() {
    let linear = sweep(
        "poll",
        &[(0, 1.0), (1000, 2.0), (2000, 3.1), (4000, 5.0), (8000, 9.0)],
    );
    let flat = sweep(
        "poll",
        &[
            (0, 1.0),
            (1000, 1.02),
            (2000, 0.99),
            (4000, 1.01),
            (8000, 1.03),
        ],
    );
    let some = sweep(
        "poll",
        &[(0, 1.0), (1000, 1.1), (2000, 1.3), (4000, 1.4), (8000, 1.6)],
    );
    let v = answer("E5-poll-linear", &linear);
    assert_eq!(v.verdict, Holds, "{}", v.figure);
    assert!(
        v.figure
            .contains("at idle=8000 vs 1.00 s (0.995-1.00, 3 reps) at idle=0: 9.00x"),
        "{}",
        v.figure
    );
    assert!(
        v.figure
            .contains("; growth over idle=0 ~ idle^0.99 from idle=1000 (4 points);"),
        "{}",
        v.figure
    );
    assert_eq!(answer("E5-poll-linear", &flat).verdict, DoesNotHold);
    assert_eq!(answer("E5-poll-linear", &some).verdict, Inconclusive);
    // Growth over the near end as x^power: x^1.3 still reads linear (the
    // far point running away a little), x^1.75 undecided, x^2.5 not linear.
    let power = |p: f64| {
        let points: Vec<(u64, f64)> = [0u64, 1000, 2000, 4000, 8000]
            .iter()
            .map(|x| (*x, 1.0 + (*x as f64 / 1000.0).powf(p)))
            .collect();
        answer("E5-poll-linear", &sweep("poll", &points)).verdict
    };
    assert_eq!(
        [1.3, 1.75, 2.5].map(power),
        [Holds, Inconclusive, DoesNotHold]
    );
    let too_few = answer("E5-poll-linear", &linear[..3]);
    assert_eq!(too_few.verdict, Inconclusive);
    assert!(
        too_few.figure.contains("3 idle points, at least 4 needed"),
        "{}",
        too_few.figure
    );
    let as_epoll = |rs: Vec<CaseResult>| {
        let rs: Vec<CaseResult> = rs
            .into_iter()
            .map(|mut r| {
                r.params.insert("poller".into(), json!("epoll-lt"));
                r
            })
            .collect();
        answer("E5-epoll-flat", &rs).verdict
    };
    assert_eq!(as_epoll(flat), Holds);
    assert_eq!(as_epoll(linear), DoesNotHold);
    assert_eq!(as_epoll(some), Inconclusive);
}

#[test]
fn the_point_with_more_repetitions_wins() {
    let mut rs = sweep("poll", &[(0, 1.3)]);
    rs.extend(sweep("epoll-lt", &[(0, 1.2)]));
    let mut better = result(
        "poll-scale",
        &[
            ("poller", json!("poll")),
            ("transport", json!("tcp")),
            ("idle", json!(0)),
            ("repeat", json!(5)),
        ],
        &[(POLLER_COST, &[1.0, 1.01, 0.99, 1.0, 1.02])],
    );
    better.case = "poll-5-reps".into();
    rs.push(better);
    let v = answer("E5-poll-faster-at-0", &rs);
    assert!(
        v.figure.starts_with("poll 1.00 us (0.990-1.02, 5 reps)"),
        "{}",
        v.figure
    );
    assert_eq!(v.verdict, Holds, "{}", v.figure);
}
