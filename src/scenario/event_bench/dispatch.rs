//! One timed loop of `event-bench` (bench.c's run_once): the pairs, the
//! two ways of dispatching (zero-timeout waits called until every byte is
//! read, as bench.c's `EVLOOP_ONCE | EVLOOP_NONBLOCK`, or waits that may
//! sleep), and the watchdog that turns a lost byte into an error in both.

use crate::measure::clock::now_ns;
use crate::poller::Poller;
use crate::scenario::common::readiness::{read_ready, register};
use crate::sys::rusage::{usage, Who};
use rustix::fd::{AsFd, OwnedFd};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How the loop calls the poller's wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dispatch {
    /// A zero timeout: the wait only looks, never sleeps; called again
    /// until every byte was read.
    Nonblocking,
    /// The wait may sleep until a descriptor is ready (at most the stall
    /// limit): poll and select queue a wake-up on every descriptor scanned.
    Blocking,
}

impl Dispatch {
    pub(super) fn from_name(name: &str) -> anyhow::Result<Dispatch> {
        match name {
            "nonblocking" => Ok(Dispatch::Nonblocking),
            "blocking" => Ok(Dispatch::Blocking),
            other => anyhow::bail!("unknown dispatch {other}"),
        }
    }

    fn timeout(self, stall: Duration) -> Duration {
        match self {
            Dispatch::Nonblocking => Duration::ZERO,
            Dispatch::Blocking => stall,
        }
    }
}

/// A deliberate fault in one loop, proving the checks bite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Damage {
    /// One byte written is not the expected one.
    Corrupt,
    /// One byte counted as written is never sent.
    #[cfg_attr(not(test), allow(dead_code))]
    Lose,
}

#[derive(Clone, Copy)]
pub(super) struct Shape {
    pub(crate) fds: usize,
    pub(crate) active: usize,
    pub(crate) writes: u64,
}

/// The two ends of every pair.
pub(super) struct Pairs {
    rx: Vec<OwnedFd>,
    tx: Vec<OwnedFd>,
}

pub(super) fn make_pairs(kind: &str, n: usize) -> anyhow::Result<Pairs> {
    use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};
    let (mut rx, mut tx) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let (r, t) = match kind {
            "pipe" => rustix::pipe::pipe_with(
                rustix::pipe::PipeFlags::NONBLOCK | rustix::pipe::PipeFlags::CLOEXEC,
            )?,
            _ => socketpair(
                AddressFamily::UNIX,
                SocketType::STREAM,
                SocketFlags::NONBLOCK | SocketFlags::CLOEXEC,
                None,
            )?,
        };
        rx.push(r);
        tx.push(t);
    }
    Ok(Pairs { rx, tx })
}

/// Everything one loop needs but its fault.
pub(super) struct Bench<'a> {
    pub(crate) poller: &'a dyn Poller,
    pub(crate) pairs: &'a Pairs,
    pub(crate) shape: Shape,
    pub(crate) dispatch: Dispatch,
    /// No descriptor ready for this long while bytes are unread: one was lost.
    pub(crate) stall: Duration,
}

/// What one loop did.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Tally {
    pub(crate) ns: u64,
    /// The loop's CPU time on this thread (user + system).
    pub(crate) cpu_ns: u64,
    pub(crate) reads: u64,
    pub(crate) fired: u64,
    /// Wait calls; non-blocking, bench.c's `xcount`.
    pub(crate) waits: u64,
    pub(crate) mismatch: Option<String>,
}

/// Time since the last wait that reported something, measured on the wall
/// clock, so a zero-timeout wait detects a stall as a sleeping one does.
struct Watchdog {
    quiet_since: Option<u64>,
    limit: Duration,
}

impl Watchdog {
    fn heard(&mut self) {
        self.quiet_since = None;
    }

    /// After a wait that reported nothing having waited `waited`: true once
    /// nothing was reported for the whole limit.
    fn stalled(&mut self, waited: Duration) -> bool {
        let now = now_ns();
        let since = *self.quiet_since.get_or_insert(now);
        Duration::from_nanos(now - since) + waited >= self.limit
    }
}

const BYTE: u8 = b'e';

