//! One side of `contention`: call a non-blocking operation over and over
//! for a duration, timing every call (EAGAIN included) into a histogram and
//! into per-interval figures (mean, max, calls slower than `slow`), and
//! read this thread's CPU time and context switches around the whole loop.
//! The reader checks what it receives; the writer counts what it wrote.

use crate::exec::cleanup;
use crate::measure::clock::now_ns;
use crate::measure::pin::current_cpu;
use crate::measure::sched::Traced;
use crate::mechanism::BoxEndpoint;
use crate::stats::histogram::Latencies;
use crate::sys::rusage::{usage, Usage, Who};
use serde::{Deserialize, Serialize};
use std::io::{self, ErrorKind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long, how finely, and what counts as slow (all nanoseconds).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct Timing {
    pub(crate) duration_ns: u64,
    pub(crate) interval_ns: u64,
    pub(crate) slow_ns: u64,
    /// Both sides call (`both`, `both+hogs`): each goes on past the
    /// duration until it has moved a message (see `FIRST_WAIT_NS`).
    pub(crate) overlap: bool,
}

/// How much longer than the duration a side of `both` may call for its
/// first message. Each side's duration runs from when it starts, so under
/// load one side could start and end before the other has begun, and over
/// a channel that keeps nothing for later (a futex's counter read only
/// while the reader calls, a signal that needs its receiver's thread)
/// not one message would pass.
const FIRST_WAIT_NS: u64 = 10_000_000_000;

/// What the channel carries: one byte of a counter mod 256, an eventfd
/// counter, or bytes whose order cannot be checked (UDP may drop some).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) enum Payload {
    Sequence,
    Counter,
    Unordered,
}

/// One interval of the time series.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(crate) struct Interval {
    pub(crate) start_s: f64,
    pub(crate) mean_ns: f64,
    pub(crate) max_ns: u64,
    pub(crate) slow: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct CallReport {
    /// False for the side that only held its end open.
    pub(crate) active: bool,
    pub(crate) calls: u64,
    /// Calls that moved a message.
    pub(crate) transfers: u64,
    /// Messages moved: transfers, or for a counter the sum read or written.
    pub(crate) amount: u64,
    pub(crate) slow: u64,
    pub(crate) wall_ns: u64,
    pub(crate) usage: Usage,
    pub(crate) cpus: Vec<usize>,
    pub(crate) histogram: Vec<u8>,
    pub(crate) series: Vec<Interval>,
    pub(crate) mismatch: Option<String>,
    /// This side's thread and its loop's window, for `--explain`.
    pub(crate) thread: Traced,
}

/// The peer is done and went away: not a failure, the end of the loop.
fn peer_gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof
            | ErrorKind::BrokenPipe
            | ErrorKind::ConnectionRefused
            | ErrorKind::ConnectionReset
    )
}

pub(crate) fn writer(
    mut ep: BoxEndpoint,
    payload: Payload,
    timing: Timing,
) -> anyhow::Result<CallReport> {
    ep.set_nonblocking()?;
    let mut seq = 0u64;
    let one = 1u64.to_ne_bytes();
    timed_calls(timing, || {
        let sent = match payload {
            Payload::Counter => ep.try_send(&one)?,
            _ => ep.try_send(&[seq as u8])?,
        };
        seq += sent as u64;
        Ok(sent.then_some(1))
    })
}

pub(crate) fn reader(
    mut ep: BoxEndpoint,
    payload: Payload,
    timing: Timing,
) -> anyhow::Result<CallReport> {
    ep.set_nonblocking()?;
    let mut seq = 0u64;
    let mut buf = [0u8; 8];
    let len = if payload == Payload::Counter { 8 } else { 1 };
    timed_calls(timing, || {
        if !ep.try_recv(&mut buf[..len])? {
            return Ok(None);
        }
        let amount = match payload {
            Payload::Counter => u64::from_ne_bytes(buf),
            Payload::Sequence if buf[0] != seq as u8 => {
                return Err(io::Error::new(
                    ErrorKind::InvalidData,
                    format!("byte {seq}: expected {}, got {}", seq as u8, buf[0]),
                ))
            }
            _ => 1,
        };
        seq += 1;
        Ok(Some(amount))
    })
}

/// `two-readers`: the reader, and a second reader calling non-blocking
/// reads on a duplicate of its descriptor (the same open pipe or socket)
/// on another thread until the first is done.
pub(crate) fn two_readers(
    mut ep: BoxEndpoint,
    payload: Payload,
    timing: Timing,
) -> anyhow::Result<CallReport> {
    ep.set_nonblocking()?;
    let fd = ep
        .readable_fd()
        .ok_or_else(|| anyhow::anyhow!("two-readers needs a mechanism read through a descriptor"))?
        .try_clone_to_owned()?;
    let done = AtomicBool::new(false);
    let first = || {
        let report = reader(ep, payload, timing);
        done.store(true, Ordering::Relaxed);
        report
    };
    let second = || {
        let mut buf = [0u8; 8];
        while !done.load(Ordering::Relaxed) && !cleanup::cancelled() {
            // Whatever it takes (nothing: no one writes) is not verified.
            let _ = rustix::io::read(&fd, &mut buf);
        }
    };
    // Both threads stay on the reader side's CPUs (no further pinning).
    let (first, second) = crate::exec::side::both([None, None], first, second)?;
    second.map_err(|_| anyhow::anyhow!("the second reader panicked"))?;
    first.map_err(|_| anyhow::anyhow!("the first reader panicked"))?
}

