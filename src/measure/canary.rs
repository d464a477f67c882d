//! The host-speed canary: a fixed loop of cheap system calls, timed before
//! and after each case. A guest cannot see when its host slows it (no steal
//! is reported when the host runs the vCPU more slowly or beside a busier
//! sibling), yet the same loop then takes longer. Compared with the fastest
//! this machine ever ran it (kept in the store with each run), it grades a
//! case `noisy: host N% slower than its fastest`.
//!
//! A host's slow phases do not all slow system calls: some slow only the
//! switch from one thread to another. The second canary times that, a
//! round trip between two threads pinned to one CPU through two eventfds,
//! and grades a case `noisy: host wake-ups N% slower than its fastest`.

use rustix::event::{eventfd, EventfdFlags};
use std::os::fd::{AsFd, OwnedFd};
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

/// The fastest readings of both canaries this host ran (on this kernel).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Fastest {
    /// Of `ns_per_call`.
    pub(crate) syscall_ns: Option<f64>,
    /// Of `wake_ns_per_round_trip`.
    pub(crate) wake_ns: Option<f64>,
}

impl Fastest {
    /// The faster of each canary's two readings, where either has one.
    pub(crate) fn min(self, other: Fastest) -> Fastest {
        let min = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Fastest {
            syscall_ns: min(self.syscall_ns, other.syscall_ns),
            wake_ns: min(self.wake_ns, other.wake_ns),
        }
    }
}

/// Round trips per wake-up batch: about 0.5-1 ms on today's machines.
const ROUND_TRIPS: u32 = 100;

/// Nanoseconds per same-CPU thread round trip, the fastest of `batches`
/// batches; None where two threads cannot be started and pinned.
pub(crate) fn wake_ns_per_round_trip(batches: u32) -> Option<f64> {
    let cpu = *super::pin::allowed_cpus().first()?;
    let each = wake_batches([cpu, cpu], batches)?;
    Some(each.into_iter().fold(f64::INFINITY, f64::min)).filter(|ns| ns.is_finite())
}

/// Nanoseconds per round trip of each of `batches` batches between a
/// thread pinned to `cpus[0]` and one pinned to `cpus[1]`; None where two
/// threads cannot be started and pinned.
pub(crate) fn wake_batches(cpus: [usize; 2], batches: u32) -> Option<Vec<f64>> {
    let [cpu, echo_cpu] = cpus;
    // Semaphore reads take one signal each, so a timer that fails can
    // release the echo thread's remaining reads with one write.
    let flags = EventfdFlags::CLOEXEC | EventfdFlags::SEMAPHORE;
    let (there, back) = (eventfd(0, flags).ok()?, eventfd(0, flags).ok()?);
    let batches = batches.max(1);
    let release = || {
        let all = u64::from(batches * ROUND_TRIPS);
        let _ = rustix::io::write(&there, &all.to_ne_bytes());
    };
    // Threads are started fallibly: under a tight `ulimit -v` a thread's
    // stack cannot be mapped, and the canary is then unknown, not a panic.
    std::thread::scope(|scope| {
        let echo = std::thread::Builder::new()
            .spawn_scoped(scope, || {
                echo(echo_cpu, &there, &back, batches * ROUND_TRIPS)
            })
            .ok()?;
        let timer = std::thread::Builder::new().spawn_scoped(scope, || {
            let timed = super::pin::pin_current(Some(cpu)).ok().and_then(|()| {
                (0..batches)
                    .map(|_| wake_batch(&there, &back))
                    .collect::<Option<Vec<f64>>>()
            });
            if timed.is_none() {
                release();
            }
            timed
        });
        let Ok(timer) = timer else {
            release();
            let _ = echo.join();
            return None;
        };
        let timed = timer.join().ok().flatten();
        let echoed = echo.join().ok().flatten();
        echoed.and(timed)
    })
}

/// The far thread: pinned to `cpu`, it answers `count` signals.
fn echo(cpu: usize, there: &OwnedFd, back: &OwnedFd, count: u32) -> Option<()> {
    super::pin::pin_current(Some(cpu)).ok()?;
    for _ in 0..count {
        signal_wait(back, there)?;
    }
    Some(())
}

fn wake_batch(there: &OwnedFd, back: &OwnedFd) -> Option<f64> {
    let start = Instant::now();
    for _ in 0..ROUND_TRIPS {
        signal_wait(there, back)?;
    }
    Some(start.elapsed().as_nanos() as f64 / f64::from(ROUND_TRIPS))
}

/// Adds one to `to` and waits for `from` to be signalled.
fn signal_wait(to: impl AsFd, from: impl AsFd) -> Option<()> {
    retry(|| rustix::io::write(to.as_fd(), &1u64.to_ne_bytes()))?;
    let mut count = [0u8; 8];
    retry(|| rustix::io::read(from.as_fd(), &mut count))
}

/// Calls `io` again while a signal interrupts it.
fn retry(mut io: impl FnMut() -> rustix::io::Result<usize>) -> Option<()> {
    loop {
        match io() {
            Err(rustix::io::Errno::INTR) => continue,
            done => return done.ok().map(drop),
        }
    }
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
    fn a_wake_reading_is_a_positive_time_per_round_trip() {
        let ns = wake_ns_per_round_trip(2).expect("two threads on one CPU");
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
