//! Building `rings` rings of `relays` relays, running their relays as
//! threads or forked processes, watching them (Ctrl-C, timeout, a ring
//! that stops making progress) and collecting every relay's outcome. All
//! echo programs are killed and reaped whatever happens. The run's time
//! comes from the clock stamps the relays leave, not from the watcher.

use super::echo::EchoCmd;
use super::relay::{self, RelayError, RelayIo, RelayOutcome, RingSlots, STALL_SLOT};
use crate::exec::program::Program;
use crate::exec::side::{self, Ended, Ready, Side, Spec};
use crate::exec::{cleanup, Mode};
use crate::measure::clock::now_ns;
use crate::sys::shared::SharedCounters;
use anyhow::Context;
use rustix::fd::OwnedFd;
use rustix::pipe::{pipe_with, PipeFlags};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// No ring made progress for this long: the relays are told to give up.
const STALL: Duration = Duration::from_secs(3);
/// After telling relays to stop, how long before everything is killed.
const GRACE: Duration = Duration::from_secs(3);
/// The longest the watcher waits before looking at progress, Ctrl-C and
/// the timeout again; it wakes earlier when a relay ends.
const POLL: Duration = Duration::from_millis(50);

#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) relays: usize,
    pub(crate) messages: u64,
    pub(crate) rings: usize,
    pub(crate) processes: bool,
}

/// What one repetition of all rings produced.
pub(crate) struct RingsRun {
    pub(crate) setup_ns: u64,
    /// Per ring, the clock at its first send and at its last receive, as
    /// its relays stamped them (0: never reached).
    pub(crate) stamps: Vec<(u64, u64)>,
    /// Outcome of each relay, ring by ring.
    pub(crate) outcomes: Vec<RelayOutcome>,
}

impl RingsRun {
    /// From the earliest first send to the latest last receive of all
    /// rings; None when a ring did not stamp both.
    pub(crate) fn run_ns(&self) -> Option<u64> {
        span(&self.stamps)
    }
}

pub(super) fn span(stamps: &[(u64, u64)]) -> Option<u64> {
    if stamps.is_empty()
        || stamps
            .iter()
            .any(|&(first, last)| first == 0 || last < first)
    {
        return None;
    }
    let first = stamps.iter().map(|s| s.0).min()?;
    let last = stamps.iter().map(|s| s.1).max()?;
    Some(last - first)
}

/// Runs one repetition; `around` is called right before the numbers are
/// sent in and right after the watcher saw the last relay end (for
/// /proc/stat readings).
pub(crate) fn run(
    shape: Shape,
    echo: Option<&EchoCmd>,
    timeout: Duration,
    around: &mut dyn FnMut(bool),
) -> anyhow::Result<RingsRun> {
    let counters = Arc::new(SharedCounters::new(RingSlots::counters(shape.rings))?);
    let mut programs: Vec<Program> = Vec::new();
    let result = run_inner(shape, echo, timeout, around, &counters, &mut programs);
    // Dropping them kills (if still running) and reaps every echo program.
    drop(programs);
    result
}

fn run_inner(
    shape: Shape,
    echo: Option<&EchoCmd>,
    timeout: Duration,
    around: &mut dyn FnMut(bool),
    counters: &Arc<SharedCounters>,
    programs: &mut Vec<Program>,
) -> anyhow::Result<RingsRun> {
    let start = now_ns();
    let (ios, kicks) = build(shape, echo, counters, programs)?;
    let setup_ns = now_ns() - start;
    let mode = match shape.processes {
        true => Mode::Processes,
        false => Mode::Threads,
    };
    // Each relay process keeps only its own descriptors, so an echo
    // program sees end of input when its relay closes it.
    let mut relays = side::start_all(
        ios.into_iter()
            .map(|io| {
                (Spec::new("relay", mode), move |_: &Ready| {
                    Ok(relay::run(io))
                })
            })
            .collect(),
    )?;
    around(true);
    for kick in &kicks {
        rustix::io::write(kick, &shape.messages.to_le_bytes()).context("starting a ring")?;
    }
    drop(kicks);
    watch(&mut relays, counters, programs, shape.rings, timeout);
    around(false);
    let stamps = (0..shape.rings)
        .map(RingSlots::of)
        .map(|s| (counters.get(s.first_send), counters.get(s.last_receive)))
        .map(|(f, l)| (f.load(Ordering::Relaxed), l.load(Ordering::Relaxed)))
        .collect();
    Ok(RingsRun {
        setup_ns,
        stamps,
        outcomes: relays.iter_mut().map(outcome).collect(),
    })
}