/// The side that does not run in this test keeps its end open (so the
/// other sees EAGAIN, not a closed channel) until the active side is done:
/// its duration and `IDLE_MARGIN_NS` more, for the sides' starts to differ.
pub(crate) fn idle(ep: BoxEndpoint, timing: Timing) -> anyhow::Result<CallReport> {
    let until = now_ns() + timing.duration_ns + IDLE_MARGIN_NS;
    while now_ns() < until && !cleanup::cancelled() {
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(ep);
    Ok(CallReport::default())
}

/// How much longer than the active side the idle one holds its end: both
/// start within a millisecond or two of each other, and a shorter wait
/// lets a round of cases that each run one side alone move on sooner.
const IDLE_MARGIN_NS: u64 = 50_000_000;

/// Per-interval accumulator.
#[derive(Default)]
struct Acc {
    calls: u64,
    sum: u64,
    max: u64,
    slow: u64,
}

/// Calls `op` until the duration is over or the peer went away. `op`
/// returns Some(amount moved) or None for EAGAIN; InvalidData is a
/// verification failure.
fn timed_calls(
    timing: Timing,
    mut op: impl FnMut() -> io::Result<Option<u64>>,
) -> anyhow::Result<CallReport> {
    let mut out = CallReport {
        active: true,
        cpus: vec![current_cpu()],
        ..CallReport::default()
    };
    let mut hist = Latencies::new();
    let mut acc = Acc::default();
    let before = usage(Who::Thread).unwrap_or_default();
    let start = now_ns();
    let mut boundary = start + timing.interval_ns;
    loop {
        let t0 = now_ns();
        let result = op();
        let t1 = now_ns();
        let ns = t1 - t0;
        hist.record(ns);
        out.calls += 1;
        acc.calls += 1;
        acc.sum += ns;
        acc.max = acc.max.max(ns);
        acc.slow += (ns > timing.slow_ns) as u64;
        match result {
            Ok(Some(amount)) => {
                out.transfers += 1;
                out.amount += amount;
            }
            Ok(None) => {}
            Err(e) if e.kind() == ErrorKind::InvalidData => {
                out.mismatch = Some(e.to_string());
                break;
            }
            Err(e) if peer_gone(&e) => break,
            Err(e) => return Err(e.into()),
        }
        if t1 >= boundary {
            close_interval(&mut out, &mut acc, boundary - timing.interval_ns - start);
            boundary += timing.interval_ns;
            if over(&timing, t1 - start, out.transfers) || cleanup::cancelled() {
                break;
            }
        }
    }
    if acc.calls > 0 {
        close_interval(&mut out, &mut acc, boundary - timing.interval_ns - start);
    }
    let end = now_ns();
    out.wall_ns = end - start;
    out.thread = Traced {
        tid: rustix::thread::gettid().as_raw_nonzero().get(),
        windows: vec![(start, end)],
    };
    out.usage = usage(Who::Thread).unwrap_or_default().since(before);
    out.histogram = hist.to_v2();
    let cpu = current_cpu();
    if !out.cpus.contains(&cpu) {
        out.cpus.push(cpu);
    }
    Ok(out)
}

/// Whether a side that has called for `ran_ns` and moved `transfers`
/// messages is done.
fn over(timing: &Timing, ran_ns: u64, transfers: u64) -> bool {
    let waiting = timing.overlap && transfers == 0 && ran_ns < timing.duration_ns + FIRST_WAIT_NS;
    ran_ns >= timing.duration_ns && !waiting
}

fn close_interval(out: &mut CallReport, acc: &mut Acc, since_start_ns: u64) {
    out.series.push(Interval {
        start_s: since_start_ns as f64 / 1e9,
        mean_ns: acc.sum as f64 / acc.calls.max(1) as f64,
        max_ns: acc.max,
        slow: acc.slow,
    });
    out.slow += acc.slow;
    *acc = Acc::default();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A channel on which nothing passes until long (100 durations) after
    /// the side started, as when its peer starts late under load.
    fn late_peer(overlap: bool) -> CallReport {
        let timing = Timing {
            duration_ns: 5_000_000,
            interval_ns: 1_000_000,
            slow_ns: 1_000_000,
            overlap,
        };
        let from = now_ns() + 100 * timing.duration_ns;
        timed_calls(timing, || Ok((now_ns() >= from).then_some(1))).unwrap()
    }

    /// The reader's end of `mech` (its writer's end kept open too).
    fn ends(mech: &str, dir: &std::path::Path) -> (BoxEndpoint, BoxEndpoint) {
        let m = crate::mechanism::find(mech).unwrap();
        m.connect(dir, &Default::default()).unwrap()
    }

    #[test]
    fn two_readers_call_on_an_empty_fifo_and_a_counter_has_no_descriptor_to_share() {
        let timing = Timing {
            duration_ns: 20_000_000,
            interval_ns: 5_000_000,
            slow_ns: 1_000_000,
            overlap: false,
        };
        let dir = tempfile::tempdir().unwrap();
        let (_writer, reader) = ends("fifo", dir.path());
        let report = two_readers(reader, Payload::Sequence, timing).unwrap();
        assert!(report.active && report.calls > 0, "{report:?}");
        assert_eq!((report.transfers, report.amount), (0, 0));
        assert!(report.mismatch.is_none());
        let (_writer, counter) = ends("eventfd", dir.path());
        let err = two_readers(counter, Payload::Counter, timing).unwrap_err();
        assert_eq!(
            err.to_string(),
            "two-readers needs a mechanism read through a descriptor"
        );
    }

    #[test]
    fn a_side_of_both_calls_on_until_its_first_message_and_a_lone_side_does_not() {
        assert!(late_peer(true).transfers > 0);
        assert_eq!(late_peer(false).transfers, 0);
    }
}
