//! Two sides that borrow from their caller: threads of this process that
//! share memory by reference (a cache line, a futex word, a pipe's two
//! ends), run to completion and joined. Unlike `start`, nothing here can
//! run elsewhere, so these are always threads.

use crate::exec::cleanup;
use crate::measure::pin::pin_current;
use crate::sys::signals::{current_thread, ThreadHandle};

/// Runs `a` and `b` at once on two threads (`a` started first), each
/// pinned to its CPU of `cpus` when it can be (two bodies that wait for
/// each other must both run) and registered for Ctrl-C; returns what each
/// returned, or that it panicked.
pub(crate) fn both<A: Send, B: Send>(
    cpus: [Option<usize>; 2],
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (std::thread::Result<A>, std::thread::Result<B>) {
    crate::sys::signals::install_interrupt_handler();
    std::thread::scope(|s| {
        let a = s.spawn(move || placed(cpus[0], a));
        let b = s.spawn(move || placed(cpus[1], b));
        (a.join(), b.join())
    })
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
