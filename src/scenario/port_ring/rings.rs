//! Building `rings` rings of `relays` relays, running their relays as
//! threads or forked processes, watching them (Ctrl-C, timeout, a ring
//! that stops making progress) and collecting every relay's outcome. All
//! echo programs are killed and reaped whatever happens. The run's time
//! comes from the clock stamps the relays leave, not from the watcher.

use super::echo::{self, EchoCmd};
use super::relay::{self, RelayIo, RelayOutcome, RingSlots, STALL_SLOT};
use crate::exec::cleanup;
use crate::measure::clock::now_ns;
use crate::sys::fork::{exit_child, fork, Forked};
use crate::sys::shared::SharedCounters;
use crate::sys::signals::{current_thread, ThreadHandle};
use anyhow::Context;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::fd::OwnedFd;
use rustix::pipe::{pipe_with, PipeFlags};
use std::process::Child;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// No ring made progress for this long: the relays are told to give up.
const STALL: Duration = Duration::from_secs(3);
/// After telling relays to stop, how long before everything is killed.
const GRACE: Duration = Duration::from_secs(3);
/// The longest the watcher waits before looking at progress, Ctrl-C and
/// the timeout again; it wakes earlier when a relay ends.
const POLL: Duration = Duration::from_millis(50);

#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub relays: usize,
    pub messages: u64,
    pub rings: usize,
    pub processes: bool,
}

/// What one repetition of all rings produced.
pub struct RingsRun {
    pub setup_ns: u64,
    /// Per ring, the clock at its first send and at its last receive, as
    /// its relays stamped them (0: never reached).
    pub stamps: Vec<(u64, u64)>,
    /// Outcome of each relay, ring by ring.
    pub outcomes: Vec<RelayOutcome>,
}

impl RingsRun {
    /// From the earliest first send to the latest last receive of all
    /// rings; None when a ring did not stamp both.
    pub fn run_ns(&self) -> Option<u64> {
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
pub fn run(
    shape: Shape,
    echo: Option<&EchoCmd>,
    timeout: Duration,
    around: &mut dyn FnMut(bool),
) -> anyhow::Result<RingsRun> {
    let counters = Arc::new(SharedCounters::new(RingSlots::counters(shape.rings))?);
    let mut children: Vec<Child> = Vec::new();
    let result = run_inner(shape, echo, timeout, around, &counters, &mut children);
    echo::reap_all(&mut children);
    result
}

fn run_inner(
    shape: Shape,
    echo: Option<&EchoCmd>,
    timeout: Duration,
    around: &mut dyn FnMut(bool),
    counters: &Arc<SharedCounters>,
    children: &mut Vec<Child>,
) -> anyhow::Result<RingsRun> {
    let start = now_ns();
    let (ios, kicks) = build(shape, echo, counters, children)?;
    let setup_ns = now_ns() - start;
    let mut relays = if shape.processes {
        Relays::processes(ios)?
    } else {
        Relays::threads(ios)?
    };
    around(true);
    for kick in &kicks {
        rustix::io::write(kick, &shape.messages.to_le_bytes()).context("starting a ring")?;
    }
    drop(kicks);
    watch(&mut relays, counters, children, shape.rings, timeout);
    around(false);
    let stamps = (0..shape.rings)
        .map(RingSlots::of)
        .map(|s| (counters.get(s.first_send), counters.get(s.last_receive)))
        .map(|(f, l)| (f.load(Ordering::Relaxed), l.load(Ordering::Relaxed)))
        .collect();
    Ok(RingsRun {
        setup_ns,
        stamps,
        outcomes: relays.outcomes(),
    })
}

/// Every relay's pipes and echo program; returns the relays and, per ring,
/// the write end of its first link (where the number starts).
fn build(
    shape: Shape,
    echo: Option<&EchoCmd>,
    counters: &Arc<SharedCounters>,
    children: &mut Vec<Child>,
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
                    let e = cmd.spawn()?;
                    children.push(e.child);
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
    relays: &mut Relays,
    counters: &SharedCounters,
    children: &[Child],
    rings: usize,
    timeout: Duration,
) {
    let begun = Instant::now();
    let (mut last, mut moved) = (u64::MAX, Instant::now());
    let mut stopping: Option<Instant> = None;
    while !relays.wait(POLL) {
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
            relays.interrupt();
            if since.elapsed() >= GRACE {
                echo::kill_all(children);
                relays.kill();
            }
        }
    }
}

enum Relays {
    Threads {
        handles: Vec<ThreadHandle>,
        rx: mpsc::Receiver<(usize, RelayOutcome)>,
        done: Vec<Option<RelayOutcome>>,
    },
    Processes {
        pids: Vec<i32>,
        reports: Vec<OwnedFd>,
        exited: Vec<bool>,
    },
}

impl Relays {
    fn threads(ios: Vec<RelayIo>) -> anyhow::Result<Relays> {
        let (tx, rx) = mpsc::channel();
        let (htx, hrx) = mpsc::channel();
        let n = ios.len();
        for (i, io) in ios.into_iter().enumerate() {
            let (tx, htx) = (tx.clone(), htx.clone());
            std::thread::Builder::new()
                .name(format!("iolab-relay-{i}"))
                .spawn(move || {
                    let me = current_thread();
                    cleanup::track_thread(me);
                    let _ = htx.send(me);
                    let outcome = relay::run(io);
                    cleanup::untrack_thread(me);
                    let _ = tx.send((i, outcome));
                })
                .context("spawning a relay thread")?;
        }
        let handles = (0..n).map(|_| hrx.recv()).collect::<Result<_, _>>()?;
        Ok(Relays::Threads {
            handles,
            rx,
            done: (0..n).map(|_| None).collect(),
        })
    }

