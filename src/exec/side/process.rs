//! A side as a forked process: the one place iolab forks. The child dies
//! with iolab (see `sys::fork`), is registered for Ctrl-C from the moment
//! it exists, and is killed and reaped by its `Side` at the latest.

use super::{body, Ready, Side, Spec, Task};
use crate::exec::cleanup;
use crate::sys::fork::{exit_child, Forked};
use crate::sys::rusage::Who;
use anyhow::Context;
use rustix::pipe::{pipe_with, PipeFlags};
use rustix::process::{kill_process, waitpid, Pid, Signal, WaitOptions};
use serde::Serialize;

/// Forks a process that runs `body`, pinned to `cpu`. The body may borrow
/// from the caller (the child has its own copy of everything); for sides
/// that are always processes, such as a group of cooperating servers.
pub(crate) fn fork<R, F>(role: &'static str, cpu: Option<usize>, body: F) -> anyhow::Result<Side>
where
    R: Serialize,
    F: FnOnce(&Ready) -> anyhow::Result<R>,
{
    let spec = Spec::new(role, crate::exec::Mode::Processes).on(cpu);
    fork_leaving(spec, body, || ())
}

/// Forks the side; in the child, `leave` runs first (see `start_leaving`).
pub(super) fn fork_leaving<R, F>(spec: Spec, body: F, leave: impl FnOnce()) -> anyhow::Result<Side>
where
    R: Serialize,
    F: FnOnce(&Ready) -> anyhow::Result<R>,
{
    crate::sys::signals::install_interrupt_handler();
    let (rx, tx) = pipe_with(PipeFlags::CLOEXEC)?;
    match crate::sys::fork::fork().with_context(|| format!("fork the {}", spec.role))? {
        Forked::Child => {
            drop(rx);
            leave();
            let ready = Ready(tx);
            let report = body::run(spec.cpu, Who::Process, &ready, body);
            let sent = body::send(&ready, &report);
            exit_child(if sent.is_ok() { 0 } else { 121 })
        }
        Forked::Parent(pid) => {
            track(pid);
            let task = Task::Process { pid, reaped: false };
            Ok(Side::new(spec.role, rx, task))
        }
    }
}

/// Registers a new child for Ctrl-C; one forked after Ctrl-C dies at once.
fn track(pid: i32) {
    cleanup::track_child(pid);
    if cleanup::cancelled() {
        cleanup::kill_child(pid);
    }
}

/// Kills `pid` unless it has exited, reaps it and forgets it.
pub(super) fn stop_and_reap(pid: i32) {
    let Some(p) = Pid::from_raw(pid) else {
        return;
    };
    if let Ok(None) = waitpid(Some(p), WaitOptions::NOHANG) {
        cleanup::kill_child(pid);
        let _ = waitpid(Some(p), WaitOptions::empty());
    }
    cleanup::untrack_child(pid);
}

/// SIGUSR1, which interrupts the child's blocking call (its handler is
/// installed without SA_RESTART, and inherited through fork).
pub(super) fn interrupt(pid: i32) {
    if let Some(p) = Pid::from_raw(pid) {
        let _ = kill_process(p, Signal::USR1);
    }
}
