//! One side of an experiment, however it runs. A scenario describes a side
//! (a `Spec`: its role, how it runs, the CPU it is placed on) and gives its
//! body; the harness starts it as a thread of iolab or as a forked process,
//! pins it, runs the body with its start barrier (`Ready`), measures the
//! CPU time and context switches the body cost, and hands back a `Side`:
//! the one handle through which the scenario waits for the side,
//! interrupts or kills it, and takes what it reported. Where a side runs is
//! the harness's business; a side on another host, whose body cannot be a
//! closure, is `exec::remote`'s, and reports the same way.
//!
//! Every side has a status pipe. The side writes a "ready" byte there when
//! its body says so, then its report (JSON, from a thread as from a
//! process, as it would come from another host), and the pipe closes when
//! the side has ended; so one poll waits on any set of sides. (A process
//! forked while a thread side runs would inherit that side's end of the
//! pipe: start process sides first, as contention does with its hogs.)

mod body;
mod process;
mod scoped;
mod status;
#[cfg(test)]
mod tests;
mod thread;

use super::Mode;
use crate::error::Unsupported;
use crate::sys::rusage::Usage;
use anyhow::Context;
use rustix::fd::OwnedFd;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io;
use std::time::Instant;

pub(crate) use process::fork;
pub(crate) use scoped::both;
pub(crate) use status::{tick, wait_any, wait_ready, watch};

/// What a side is and where it runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec {
    /// Names the side in errors ("the server ended without a report").
    pub(crate) role: &'static str,
    pub(crate) mode: Mode,
    /// The CPU the side is pinned to; None leaves it to the scheduler.
    pub(crate) cpu: Option<usize>,
}

impl Spec {
    pub(crate) fn new(role: &'static str, mode: Mode) -> Spec {
        Spec {
            role,
            mode,
            cpu: None,
        }
    }

    pub(crate) fn on(self, cpu: Option<usize>) -> Spec {
        Spec { cpu, ..self }
    }
}

const READY: u8 = b'R';

/// Held by a side's body: its end of the start barrier (and, once the body
/// has returned, the way its report goes back).
pub(crate) struct Ready(OwnedFd);

impl Ready {
    /// Tells whoever waits in `wait_ready` that this side is ready.
    pub(crate) fn signal(&self) -> io::Result<()> {
        crate::mechanism::write_all_fd(&self.0, &[READY])
    }
}

/// What a side sends back when its body has returned.
#[derive(Serialize, Deserialize)]
struct Report<R> {
    outcome: Outcome<R>,
    /// CPU time and context switches of the body (not of the pinning).
    usage: Usage,
}

#[derive(Serialize, Deserialize)]
enum Outcome<R> {
    Done(R),
    Failed(String),
    Unsupported(String),
}

/// How a side ended, as its owner learns it.
#[derive(Debug)]
pub(crate) enum Ended<R> {
    /// The body returned this, having cost `Usage`.
    Done(R, Usage),
    /// The body failed (or panicked, or the side could not be pinned).
    Failed(String),
    /// The body found something missing (`error::Unsupported`).
    Unsupported(String),
    /// The side ended without a report: killed or crashed.
    NoReport,
    /// The side's report could not be read back.
    Unreadable(String),
    /// The side has not ended: a thread that did not stop when interrupted.
    Running,
}

impl<R> Ended<R> {
    /// The value, or an error that names the side by `role`.
    pub(crate) fn into_result(self, role: &str) -> anyhow::Result<R> {
        self.into_accounted(role).map(|(value, _)| value)
    }

    /// The value and what the body cost, or an error naming the side.
    pub(crate) fn into_accounted(self, role: &str) -> anyhow::Result<(R, Usage)> {
        match self {
            Ended::Done(value, usage) => Ok((value, usage)),
            Ended::Failed(why) => Err(anyhow::anyhow!("{role}: {why}")),
            Ended::Unsupported(why) => Err(Unsupported(why).into()),
            Ended::NoReport => Err(anyhow::anyhow!(
                "the {role} ended without a report (killed or crashed)"
            )),
            Ended::Unreadable(e) => Err(anyhow::anyhow!("unreadable report from the {role}: {e}")),
            Ended::Running => Err(anyhow::anyhow!("the {role} did not stop when interrupted")),
        }
    }
}

/// How the harness reaches a running side.
enum Task {
    Thread(crate::sys::signals::ThreadHandle),
    Process { pid: i32, reaped: bool },
}

/// The owner's handle on one running side. Dropping it kills and reaps a
/// process side, and interrupts a thread side that has not ended.
pub(crate) struct Side {
    role: &'static str,
    status: OwnedFd,
    /// What came through the status pipe after the "ready" bytes.
    report: Vec<u8>,
    ready: bool,
    ended: bool,
    task: Task,
}

