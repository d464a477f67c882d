//! The claims that compare two measurements (`list/compare.rs`) on
//! fabricated results, each through its three verdicts; `Rule::Similar`
//! near its boundaries.

use super::*;

/// Three repetitions of `median`, ±`spread` (0.01: ±1%).
fn reps(median: f64, spread: f64) -> Vec<f64> {
    vec![median * (1.0 - spread), median, median * (1.0 + spread)]
}

/// One case of a pair: its scenario, parameters and the metric weighed.
struct Side {
    scenario: &'static str,
    params: &'static [(&'static str, &'static str)],
}

/// A claim over two cases: `a` (the fast one of `Faster`, the numerator
/// of `Similar`) and `b`; each verdict's `b / a` ratio.
struct Pair {
    id: &'static str,
    metric: &'static str,
    a: Side,
    b: Side,
    holds: f64,
    fails: f64,
    /// On a boundary: with a ±20% spread, near it.
    edge: f64,
}

const fn side(scenario: &'static str, params: &'static [(&'static str, &'static str)]) -> Side {
    Side { scenario, params }
}

fn case(s: &Side, metric: &str, values: &[f64]) -> CaseResult {
    // A number is stored as one, as a run stores it.
    let value = |v: &str| v.parse::<u64>().map_or(json!(v), |n| json!(n));
    let mut params: Vec<(&str, Value)> = s.params.iter().map(|(k, v)| (*k, value(v))).collect();
    if s.scenario == "file-transfer" {
        params.push(("file-size", json!(1 << 20)));
    }
    if s.scenario == "port-ring" {
        params.push(("relays", json!(5)));
    }
    result(s.scenario, &params, &[(metric, values)])
}

fn verdict(p: &Pair, ratio: f64, spread: f64) -> ClaimVerdict {
    let a = case(&p.a, p.metric, &reps(100.0, spread));
    let b = case(&p.b, p.metric, &reps(100.0 * ratio, spread));
    answer(p.id, &[a, b])
}

fn assert_three_verdicts(p: &Pair) {
    let holds = verdict(p, p.holds, 0.01);
    assert_eq!(holds.verdict, Holds, "{}: {}", p.id, holds.figure);
    let fails = verdict(p, p.fails, 0.01);
    assert_eq!(fails.verdict, DoesNotHold, "{}: {}", p.id, fails.figure);
    let near = verdict(p, p.edge, 0.2);
    assert_eq!(near.verdict, Inconclusive, "{}: {}", p.id, near.figure);
    assert!(near.near_boundary, "{}: {}", p.id, near.figure);
    let missing = answer(p.id, &[case(&p.a, p.metric, &reps(100.0, 0.01))]);
    assert_eq!(missing.verdict, Inconclusive, "{}", p.id);
    assert!(missing.figure.contains("no result"), "{}", missing.figure);
}

const FIFO_W: Side = side("contention", &[("mech", "fifo"), ("test", "writer-only")]);
const FIFO_BOTH: Side = side("contention", &[("mech", "fifo"), ("test", "both")]);

/// read+send over the 100 Mbit link with a `buf` of 1 KiB or 8 KiB.
const fn read_send(buf: &'static [(&'static str, &'static str)]) -> Side {
    side("file-transfer", buf)
}

const RW_1K: &[(&str, &str)] = &[
    ("buf", "1024"),
    ("copier", "read-write"),
    ("tcp", "plain"),
    ("link", "100mbit"),
    ("cache", "warm"),
];
const RW_8K: &[(&str, &str)] = &[
    ("buf", "8192"),
    ("copier", "read-write"),
    ("tcp", "plain"),
    ("link", "100mbit"),
    ("cache", "warm"),
];