/// One timed dispatch loop over a fresh poll set.
pub(super) fn one_loop(b: &Bench, damage: Option<Damage>) -> anyhow::Result<Tally> {
    let (pairs, shape) = (b.pairs, b.shape);
    let n = pairs.rx.len();
    let mut set = b.poller.open(n)?;
    register(&mut *set, &pairs.rx)?;
    let mut ready = Vec::new();
    set.wait(&mut ready, Some(Duration::ZERO))?;
    if !ready.is_empty() {
        anyhow::bail!("{} pairs held unread bytes before the loop", ready.len());
    }
    let space = n / shape.active;
    for i in 0..shape.active {
        rustix::io::write(&pairs.tx[i * space], &[BYTE])?;
    }
    let mut chain = Chain {
        pairs,
        edge: set.edge_triggered(),
        left: shape.writes,
        damage_at: damage.map(|d| (d, shape.writes / 2)),
        t: Tally {
            fired: shape.active as u64,
            ..Tally::default()
        },
    };
    let timeout = b.dispatch.timeout(b.stall);
    let mut watchdog = Watchdog {
        quiet_since: None,
        limit: b.stall,
    };
    // The CPU reading first, so that it falls outside the wall-clock interval.
    let cpu_before = usage(Who::Thread)?;
    let start = now_ns();
    while chain.t.reads < chain.t.fired && chain.t.mismatch.is_none() {
        ready.clear();
        set.wait(&mut ready, Some(timeout))?;
        chain.t.waits += 1;
        if ready.is_empty() {
            let t = &chain.t;
            if watchdog.stalled(timeout) {
                anyhow::bail!(
                    "no pair became readable within {:?} with {} of {} bytes unread",
                    b.stall,
                    t.fired - t.reads,
                    t.fired
                );
            }
            continue;
        }
        watchdog.heard();
        for &idx in &ready {
            chain.on_ready(idx)?;
        }
    }
    let (mut t, left) = (chain.t, chain.left);
    t.ns = now_ns() - start;
    let cpu = usage(Who::Thread)?.since(cpu_before);
    t.cpu_ns = cpu.cpu_ns;
    if t.mismatch.is_none() && (left != 0 || t.reads != shape.active as u64 + shape.writes) {
        t.mismatch = Some(format!(
            "{} bytes read, {} written ({left} writes never made)",
            t.reads, t.fired
        ));
    }
    Ok(t)
}

/// The callbacks' state: bytes still to write, and what happened so far.
struct Chain<'a> {
    pairs: &'a Pairs,
    edge: bool,
    left: u64,
    damage_at: Option<(Damage, u64)>,
    t: Tally,
}

impl Chain<'_> {
    /// bench.c's read_cb: reads what pair `idx` reported (one byte when
    /// level-triggered, all of it when edge-triggered), checks it, and
    /// writes as many bytes to the next pair while writes remain.
    fn on_ready(&mut self, idx: usize) -> anyhow::Result<()> {
        let mut buf = [0u8; 64];
        let take = if self.edge {
            &mut buf[..]
        } else {
            &mut buf[..1]
        };
        let (mut bytes, mut mismatch) = (0, None);
        self.t.reads += read_ready(self.pairs.rx[idx].as_fd(), self.edge, take, |chunk| {
            if let Some(bad) = chunk.iter().find(|b| **b != BYTE) {
                mismatch = Some(format!(
                    "pair {idx} delivered byte {bad:#04x}, not {BYTE:#04x}"
                ));
            }
            bytes += chunk.len() as u64;
            Ok(())
        })?;
        self.t.mismatch = self.t.mismatch.take().or(mismatch);
        let next = &self.pairs.tx[(idx + 1) % self.pairs.tx.len()];
        for _ in 0..bytes.min(self.left) {
            let byte = match self.damage_at {
                Some((Damage::Corrupt, at)) if at == self.left => Some(b'x'),
                Some((Damage::Lose, at)) if at == self.left => None,
                _ => Some(BYTE),
            };
            if let Some(byte) = byte {
                rustix::io::write(next, &[byte])?;
            }
            self.left -= 1;
            self.t.fired += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watchdog_counts_quiet_time_not_quiet_calls() {
        let hour = Duration::from_secs(3600);
        let mut patient = Watchdog {
            quiet_since: None,
            limit: hour,
        };
        // Zero-timeout waits that find nothing are no stall by themselves...
        assert!(!patient.stalled(Duration::ZERO));
        assert!(!patient.stalled(Duration::ZERO));
        // ...while one wait that slept the whole limit is.
        patient.heard();
        assert!(patient.stalled(hour));
        let mut strict = Watchdog {
            quiet_since: None,
            limit: Duration::ZERO,
        };
        assert!(strict.stalled(Duration::ZERO));
    }
}