/// Starts a side that runs `body`, as a thread or a forked process as
/// `spec` says.
pub(crate) fn start<R, F>(spec: Spec, body: F) -> anyhow::Result<Side>
where
    R: Serialize + 'static,
    F: FnOnce(&Ready) -> anyhow::Result<R> + Send + 'static,
{
    start_leaving(spec, body, || ())
}

/// Like `start`; `leave` runs first where the side runs with a copy of
/// the caller's memory (a forked process), to drop what belongs to the
/// caller or to other sides (e.g. the write end of the pipe the side
/// drains, so it sees end of file when the caller closes its own).
pub(crate) fn start_leaving<R, F>(spec: Spec, body: F, leave: impl FnOnce()) -> anyhow::Result<Side>
where
    R: Serialize + 'static,
    F: FnOnce(&Ready) -> anyhow::Result<R> + Send + 'static,
{
    match spec.mode {
        Mode::Threads => thread::spawn(spec, body),
        Mode::Processes => process::fork_leaving(spec, body, leave),
    }
}

/// Starts every side in order; each forked one keeps only its own body
/// (the bodies not started yet are dropped in it). If one cannot start,
/// those already started are stopped.
pub(crate) fn start_all<R, F>(sides: Vec<(Spec, F)>) -> anyhow::Result<Vec<Side>>
where
    R: Serialize + 'static,
    F: FnOnce(&Ready) -> anyhow::Result<R> + Send + 'static,
{
    let mut rest = std::collections::VecDeque::from(sides);
    let mut started = Vec::with_capacity(rest.len());
    while let Some((spec, body)) = rest.pop_front() {
        started.push(start_leaving(spec, body, || {
            drop(std::mem::take(&mut rest))
        })?);
    }
    Ok(started)
}

impl Side {
    fn new(role: &'static str, status: OwnedFd, task: Task) -> Side {
        Side {
            role,
            status,
            report: Vec::new(),
            ready: false,
            ended: false,
            task,
        }
    }

    /// True once the side has ended (its status pipe closed).
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }

    /// Asks the side to give up: its blocking call returns EINTR.
    pub(crate) fn interrupt(&self) {
        if !self.ended {
            self.task.interrupt();
        }
    }

    /// Ends the side now: a process is killed; a thread, which cannot be,
    /// is interrupted.
    pub(crate) fn kill(&self) {
        if !self.ended {
            match self.task {
                Task::Process { pid, reaped: false } => super::cleanup::kill_child(pid),
                _ => self.task.interrupt(),
            }
        }
    }

    /// How the side ended. A process that is still running is killed and
    /// reaped first; call `wait_any` or `finish` to let it end by itself.
    pub(crate) fn take<R: DeserializeOwned>(&mut self) -> Ended<R> {
        self.reap();
        if !self.ended {
            return match self.task {
                Task::Thread(_) => Ended::Running,
                Task::Process { .. } => Ended::NoReport,
            };
        }
        decode(&self.report)
    }

    /// Waits for the side to end (killing a process at `deadline` or on
    /// Ctrl-C) and returns its value.
    pub(crate) fn finish<R: DeserializeOwned>(self, deadline: Instant) -> anyhow::Result<R> {
        self.finish_with_usage(deadline).map(|(value, _)| value)
    }

    /// `finish`, with the CPU time and context switches the body cost.
    pub(crate) fn finish_with_usage<R: DeserializeOwned>(
        mut self,
        deadline: Instant,
    ) -> anyhow::Result<(R, Usage)> {
        let waited = status::wait_end(&mut self, deadline);
        let ended = self.take::<R>();
        waited.with_context(|| format!("waiting for the {}", self.role))?;
        ended.into_accounted(self.role)
    }

    fn reap(&mut self) {
        if let Task::Process { pid, reaped } = &mut self.task {
            if !*reaped {
                process::stop_and_reap(*pid);
                *reaped = true;
            }
        }
    }
}

impl Task {
    fn interrupt(&self) {
        match *self {
            Task::Thread(handle) => super::cleanup::interrupt_thread(handle),
            Task::Process { pid, reaped: false } => process::interrupt(pid),
            Task::Process { .. } => {}
        }
    }
}

impl Drop for Side {
    fn drop(&mut self) {
        self.reap();
        if let Task::Thread(_) = self.task {
            self.interrupt();
        }
    }
}

fn decode<R: DeserializeOwned>(bytes: &[u8]) -> Ended<R> {
    if bytes.is_empty() {
        return Ended::NoReport;
    }
    match serde_json::from_slice::<Report<R>>(bytes) {
        Ok(Report { outcome, usage }) => match outcome {
            Outcome::Done(value) => Ended::Done(value, usage),
            Outcome::Failed(why) => Ended::Failed(why),
            Outcome::Unsupported(why) => Ended::Unsupported(why),
        },
        Err(e) => Ended::Unreadable(e.to_string()),
    }
}
