//! The rules of E3 (stalls), E6 (devnull, events) and the selection of
//! results, and conclusions as one system; the helpers are the parent's.

use super::*;

/// A contention case of `mech` and `test` whose reader averages `mean` ns,
/// whose slowest call took `max` ns, and whose sides slept `sleeps` times
/// in 10,000 calls.
pub(super) fn contention(
    mech: &str,
    test: &str,
    (mean, max): (f64, f64),
    sleeps: f64,
) -> CaseResult {
    result(
        "contention",
        &[("mech", json!(mech)), ("test", json!(test))],
        &[
            ("reader_mean_ns", &[mean]),
            ("reader_max_ns", &[max]),
            ("writer_max_ns", &[max / 2.0]),
            ("reader_calls", &[1e6]),
            ("writer_calls", &[1e6]),
            ("reader_voluntary_csw", &[sleeps * 100.0]),
            ("writer_voluntary_csw", &[sleeps * 50.0]),
        ],
    )
}

#[test]
fn stalls_need_every_sign() {
    let sleeping = |mean: f64, max: f64, sleeps: f64| {
        vec![
            contention("fifo", "reader-only", (400.0, 5e4), 0.0),
            contention("fifo", "both", (mean, max), sleeps),
        ]
    };
    let case = |mean: f64, max: f64| sleeping(mean, max, 10.0);
    assert_eq!(answer("E3-fifo-stalls", &case(5000.0, 4e6)).verdict, Holds);
    assert_eq!(
        answer("E3-fifo-stalls", &case(500.0, 5e4)).verdict,
        DoesNotHold
    );
    // One sign clearly absent rules a stall out; one on its threshold
    // leaves it unclear.
    let one = answer("E3-fifo-stalls", &case(500.0, 4e6));
    assert_eq!(one.verdict, DoesNotHold);
    assert!(
        one.figure.contains("slowest call 4.00 ms"),
        "{}",
        one.figure
    );
    let near = answer("E3-fifo-stalls", &case(1200.0, 4e6));
    assert_eq!(near.verdict, Inconclusive, "{}", near.figure);
    // Long calls and a slower mean while no side ever sleeps: a busy
    // host's time slices, not a side parked on the lock.
    let preempted = answer("E3-fifo-stalls", &sleeping(5000.0, 4e6, 0.0));
    assert_eq!(preempted.verdict, DoesNotHold, "{}", preempted.figure);
    assert!(
        preempted.figure.contains("0.00 sleeps per 10,000 calls"),
        "{}",
        preempted.figure
    );
    assert_eq!(
        answer("E3-fifo-stalls", &sleeping(5000.0, 4e6, 1.0)).verdict,
        Inconclusive
    );
    let udp = |mean: f64, max: f64| {
        answer(
            "E3-udp-no-stall",
            &[
                contention("udp", "reader-only", (400.0, 5e4), 0.0),
                contention("udp", "both", (mean, max), 10.0),
            ],
        )
        .verdict
    };
    assert_eq!(udp(500.0, 5e4), Holds);
    assert_eq!(udp(5000.0, 4e6), DoesNotHold);
    assert_eq!(udp(5000.0, 5e4), Holds);
    assert_eq!(udp(5000.0, 1e6), Inconclusive);
    let none = answer("E3-eventfd-no-stall", &case(5000.0, 4e6));
    assert_eq!(none.verdict, Inconclusive);
    assert!(none.figure.contains("mech=eventfd"), "{}", none.figure);
}

fn devnull(before: f64, after: &[f64], atime: &[f64]) -> CaseResult {
    result(
        "devnull",
        &[
            ("copier", json!("mmap-write")),
            ("sink", json!("dev-null")),
            ("cache", json!("cold")),
            ("file-size", json!(4096 * 1000)),
            ("atime_mode", json!("relatime")),
        ],
        &[
            ("pages_resident_before", &[before]),
            ("pages_resident_after", after),
            ("atime_changed", atime),
        ],
    )
}

#[test]
fn devnull_read_and_atime() {
    let page = rustix::param::page_size() as f64;
    let pages = 4096.0 * 1000.0 / page;
    let read = |after: f64| {
        answer(
            "E6-devnull-not-read",
            &[devnull(0.0, &[after, after, after], &[1.0])],
        )
        .verdict
    };
    assert_eq!(read(0.0), Holds);
    assert_eq!(read(pages), DoesNotHold);
    assert_eq!(read(pages * 0.2), Inconclusive);
    let warm = answer(
        "E6-devnull-not-read",
        &[devnull(pages, &[pages, pages, pages], &[1.0])],
    );
    assert_eq!(warm.verdict, Inconclusive);
    assert!(
        warm.figure.contains("the cache was not cold"),
        "{}",
        warm.figure
    );
    let atime = |reps: &[f64]| answer("E6-devnull-atime", &[devnull(0.0, &[0.0], reps)]);
    let all = atime(&[1.0, 1.0, 1.0]);
    assert_eq!(all.verdict, Holds);
    assert!(
        all.figure
            .contains("3 of 3 repetitions (mount atime mode: relatime"),
        "{}",
        all.figure
    );
    assert_eq!(atime(&[0.0, 0.0]).verdict, DoesNotHold);
    assert_eq!(atime(&[1.0, 0.0]).verdict, Inconclusive);
}

fn bench(poller: &str, fds: u64, us: &[f64]) -> CaseResult {
    result(
        "event-bench",
        &[
            ("poller", json!(poller)),
            ("dispatch", json!("nonblocking")),
            ("pair", json!("socketpair")),
            ("active", json!(1)),
            ("fds", json!(fds)),
        ],
        &[("cpu_us_per_loop", us)],
    )
}

