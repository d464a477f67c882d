//! Two sides that borrow from their caller: threads of this process that
//! share memory by reference (a cache line, a futex word, a pipe's two
//! ends), run to completion and joined. Unlike `start`, nothing here can
//! run elsewhere, so these are always threads.

use crate::exec::cleanup;
use crate::measure::pin::pin_current;
use crate::sys::signals::{current_thread, ThreadHandle};
use anyhow::Context;
use std::sync::{Condvar, Mutex};

/// What each of two bodies returned, or that it panicked.
pub(crate) type Joined<A, B> = (std::thread::Result<A>, std::thread::Result<B>);

/// Runs `a` and `b` at once on two threads, each
/// pinned to its CPU of `cpus` when it can be (two bodies that wait for
/// each other must both run) and registered for Ctrl-C; returns what each
/// returned, or that it panicked. Neither body starts until both threads
/// exist, so a second thread that cannot be started (a tight `ulimit -v`)
/// is an error and never leaves the first waiting for its peer.
pub(crate) fn both<A: Send, B: Send>(
    cpus: [Option<usize>; 2],
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> anyhow::Result<Joined<A, B>> {
    crate::sys::signals::install_interrupt_handler();
    let gate = Gate::default();
    std::thread::scope(|s| {
        let started = spawn_gated(s, &gate, cpus[0], a)
            .and_then(|a| Ok((a, spawn_gated(s, &gate, cpus[1], b)?)));
        gate.open(started.is_ok());
        let (a, b) = started.context("cannot start a thread for a side")?;
        Ok((ran(a.join()), ran(b.join())))
    })
}

/// A thread that runs `body` once the gate opens, or nothing if it closes.
fn spawn_gated<'scope, T: Send + 'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    gate: &'scope Gate,
    cpu: Option<usize>,
    body: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, Option<T>>> {
    std::thread::Builder::new().spawn_scoped(s, move || gate.wait().then(|| placed(cpu, body)))
}

/// A body behind an opened gate always ran: its `None` cannot occur.
fn ran<T>(joined: std::thread::Result<Option<T>>) -> std::thread::Result<T> {
    joined.map(|body| body.expect("an opened gate runs the body"))
}

/// Opened once: true lets both bodies run, false sends both threads home.
#[derive(Default)]
struct Gate {
    state: Mutex<Option<bool>>,
    changed: Condvar,
}

impl Gate {
    fn open(&self, run: bool) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = Some(run);
        self.changed.notify_all();
    }

    fn wait(&self) -> bool {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let opened = self.changed.wait_while(state, |s| s.is_none());
        opened.unwrap_or_else(|p| p.into_inner()).unwrap_or(false)
    }
}

fn placed<T>(cpu: Option<usize>, f: impl FnOnce() -> T) -> T {
    let _tracked = Tracked::new();
    let _ = pin_current(cpu);
    f()
}

/// Registered for Ctrl-C until dropped, also when the body panics.
struct Tracked(ThreadHandle);

impl Tracked {
    fn new() -> Tracked {
        let me = current_thread();
        cleanup::track_thread(me);
        Tracked(me)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        cleanup::untrack_thread(self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_closed_gate_sends_a_started_side_home_without_running_its_body() {
        let ran = AtomicBool::new(false);
        let gate = Gate::default();
        let returned = std::thread::scope(|s| {
            let side = spawn_gated(s, &gate, None, || ran.store(true, Ordering::SeqCst)).unwrap();
            gate.open(false);
            side.join().unwrap()
        });
        assert!(returned.is_none(), "a closed gate returns no body's value");
        assert!(!ran.load(Ordering::SeqCst));
    }
}
