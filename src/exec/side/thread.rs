//! A side as a thread of iolab: registered for Ctrl-C while it runs, and
//! interrupted (SIGUSR1) rather than killed, since a thread cannot be.

use super::{body, Ready, Side, Spec, Task};
use crate::exec::cleanup;
use crate::sys::rusage::Who;
use crate::sys::signals::current_thread;
use anyhow::Context;
use rustix::pipe::{pipe_with, PipeFlags};
use serde::Serialize;
use std::sync::mpsc;

pub(super) fn spawn<R, F>(spec: Spec, body: F) -> anyhow::Result<Side>
where
    R: Serialize + 'static,
    F: FnOnce(&Ready) -> anyhow::Result<R> + Send + 'static,
{
    crate::sys::signals::install_interrupt_handler();
    let (rx, tx) = pipe_with(PipeFlags::CLOEXEC)?;
    let (handle_tx, handle_rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("iolab-{}", spec.role))
        .spawn(move || {
            let me = current_thread();
            cleanup::track_thread(me);
            let _ = handle_tx.send(me);
            let ready = Ready(tx);
            let report = body::run(spec.cpu, Who::Thread, &ready, body);
            // Untracked before the report goes, so no interrupt cuts it.
            cleanup::untrack_thread(me);
            let _ = body::send(&ready, &report);
        })
        .with_context(|| format!("spawning the {} thread", spec.role))?;
    let handle = handle_rx
        .recv()
        .context("the side's thread did not start")?;
    Ok(Side::new(spec.role, rx, Task::Thread(handle)))
}
