//! The cancel flag: set once by the first SIGINT or SIGTERM (the handler is
//! in `exec::cleanup`), read by every loop that may run long, down to the
//! mechanisms' waits, so a run stops wherever it is.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that cancelled the run; 0 while none has.
static CANCELLED_BY: AtomicI32 = AtomicI32::new(0);

pub(crate) fn cancelled() -> bool {
    cancelled_by().is_some()
}

/// The signal (SIGINT or SIGTERM) that cancelled the run, if one did.
pub(crate) fn cancelled_by() -> Option<i32> {
    Some(CANCELLED_BY.load(Ordering::SeqCst)).filter(|signal| *signal != 0)
}

/// Records `signal` as the one that cancelled the run; true if it is the
/// first, false if the run was cancelled already.
pub(crate) fn cancel(signal: i32) -> bool {
    CANCELLED_BY
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}
