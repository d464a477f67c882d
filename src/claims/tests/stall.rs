//! One stall criterion: the `contention` finding and E3-fifo-stalls read
//! the same fabricated results and give the same answer, whichever way
//! the stall test falls.

use super::*;

/// A FIFO contention case of `test` whose reader averages `mean` ns,
/// whose slowest call took `max` ns, and whose sides slept `sleeps` times
/// in 10,000 calls.
fn fifo(test: &str, (mean, max): (f64, f64), sleeps: f64) -> CaseResult {
    let mut r = result(
        "contention",
        &[("mech", json!("fifo")), ("test", json!(test))],
        &[
            ("reader_mean_ns", &[mean, mean, mean]),
            ("reader_max_ns", &[max, max, max]),
            ("writer_max_ns", &[max / 2.0; 3]),
            ("reader_slow_calls", &[0.0; 3]),
            ("writer_slow_calls", &[0.0; 3]),
            ("reader_calls", &[1e6; 3]),
            ("writer_calls", &[1e6; 3]),
            ("reader_voluntary_csw", &[sleeps * 100.0; 3]),
            ("writer_voluntary_csw", &[sleeps * 100.0; 3]),
        ],
    );
    r.case = format!("fifo/{test}");
    r
}

/// The contention finding's line on the FIFO.
fn finding_on_fifo(results: &[CaseResult]) -> String {
    let found = crate::claims::verdicts(results);
    let fifo = found
        .iter()
        .find(|v| v.scenario == "contention" && v.id == "fifo")
        .unwrap_or_else(|| panic!("no fifo finding in {found:?}"));
    fifo.text.clone()
}

#[test]
fn the_contention_finding_and_e3_fifo_stalls_agree() {
    const SAYS: [&str; 3] = [
        "stalls as in the original",
        "no stalls like the original's",
        "stalls unclear",
    ];
    let cases = [
        // Every sign: a 4 ms call, the mean 12.5x alone, a side asleep
        // 10 times in 10,000 calls.
        (5000.0, 4e6, 10.0, Holds, "stalls as in the original"),
        // None: no call near 1 ms, the mean 1.25x, no sleep.
        (
            500.0,
            5e4,
            0.0,
            DoesNotHold,
            "no stalls like the original's",
        ),
        // A 4 ms call but the mean only 1.25x: the scheduler's time
        // slices, not the original's stalls.
        (
            500.0,
            4e6,
            10.0,
            DoesNotHold,
            "no stalls like the original's",
        ),
        // A 4 ms call and the mean 12.5x, but no side ever slept: a busy
        // host preempting the sides, not a lock parking them.
        (
            5000.0,
            4e6,
            0.0,
            DoesNotHold,
            "no stalls like the original's",
        ),
        // A 4 ms call and the mean 3.0x, on the threshold: unclear.
        (1200.0, 4e6, 10.0, Inconclusive, "stalls unclear"),
    ];
    for (mean, max, sleeps, verdict, says) in cases {
        let results = [
            fifo("reader-only", (400.0, 5e4), 0.0),
            fifo("both", (mean, max), sleeps),
        ];
        let claim = answer("E3-fifo-stalls", &results);
        assert_eq!(claim.verdict, verdict, "{}", claim.figure);
        let finding = finding_on_fifo(&results);
        let said: Vec<&str> = SAYS.into_iter().filter(|s| finding.contains(s)).collect();
        assert_eq!(said, [says], "{verdict:?}: {finding}");
    }
}