/// Every relay's pipes and echo program; returns the relays and, per ring,
/// the write end of its first link (where the number starts).
fn build(
    shape: Shape,
    echo: Option<&EchoCmd>,
    counters: &Arc<SharedCounters>,
    programs: &mut Vec<Program>,
) -> anyhow::Result<(Vec<RelayIo>, Vec<OwnedFd>)> {
    let mut ios = Vec::new();
    let mut kicks = Vec::new();
    for ring in 0..shape.rings {
        let links: Vec<(OwnedFd, OwnedFd)> = (0..shape.relays)
            .map(|_| pipe_with(PipeFlags::CLOEXEC))
            .collect::<Result<_, _>>()
            .context("creating the ring's pipes")?;
        let (reads, writes): (Vec<_>, Vec<_>) = links.into_iter().unzip();
        let mut writes: Vec<Option<OwnedFd>> = writes.into_iter().map(Some).collect();
        // Relay i reads link i and writes link i+1; link 0 is also the
        // ring's entry.
        kicks.push(writes[0].as_ref().unwrap().try_clone()?);
        for (index, input) in reads.into_iter().enumerate() {
            let echo_io = match echo {
                Some(cmd) => {
                    let e = cmd.start()?;
                    programs.push(e.program);
                    Some((e.stdin, e.stdout))
                }
                None => None,
            };
            ios.push(RelayIo {
                ring,
                index,
                input,
                output: writes[(index + 1) % shape.relays].take().unwrap(),
                echo: echo_io,
                counters: counters.clone(),
            });
        }
    }
    Ok((ios, kicks))
}

/// Waits for every relay; on Ctrl-C, timeout or a stall the relays are
/// interrupted, and past the grace period every echo program and relay
/// process is killed, which ends any relay still blocked.
fn watch(
    relays: &mut [Side],
    counters: &SharedCounters,
    programs: &[Program],
    rings: usize,
    timeout: Duration,
) {
    let begun = Instant::now();
    let (mut last, mut moved) = (u64::MAX, Instant::now());
    let mut stopping: Option<Instant> = None;
    while !all_ended(relays) {
        side::wait_any(relays, POLL);
        if all_ended(relays) {
            break;
        }
        let progress: u64 = (0..rings)
            .map(|r| {
                counters
                    .get(RingSlots::of(r).progress)
                    .load(Ordering::Relaxed)
            })
            .sum();
        if progress != last {
            (last, moved) = (progress, Instant::now());
        }
        let stalled = moved.elapsed() >= STALL;
        if stalled {
            counters.get(STALL_SLOT).store(1, Ordering::Relaxed);
        }
        if stalled || cleanup::cancelled() || begun.elapsed() >= timeout {
            let since = *stopping.get_or_insert_with(Instant::now);
            relays.iter().for_each(Side::interrupt);
            if since.elapsed() >= GRACE {
                programs.iter().for_each(Program::kill);
                relays.iter().for_each(Side::kill);
            }
        }
    }
}

fn all_ended(relays: &[Side]) -> bool {
    relays.iter().all(Side::ended)
}

/// What one relay reported; a relay that could not report is broken.
fn outcome(relay: &mut Side) -> RelayOutcome {
    match relay.take::<RelayOutcome>() {
        Ended::Done(outcome, _) => outcome,
        Ended::Failed(_) => Err(RelayError::Broken("the relay panicked".into())),
        _ => Err(RelayError::Broken(
            "a relay process ended without a report (killed)".into(),
        )),
    }
}
