//! Running the two sides of a case as threads or as forked processes, each
//! pinned to its CPU. A side's report crosses a process boundary as JSON
//! over a pipe. When one side has finished, the other gets a grace period,
//! then is stopped (killed, or interrupted out of its blocking call), so a
//! side that waits for a message that will never come cannot hang a run.

use super::cleanup;
use super::Mode;
use crate::measure::pin::{pin_current, Cpus};
use crate::mechanism::BoxEndpoint;
use crate::sys::fork::{exit_child, fork, Forked};
use anyhow::Context;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::fd::OwnedFd;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// After one side has finished, how long the other may take to finish too.
const GRACE: Duration = Duration::from_secs(5);
/// How often a waiting runner looks at Ctrl-C and re-sends interrupts.
const POLL: Duration = Duration::from_millis(100);

/// What one side's code returns: its report, or why it stopped.
pub type SideResult<R> = Result<R, String>;

pub trait SideFn<R>: FnOnce(BoxEndpoint) -> anyhow::Result<R> + Send + 'static {}
impl<R, F: FnOnce(BoxEndpoint) -> anyhow::Result<R> + Send + 'static> SideFn<R> for F {}

pub struct Pair<R, FA: SideFn<R>, FB: SideFn<R>> {
    pub mode: Mode,
    pub cpus: Cpus,
    pub timeout: Duration,
    pub ends: (BoxEndpoint, BoxEndpoint),
    pub sides: (FA, FB),
    pub _report: std::marker::PhantomData<R>,
}

/// Runs both sides to completion and returns what each reported.
pub fn run_pair<R, FA, FB>(pair: Pair<R, FA, FB>) -> anyhow::Result<[SideResult<R>; 2]>
where
    R: Serialize + DeserializeOwned + Send + 'static,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    match pair.mode {
        Mode::Processes => run_processes(pair),
        Mode::Threads => run_threads(pair),
    }
}

fn flatten<R>(result: anyhow::Result<R>) -> SideResult<R> {
    result.map_err(|e| format!("{e:#}"))
}

// ---- processes ----

fn run_processes<R, FA, FB>(pair: Pair<R, FA, FB>) -> anyhow::Result<[SideResult<R>; 2]>
where
    R: Serialize + DeserializeOwned,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    let Pair {
        cpus,
        timeout,
        ends: (a, b),
        sides: (fa, fb),
        ..
    } = pair;
    let (a_rx, a_tx) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    let (b_rx, b_tx) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    let pid_a = match fork().context("fork side A")? {
        Forked::Child => {
            drop((b, a_rx, b_rx, b_tx));
            child_main(a, fa, cpus[0], a_tx)
        }
        Forked::Parent(pid) => pid,
    };
    track(pid_a);
    let pid_b = match fork() {
        Ok(Forked::Child) => {
            drop((a, a_rx, b_rx, a_tx));
            child_main(b, fb, cpus[1], b_tx)
        }
        Ok(Forked::Parent(pid)) => pid,
        Err(err) => {
            stop_and_reap(pid_a);
            return Err(err).context("fork side B");
        }
    };
    track(pid_b);
    drop((a, b, a_tx, b_tx));
    let reports = collect_reports([a_rx, b_rx], [pid_a, pid_b], timeout);
    stop_and_reap(pid_a);
    stop_and_reap(pid_b);
    Ok(reports.map(|bytes| decode::<R>(&bytes)))
}

pub(super) fn track(pid: i32) {
    cleanup::track_child(pid);
    if cleanup::cancelled() {
        cleanup::kill_child(pid);
    }
}

fn child_main<R: Serialize, F: SideFn<R>>(
    end: BoxEndpoint,
    side: F,
    cpu: Option<usize>,
    report_to: OwnedFd,
) -> ! {
    let result = pin_current(cpu)
        .with_context(|| format!("pinning to CPU {cpu:?}"))
        .and_then(|()| catch_panic(|| side(end)));
    let bytes = serde_json::to_vec(&flatten(result)).unwrap_or_default();
    let written = crate::mechanism::write_all_fd(&report_to, &bytes);
    exit_child(if written.is_ok() { 0 } else { 121 })
}

/// A panic must not unwind out of a forked child into the parent's code.
pub(super) fn catch_panic<R>(f: impl FnOnce() -> anyhow::Result<R>) -> anyhow::Result<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(anyhow::anyhow!("the side panicked")))
}

fn decode<R: DeserializeOwned>(bytes: &[u8]) -> SideResult<R> {
    if bytes.is_empty() {
        return Err("the side's process ended without a report (killed or crashed)".into());
    }
    serde_json::from_slice::<SideResult<R>>(bytes)
        .unwrap_or_else(|e| Err(format!("unreadable side report: {e}")))
}

