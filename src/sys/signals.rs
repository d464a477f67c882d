//! Waking a peer thread out of a blocking system call. SIGUSR1 gets a
//! handler that does nothing and is installed without SA_RESTART, so a
//! blocked read or write returns EINTR and the side can give up cleanly.

use std::io;
use std::sync::Once;

/// A thread that can be interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ThreadHandle(libc::pthread_t);

extern "C" fn ignore_signal(_: libc::c_int) {}

/// Installs the SIGUSR1 handler once per process.
pub(crate) fn install_interrupt_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: sigaction is plain old data; zeroed means no flags and an
        // empty mask, and the handler is an `extern "C"` fn that does nothing.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = ignore_signal as *const () as libc::sighandler_t;
        // SAFETY: `action` is fully initialised; the old action is not wanted.
        unsafe { libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()) };
    });
}

pub(crate) fn current_thread() -> ThreadHandle {
    // SAFETY: pthread_self has no preconditions.
    ThreadHandle(unsafe { libc::pthread_self() })
}

/// Sends SIGUSR1 to `thread`; its blocking call returns EINTR.
pub(crate) fn interrupt(thread: ThreadHandle) -> io::Result<()> {
    // SAFETY: the handle came from pthread_self of a thread the runner still
    // joins or tracks, so it names a live thread (or an exited, unjoined one,
    // for which pthread_kill reports ESRCH).
    let ret = unsafe { libc::pthread_kill(thread.0, libc::SIGUSR1) };
    if ret == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(ret))
    }
}
