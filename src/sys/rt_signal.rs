//! Real-time signals as a message channel: a signal queued to one thread
//! with an 8-byte value (rt_tgsigqueueinfo, which works across processes
//! and to a thread of one's own), and taken by a thread that blocks it,
//! with sigwaitinfo (waiting) or sigtimedwait with a zero timeout (not).

use super::cvt;
use std::io;
use std::mem::{size_of, zeroed, MaybeUninit};

/// A set of signals that the calling thread blocks.
pub(crate) struct Blocked(libc::sigset_t);

/// The `n`th real-time signal from SIGRTMIN, if the system has it.
pub(crate) fn rt_signal(n: i32) -> Option<i32> {
    let sig = libc::SIGRTMIN() + n;
    (sig <= libc::SIGRTMAX()).then_some(sig)
}

/// Blocks `signals` in the calling thread (for good: a queued signal
/// that found it unblocked would take its default action, ending the
/// process); returns the set to wait on.
pub(crate) fn block(signals: &[i32]) -> io::Result<Blocked> {
    // SAFETY: sigemptyset initialises the whole set before any other use.
    let mut set: libc::sigset_t = unsafe { zeroed() };
    // SAFETY: `set` is a valid sigset_t owned here.
    cvt(unsafe { libc::sigemptyset(&mut set) })?;
    for sig in signals {
        // SAFETY: as above; an invalid number is refused with EINVAL.
        cvt(unsafe { libc::sigaddset(&mut set, *sig) })?;
    }
    // SAFETY: `set` is initialised; the old mask is not wanted.
    let ret = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    match ret {
        0 => Ok(Blocked(set)),
        err => Err(io::Error::from_raw_os_error(err)),
    }
}

/// The caller's process and thread ids, as `queue` takes them.
pub(crate) fn ids() -> (i32, i32) {
    // SAFETY: getpid and gettid have no preconditions.
    unsafe { (libc::getpid(), libc::gettid()) }
}

/// siginfo as the kernel reads it for SI_QUEUE (64-bit layout): the
/// sender's pid and uid, then the value.
#[repr(C)]
struct QueueInfo {
    signo: i32,
    errno: i32,
    code: i32,
    _align: i32,
    pid: i32,
    uid: u32,
    value: u64,
    _rest: [u8; 128 - 32],
}

const _: () = assert!(size_of::<QueueInfo>() == size_of::<libc::siginfo_t>());

/// Queues `sig` with `value` to thread `tid` of process `tgid`; EAGAIN
/// when the user's queue of pending signals (RLIMIT_SIGPENDING) is full.
pub(crate) fn queue(tgid: i32, tid: i32, sig: i32, value: u64) -> io::Result<()> {
    let info = QueueInfo {
        signo: sig,
        errno: 0,
        code: libc::SI_QUEUE,
        _align: 0,
        pid: ids().0,
        // SAFETY: getuid has no preconditions.
        uid: unsafe { libc::getuid() },
        value,
        _rest: [0; 96],
    };
    // SAFETY: `info` is a siginfo_t-sized, -laid-out struct that lives
    // across the call; the kernel only reads it.
    let ret = unsafe { libc::syscall(libc::SYS_rt_tgsigqueueinfo, tgid, tid, sig, &info) };
    match ret {
        -1 => Err(io::Error::last_os_error()),
        _ => Ok(()),
    }
}

/// Takes one pending signal of `set`: its value, or None when `wait` is
/// false and none is pending. EINTR (the runner's interrupt) is an error.
pub(crate) fn take(set: &Blocked, wait: bool) -> io::Result<Option<u64>> {
    let mut info = MaybeUninit::<libc::siginfo_t>::uninit();
    let ret = if wait {
        // SAFETY: `set` is initialised; `info` is written by the kernel.
        unsafe { libc::sigwaitinfo(&set.0, info.as_mut_ptr()) }
    } else {
        let zero = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: as above, with a valid zero timeout.
        unsafe { libc::sigtimedwait(&set.0, info.as_mut_ptr(), &zero) }
    };
    match cvt(ret) {
        Ok(_) => {
            // SAFETY: a successful call filled `info`; a queued signal's
            // value is the pointer-sized sigval.
            let value = unsafe { info.assume_init().si_value() };
            Ok(Some(value.sival_ptr as usize as u64))
        }
        Err(e) if !wait && e.raw_os_error() == Some(libc::EAGAIN) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_queued_to_this_thread_is_taken_whole_and_then_none_is_left() {
        std::thread::spawn(|| {
            let sig = rt_signal(6).unwrap();
            let set = block(&[sig]).unwrap();
            assert_eq!(take(&set, false).unwrap(), None);
            let (tgid, tid) = ids();
            queue(tgid, tid, sig, 0x0102_0304_0506_0708).unwrap();
            assert_eq!(take(&set, true).unwrap(), Some(0x0102_0304_0506_0708));
            assert_eq!(take(&set, false).unwrap(), None);
        })
        .join()
        .unwrap();
    }
}