/// Reads both report pipes to EOF. Past the timeout, or the grace period
/// after the first side finished, the remaining child is killed.
fn collect_reports(pipes: [OwnedFd; 2], pids: [i32; 2], timeout: Duration) -> [Vec<u8>; 2] {
    let mut bufs = [Vec::new(), Vec::new()];
    let mut open = [true, true];
    let mut deadline = Instant::now() + timeout;
    while open.iter().any(|o| *o) {
        let now = Instant::now();
        if now >= deadline {
            (0..2)
                .filter(|i| open[*i])
                .for_each(|i| cleanup::kill_child(pids[i]));
            deadline = now + GRACE;
        }
        let was_open = open;
        read_ready(&pipes, &mut open, &mut bufs, deadline - now);
        if was_open != open && open.iter().any(|o| *o) {
            deadline = deadline.min(Instant::now() + GRACE);
        }
    }
    bufs
}

fn read_ready(pipes: &[OwnedFd; 2], open: &mut [bool; 2], bufs: &mut [Vec<u8>; 2], wait: Duration) {
    let idx: Vec<usize> = (0..2).filter(|i| open[*i]).collect();
    let mut fds: Vec<PollFd> = idx
        .iter()
        .map(|i| PollFd::new(&pipes[*i], PollFlags::IN))
        .collect();
    let ts = rustix::time::Timespec::try_from(wait).ok();
    if poll(&mut fds, ts.as_ref()).unwrap_or(0) == 0 {
        return;
    }
    let ready: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
    for (k, i) in idx.into_iter().enumerate() {
        if !ready[k] {
            continue;
        }
        let mut chunk = [0u8; 65536];
        match rustix::io::read(&pipes[i], &mut chunk) {
            Ok(0) | Err(_) => open[i] = false,
            Ok(n) => bufs[i].extend_from_slice(&chunk[..n]),
        }
    }
}

pub(super) fn stop_and_reap(pid: i32) {
    let Some(p) = rustix::process::Pid::from_raw(pid) else {
        return;
    };
    if let Ok(None) = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::NOHANG) {
        cleanup::kill_child(pid);
        let _ = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::empty());
    }
    cleanup::untrack_child(pid);
}

// ---- threads ----

fn run_threads<R, FA, FB>(pair: Pair<R, FA, FB>) -> anyhow::Result<[SideResult<R>; 2]>
where
    R: Send + 'static,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    let Pair {
        cpus,
        timeout,
        ends: (a, b),
        sides: (fa, fb),
        ..
    } = pair;
    let (tx, rx) = mpsc::channel();
    let (handle_tx, handle_rx) = mpsc::channel();
    spawn_side(0, a, fa, cpus[0], tx.clone(), handle_tx.clone())?;
    spawn_side(1, b, fb, cpus[1], tx, handle_tx)?;
    let handles = [handle_rx.recv()?, handle_rx.recv()?];
    Ok(collect_threads(rx, handles, timeout))
}

type Handle = (usize, crate::sys::signals::ThreadHandle);

fn spawn_side<R: Send + 'static, F: SideFn<R>>(
    index: usize,
    end: BoxEndpoint,
    side: F,
    cpu: Option<usize>,
    results: mpsc::Sender<(usize, SideResult<R>)>,
    handles: mpsc::Sender<Handle>,
) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name(format!("iolab-side-{index}"))
        .spawn(move || {
            let me = crate::sys::signals::current_thread();
            cleanup::track_thread(me);
            let _ = handles.send((index, me));
            let result = pin_current(cpu)
                .with_context(|| format!("pinning to CPU {cpu:?}"))
                .and_then(|()| catch_panic(|| side(end)));
            cleanup::untrack_thread(me);
            let _ = results.send((index, flatten(result)));
        })
        .context("spawning a side thread")?;
    Ok(())
}

/// Waits for both threads; past the timeout, or the grace period after the
/// first finished, the remaining one is interrupted until it gives up.
fn collect_threads<R>(
    rx: mpsc::Receiver<(usize, SideResult<R>)>,
    handles: [Handle; 2],
    timeout: Duration,
) -> [SideResult<R>; 2] {
    let mut out: [Option<SideResult<R>>; 2] = [None, None];
    let mut deadline = Instant::now() + timeout;
    let give_up = Instant::now() + timeout + GRACE * 2;
    while out.iter().any(Option::is_none) && Instant::now() < give_up {
        let now = Instant::now();
        if now >= deadline || cleanup::cancelled() {
            // A signal can land between two system calls and be lost, so
            // keep interrupting until the thread gives up.
            for (i, thread) in handles {
                if out[i].is_none() {
                    cleanup::interrupt_thread(thread);
                }
            }
            deadline = deadline.min(now + POLL);
        }
        let wait = deadline.saturating_duration_since(now).min(POLL);
        if let Ok((i, result)) = rx.recv_timeout(wait) {
            out[i] = Some(result);
            deadline = deadline.min(Instant::now() + GRACE);
        }
    }
    out.map(|r| r.unwrap_or_else(|| Err("the side's thread did not stop when interrupted".into())))
}
