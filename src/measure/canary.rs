//! The host-speed canary: a fixed loop of cheap system calls, timed before
//! and after each case. A guest cannot see when its host slows it (no steal
//! is reported when the host runs the vCPU more slowly or beside a busier
//! sibling), yet the same loop then takes longer. Compared with the fastest
//! this machine ever ran it (kept in the store with each run), it grades a
//! case `noisy: host N% slower than its fastest`.

use std::time::Instant;

/// Calls per batch: about 0.1-0.3 ms on today's machines.
const CALLS: u32 = 1000;

/// Batches a reading around each case takes the fastest of.
pub(crate) const CASE_BATCHES: u32 = 3;

/// Batches of the calibration at the start of a run.
pub(crate) const RUN_BATCHES: u32 = 30;

/// Nanoseconds per call of the fastest of `batches` batches: the fastest,
/// so that an interrupt or a preemption inside one batch does not count.
pub(crate) fn ns_per_call(batches: u32) -> f64 {
    (0..batches.max(1))
        .map(|_| batch())
        .fold(f64::INFINITY, f64::min)
}

fn batch() -> f64 {
    let start = Instant::now();
    for _ in 0..CALLS {
        std::hint::black_box(rustix::process::getppid());
    }
    start.elapsed().as_nanos() as f64 / f64::from(CALLS)
}

/// How much slower, in percent, a case's readings were than `fastest`:
/// the slower of the readings before and after it, so a shift in the
/// middle of the case shows at one end or the other.
pub(crate) fn slower_pct(before_ns: f64, after_ns: f64, fastest: f64) -> Option<f64> {
    let case = before_ns.max(after_ns);
    (fastest > 0.0 && case.is_finite() && case > 0.0).then(|| (case / fastest - 1.0) * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_is_a_positive_time_per_call() {
        let ns = ns_per_call(2);
        assert!(ns.is_finite() && ns > 0.0, "{ns}");
    }

    #[test]
    fn the_slower_end_of_a_case_against_the_fastest_run() {
        assert_eq!(slower_pct(100.0, 125.0, 100.0), Some(25.0));
        assert_eq!(slower_pct(150.0, 100.0, 100.0), Some(50.0));
        assert_eq!(slower_pct(50.0, 50.0, 100.0), Some(-50.0));
        assert_eq!(slower_pct(0.0, 0.0, 100.0), None);
        assert_eq!(slower_pct(100.0, 100.0, 0.0), None);
    }
}