fn pairs() -> Vec<Pair> {
    vec![
        Pair {
            id: "E3-fifo-is-pipe",
            metric: "writer_mean_ns",
            a: FIFO_W,
            b: side("contention", &[("mech", "pipe"), ("test", "writer-only")]),
            holds: 1.0,
            fails: 1.5,
            edge: 1.0 / 1.15,
        },
        Pair {
            id: "E3-fifo-10x-udp",
            metric: "writer_mean_ns",
            a: FIFO_W,
            b: side("contention", &[("mech", "udp"), ("test", "writer-only")]),
            holds: 10.0,
            fails: 2.0,
            edge: 5.0,
        },
        Pair {
            id: "E3-contended-fifo-as-udp",
            metric: "writer_mean_ns",
            a: FIFO_BOTH,
            b: side("contention", &[("mech", "udp"), ("test", "both")]),
            holds: 1.1,
            fails: 3.0,
            edge: 1.0 / 1.5,
        },
        Pair {
            id: "E3-two-readers",
            metric: "reader_mean_ns",
            a: side("contention", &[("mech", "fifo"), ("test", "two-readers")]),
            b: FIFO_BOTH,
            holds: 1.2,
            fails: 3.0,
            edge: 1.0 / 1.5,
        },
        Pair {
            id: "E3-notify-less",
            metric: "msgs_per_s",
            a: side(
                "stream",
                &[("mech", "fifo"), ("placement", "same-cpu"), ("size", "64")],
            ),
            b: side(
                "stream",
                &[
                    ("mech", "shm"),
                    ("wake", "fifo"),
                    ("placement", "same-cpu"),
                    ("size", "64"),
                ],
            ),
            holds: 5.0,
            fails: 1.1,
            edge: 2.0,
        },
        Pair {
            id: "E4-buffer-size-irrelevant",
            metric: "wall_s",
            a: read_send(RW_1K),
            b: read_send(RW_8K),
            holds: 1.0,
            fails: 1.3,
            edge: 1.0 / 1.05,
        },
        Pair {
            id: "E4-cork-restores",
            metric: "wall_s",
            a: side(
                "file-transfer",
                &[
                    ("copier", "sendfile"),
                    ("tcp", "cork"),
                    ("link", "100mbit"),
                    ("cache", "warm"),
                ],
            ),
            b: side(
                "file-transfer",
                &[
                    ("copier", "sendfile"),
                    ("tcp", "plain"),
                    ("link", "100mbit"),
                    ("cache", "warm"),
                ],
            ),
            holds: 1.0,
            fails: 0.5,
            edge: 1.0 / 0.95,
        },
        Pair {
            id: "E5-select-equals-poll",
            metric: "seconds",
            a: side(
                "poll-scale",
                &[("poller", "select"), ("transport", "tcp"), ("idle", "640")],
            ),
            b: side(
                "poll-scale",
                &[("poller", "poll"), ("transport", "tcp"), ("idle", "640")],
            ),
            holds: 1.0,
            fails: 2.0,
            edge: 1.0 / 1.2,
        },
        Pair {
            id: "E5-et-faster",
            metric: super::POLLER_COST,
            a: side(
                "poll-scale",
                &[("poller", "epoll-et"), ("transport", "tcp"), ("idle", "0")],
            ),
            b: side(
                "poll-scale",
                &[("poller", "epoll-lt"), ("transport", "tcp"), ("idle", "0")],
            ),
            holds: 1.1,
            fails: 0.9,
            edge: 1.0,
        },
        Pair {
            id: "E5-all-active-epoll-slower",
            metric: super::POLLER_COST,
            a: side(
                "poll-scale",
                &[
                    ("poller", "poll"),
                    ("transport", "tcp"),
                    ("idle", "0"),
                    ("active", "100"),
                ],
            ),
            b: side(
                "poll-scale",
                &[
                    ("poller", "epoll-lt"),
                    ("transport", "tcp"),
                    ("idle", "0"),
                    ("active", "100"),
                ],
            ),
            holds: 1.1,
            fails: 0.9,
            edge: 1.0,
        },
        Pair {
            id: "E5-threads-beat-processes",
            metric: "us_per_msg",
            a: side("port-ring", &[("relay", "threads"), ("echo", "none")]),
            b: side("port-ring", &[("relay", "processes"), ("echo", "none")]),
            holds: 3.0,
            fails: 1.0,
            edge: 2.0,
        },
        Pair {
            id: "E6-select-worse-than-poll",
            metric: "cpu_us_per_loop",
            a: side("event-bench", EVENT_BENCH_POLL),
            b: side("event-bench", EVENT_BENCH_SELECT),
            holds: 1.2,
            fails: 0.8,
            edge: 1.0,
        },
    ]
}

fn pair(id: &str) -> Pair {
    pairs()
        .into_iter()
        .find(|p| p.id == id)
        .expect("a pair claim")
}

const EVENT_BENCH_POLL: &[(&str, &str)] = &[
    ("poller", "poll"),
    ("dispatch", "nonblocking"),
    ("pair", "socketpair"),
    ("fds", "500"),
    ("active", "1"),
];
const EVENT_BENCH_SELECT: &[(&str, &str)] = &[
    ("poller", "select"),
    ("dispatch", "nonblocking"),
    ("pair", "socketpair"),
    ("fds", "500"),
    ("active", "1"),
];

#[test]
fn each_comparison_holds_fails_and_is_near_its_boundary() {
    for p in pairs() {
        assert_three_verdicts(&p);
    }
}

#[test]
fn similar_names_its_band_and_both_sides() {
    let p = &pair("E3-fifo-is-pipe");
    let v = verdict(p, 1.0, 0.01);
    assert!(
        v.figure
            .starts_with("fifo writer-only 100 ns (99.0-101, 3 reps) vs pipe writer-only 100 ns")
            && v.figure
                .contains(": 1.00x (about the same: 0.85x-1.15x); 95% interval"),
        "{}",
        v.figure
    );
    assert!(v.form.starts_with("a ratio of two results of the same run"));
}

