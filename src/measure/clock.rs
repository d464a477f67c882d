//! Integer-nanosecond CLOCK_MONOTONIC timestamps (vDSO, no system call),
//! fenced so the compiler cannot move the measured work across them.

use std::sync::atomic::{compiler_fence, Ordering};

/// Nanoseconds since an arbitrary fixed point; only differences matter.
#[inline(always)]
pub fn now_ns() -> u64 {
    compiler_fence(Ordering::SeqCst);
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    compiler_fence(Ordering::SeqCst);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The cost of one `now_ns()` call: the median of `batches` batches of
/// `per_batch` back-to-back reads.
pub(crate) fn timer_cost_ns(batches: usize, per_batch: u64) -> f64 {
    read_cost_ns(batches, per_batch, now_ns)
}

/// The cost of one call to the clock `read`, timed like `timer_cost_ns`.
pub(crate) fn read_cost_ns(batches: usize, per_batch: u64, read: impl Fn() -> u64) -> f64 {
    let mut costs: Vec<f64> = (0..batches)
        .map(|_| {
            let start = now_ns();
            for _ in 0..per_batch {
                std::hint::black_box(read());
            }
            (now_ns() - start) as f64 / per_batch as f64
        })
        .collect();
    crate::stats::estimators::median(&mut costs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_is_monotonic() {
        let a = now_ns();
        let b = now_ns();
        assert!(b >= a);
    }

    #[test]
    fn timer_cost_is_positive() {
        assert!(timer_cost_ns(3, 1000) > 0.0);
    }
}