    /// Forks one process per relay; each keeps only its own descriptors,
    /// so an echo program sees end of input when its relay closes it.
    fn processes(ios: Vec<RelayIo>) -> anyhow::Result<Relays> {
        let mut slots: Vec<Option<RelayIo>> = ios.into_iter().map(Some).collect();
        let (mut pids, mut reports) = (Vec::new(), Vec::new());
        for i in 0..slots.len() {
            let (rx, tx) = pipe_with(PipeFlags::CLOEXEC)?;
            let io = slots[i].take().unwrap();
            match fork().context("forking a relay")? {
                Forked::Child => {
                    drop((slots, reports, rx));
                    relay_main(io, tx)
                }
                Forked::Parent(pid) => {
                    cleanup::track_child(pid);
                    pids.push(pid);
                    reports.push(rx);
                }
            }
        }
        let exited = vec![false; pids.len()];
        Ok(Relays::Processes {
            pids,
            reports,
            exited,
        })
    }

    /// Waits at most `most` for a relay to end; true once all have.
    fn wait(&mut self, most: Duration) -> bool {
        if self.all_done() {
            return true;
        }
        match self {
            Relays::Threads { rx, done, .. } => {
                if let Ok((i, outcome)) = rx.recv_timeout(most) {
                    done[i] = Some(outcome);
                }
            }
            Relays::Processes {
                reports, exited, ..
            } => wait_hangup(reports, exited, most),
        }
        self.all_done()
    }

    fn all_done(&mut self) -> bool {
        match self {
            Relays::Threads { rx, done, .. } => {
                while let Ok((i, outcome)) = rx.try_recv() {
                    done[i] = Some(outcome);
                }
                done.iter().all(Option::is_some)
            }
            Relays::Processes { pids, exited, .. } => {
                for (pid, gone) in pids.iter().zip(exited.iter_mut()) {
                    *gone = *gone || reaped(*pid);
                }
                exited.iter().all(|g| *g)
            }
        }
    }

    fn interrupt(&self) {
        match self {
            Relays::Threads { handles, .. } => {
                handles.iter().for_each(|h| cleanup::interrupt_thread(*h))
            }
            Relays::Processes { pids, exited, .. } => {
                for (pid, _) in pids.iter().zip(exited).filter(|(_, g)| !**g) {
                    if let Some(p) = rustix::process::Pid::from_raw(*pid) {
                        let _ = rustix::process::kill_process(p, rustix::process::Signal::USR1);
                    }
                }
            }
        }
    }

    fn kill(&self) {
        if let Relays::Processes { pids, exited, .. } = self {
            for (pid, _) in pids.iter().zip(exited).filter(|(_, g)| !**g) {
                cleanup::kill_child(*pid);
            }
        }
    }

    fn outcomes(self) -> Vec<RelayOutcome> {
        match self {
            Relays::Threads { done, .. } => done.into_iter().map(Option::unwrap).collect(),
            Relays::Processes { reports, .. } => reports.iter().map(read_report).collect(),
        }
    }
}

/// Waits at most `most` until a relay process that has not exited yet
/// closes its report pipe, which it does by exiting (a hang-up is reported
/// whatever events are asked for).
fn wait_hangup(reports: &[OwnedFd], exited: &[bool], most: Duration) {
    let mut fds: Vec<PollFd> = reports
        .iter()
        .zip(exited)
        .filter(|(_, gone)| !**gone)
        .map(|(fd, _)| PollFd::new(fd, PollFlags::empty()))
        .collect();
    let Ok(ts) = rustix::time::Timespec::try_from(most) else {
        return;
    };
    let _ = poll(&mut fds, Some(&ts));
}

/// True once `pid` has exited and been reaped.
fn reaped(pid: i32) -> bool {
    let Some(p) = rustix::process::Pid::from_raw(pid) else {
        return true;
    };
    match rustix::process::waitpid(Some(p), rustix::process::WaitOptions::NOHANG) {
        Ok(None) => false,
        _ => {
            cleanup::untrack_child(pid);
            true
        }
    }
}

fn relay_main(io: RelayIo, report: OwnedFd) -> ! {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| relay::run(io)))
        .unwrap_or_else(|_| Err(relay::RelayError::Broken("the relay panicked".into())));
    let bytes = serde_json::to_vec(&outcome).unwrap_or_default();
    let ok = crate::mechanism::write_all_fd(&report, &bytes).is_ok();
    exit_child(if ok { 0 } else { 121 })
}

fn read_report(fd: &OwnedFd) -> RelayOutcome {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n @ 1..) = rustix::io::read(fd, &mut chunk) {
        bytes.extend_from_slice(&chunk[..n]);
    }
    serde_json::from_slice(&bytes).unwrap_or_else(|_| {
        Err(relay::RelayError::Broken(
            "a relay process ended without a report (killed)".into(),
        ))
    })
}