#[test]
fn events_beat_poll_at_the_nearest_point() {
    let rs = [
        bench("poll", 5000, &[1000.0]),
        bench("poll", 7000, &[2000.0, 2050.0, 2100.0]),
        bench("epoll-lt", 7000, &[100.0, 105.0, 110.0]),
    ];
    let v = answer("E6-events-beat-poll", &rs);
    assert_eq!(v.verdict, Holds, "{}", v.figure);
    assert!(v.figure.contains("poll at fds=7000"), "{}", v.figure);
    // "About 10x" holds from 5x: 3x does not, 5x is on the edge.
    let three = [
        bench("poll", 7000, &[300.0, 305.0, 310.0]),
        bench("epoll-lt", 7000, &[100.0, 100.5, 101.0]),
    ];
    assert_eq!(answer("E6-events-beat-poll", &three).verdict, DoesNotHold);
    let five = [
        bench("poll", 7000, &[500.0, 502.5, 505.0]),
        bench("epoll-lt", 7000, &[100.0, 100.5, 101.0]),
    ];
    assert_eq!(answer("E6-events-beat-poll", &five).verdict, Inconclusive);
    let same = [
        bench("poll", 7000, &[120.0, 120.5, 121.0]),
        bench("epoll-lt", 7000, &[100.0, 100.5, 101.0]),
    ];
    assert_eq!(answer("E6-events-beat-poll", &same).verdict, DoesNotHold);
}

/// A claim is judged only where the run ran every case it reads; a suite
/// that measures mechanisms (quick) only at the claim's target point.
#[test]
fn only_claims_whose_cases_ran_as_they_specify_are_answered() {
    assert!(evaluate(&[], None).is_empty());
    let half = [atime("default", &[1.0])];
    assert!(evaluate(&half, Some("seeds")).is_empty());
    let left = crate::claims::left_out(&half, Some("seeds"));
    let why = &left
        .iter()
        .find(|(id, _)| *id == "E1-noatime-faster")
        .unwrap()
        .1;
    assert!(
        why.starts_with("no case pipe-atime variant=noatime pipe=anon"),
        "{why}"
    );
    let both = [atime("default", &[1.0]), atime("noatime", &[1.0])];
    let ids = |got: Vec<crate::model::ClaimVerdict>| -> Vec<String> {
        got.into_iter().map(|c| c.id).collect()
    };
    assert_eq!(ids(evaluate(&both, None)), ["E1-noatime-faster"]);
    let mut small = both.clone();
    for r in &mut small {
        r.params.insert("count".into(), json!(50_000));
    }
    assert!(evaluate(&small, Some("quick")).is_empty());
    assert_eq!(ids(evaluate(&small, Some("seeds"))), ["E1-noatime-faster"]);
    assert_eq!(
        ids(evaluate(&small, Some("pipe-atime"))),
        ["E1-noatime-faster"]
    );
    let why = crate::claims::left_out(&small, Some("quick"))
        .into_iter()
        .find(|(id, _)| *id == "E1-noatime-faster")
        .unwrap()
        .1;
    assert_eq!(
        why,
        "it reads noatime at count=10M, which this run did not measure"
    );
    let mut seen = std::collections::BTreeSet::new();
    assert!(
        CLAIMS.iter().all(|c| seen.insert(c.id)),
        "claim ids are unique"
    );
}

#[test]
fn a_sweep_is_not_mixed_with_an_extra_point() {
    let mut rs = sweep(
        "epoll-lt",
        &[(0, 5.0), (1000, 5.1), (2000, 4.9), (4000, 4.5)],
    );
    rs.push(result(
        "poll-scale",
        &[
            ("poller", json!("epoll-lt")),
            ("transport", json!("tcp")),
            ("idle", json!(0)),
            ("repeat", json!(5)),
        ],
        &[("seconds", &[2.5, 2.5, 2.6, 2.4, 2.5])],
    ));
    let v = answer("E5-epoll-flat", &rs);
    assert_eq!(v.verdict, Holds, "{}", v.figure);
    assert!(v.figure.contains("at idle=0: 0.90x"), "{}", v.figure);
}

/// Findings and claims come out of one evaluation: for a pipe-atime run,
/// the scenario's finding line (Observed, no claim) comes first, then its
/// claim with the original's statement, and `verdicts`/`evaluate` are the
/// two halves of the same list.
#[test]
fn findings_and_claims_are_conclusions_of_one_system() {
    use crate::claims::conclude;
    use crate::claims::engine::conclusion::Judgement;
    let results = [
        atime("noatime", &[300.0, 310.0, 305.0]),
        atime("default", &[350.0, 360.0, 355.0]),
    ];
    let all = conclude(&results);
    let kinds: Vec<bool> = all.iter().map(|c| c.claim.is_some()).collect();
    let first_claim = kinds.iter().position(|k| *k).expect("a claim");
    assert!(first_claim > 0, "a finding comes first");
    assert!(kinds[first_claim..].iter().all(|k| *k), "claims come last");
    assert!(all[..first_claim]
        .iter()
        .all(|c| c.judgement == Judgement::Observed && c.scenario == "pipe-atime"));
    let claim = &all[first_claim];
    assert_eq!(claim.judgement, Judgement::Claim(Holds));
    assert_eq!(claim.claim.map(|c| c.id), Some("E1-noatime-faster"));
    let verdicts = crate::claims::verdicts(&results);
    assert_eq!(verdicts.len(), first_claim);
    assert_eq!(verdicts[0].text, all[0].finding.text);
    let claims = evaluate(&results, Some("seeds"));
    assert_eq!(claims.len(), all.len() - first_claim);
    assert_eq!(claims[0].figure, claim.evidence);
}