/// Five repetitions of `median`, spread `spread` evenly.
fn five(median: f64, spread: f64) -> Vec<f64> {
    [-1.0, -0.5, 0.0, 0.5, 1.0]
        .iter()
        .map(|k| median * (1.0 + k * spread))
        .collect()
}

/// E4-cork-restores (band 0.95x-1.05x) with cork at `ratio` times plain.
fn cork(ratio: f64, spread: f64) -> ClaimVerdict {
    let p = &pair("E4-cork-restores");
    let a = case(&p.a, "wall_s", &five(ratio, spread));
    let b = case(&p.b, "wall_s", &five(1.0, spread));
    answer("E4-cork-restores", &[a, b])
}

#[test]
fn similar_one_percent_from_an_edge_is_near_it_with_a_5_percent_spread() {
    for ratio in [1.04, 1.06, 0.94, 0.96] {
        let v = cork(ratio, 0.05);
        assert_eq!(v.verdict, Inconclusive, "{ratio}: {}", v.figure);
        assert!(v.near_boundary, "{ratio}");
        let decide = v.to_decide.unwrap();
        assert!(decide.starts_with("needs ±2.5% on both; got ±"), "{decide}");
    }
    for (ratio, expect) in [(1.04, Holds), (1.06, DoesNotHold), (0.94, DoesNotHold)] {
        let v = cork(ratio, 0.002);
        assert_eq!(v.verdict, expect, "{ratio}: {}", v.figure);
        assert!(!v.near_boundary && v.margin.unwrap() > 1.0, "{ratio}");
    }
}

/// The contended FIFO case: each side's CPU share and voluntary switches
/// over 100,000 calls.
fn sleep_case(reader_cpu: &[f64], writer_cpu: &[f64], csw: f64) -> CaseResult {
    let calls = [1e5, 1e5, 1e5];
    let csw = [csw, csw, csw];
    result(
        "contention",
        &[("mech", json!("fifo")), ("test", json!("both"))],
        &[
            ("reader_cpu_util", reader_cpu),
            ("writer_cpu_util", writer_cpu),
            ("reader_calls", &calls),
            ("writer_calls", &calls),
            ("reader_voluntary_csw", &csw),
            ("writer_voluntary_csw", &csw),
        ],
    )
}

#[test]
fn fifo_sides_sleep_needs_each_sides_cpu_share_and_blocking_calls() {
    let v =
        |r: &[f64], w: &[f64], csw: f64| answer("E3-fifo-sides-sleep", &[sleep_case(r, w, csw)]);
    let seventy = [0.68, 0.7, 0.72];
    let busy = [0.98, 0.99, 1.0];
    let holds = v(&seventy, &seventy, 1000.0);
    assert_eq!(holds.verdict, Holds, "{}", holds.figure);
    assert_eq!(holds.figure, "4 parts: 4 hold");
    let said: Vec<ClaimStatus> = holds.parts.iter().map(|p| p.verdict).collect();
    assert_eq!(said, [Holds; 4]);
    assert!(
        holds
            .parts
            .iter()
            .all(|p| p.figure.starts_with("fifo both")),
        "{:?}",
        holds.parts
    );
    assert!(
        holds.parts[2].figure.contains("0.0100 csw/call"),
        "{:?}",
        holds.parts
    );
    assert!(holds.margin.unwrap() > 1.0);
    // One side busy is enough to fail it, and so is a side that never blocks.
    assert_eq!(v(&seventy, &busy, 1000.0).verdict, DoesNotHold);
    assert_eq!(v(&[0.1, 0.12, 0.14], &seventy, 1000.0).verdict, DoesNotHold);
    assert_eq!(v(&seventy, &seventy, 1.0).verdict, DoesNotHold);
    let near = v(&seventy, &[0.8, 0.9, 1.0], 1000.0);
    assert_eq!(near.verdict, Inconclusive, "{}", near.figure);
    assert!(near.near_boundary, "{}", near.figure);
    assert_eq!(near.figure, "4 parts: 3 hold, 1 inconclusive");
    let undecided = near.parts.iter().find(|p| p.verdict == Inconclusive);
    assert!(
        undecided.is_some_and(|p| p.figure.contains("(the claim: 0.400-0.900)")),
        "{:?}",
        near.parts
    );
    let missing = answer("E3-fifo-sides-sleep", &[]);
    assert_eq!(missing.verdict, Inconclusive);
    assert!(missing
        .figure
        .contains("no result contention mech=fifo test=both"));
}
