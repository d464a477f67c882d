//! Thin, safe wrappers over the kernel APIs that rustix does not cover the
//! way iolab needs them. This is the only module allowed to use `unsafe`;
//! every block carries a `// SAFETY:` line.

mod alloc;
pub(crate) mod close_fds;
pub mod fork;
pub(crate) mod kernel_text;
pub mod mmap;
pub mod mq;
pub mod owner;
pub(crate) mod perf_ioctl;
pub(crate) mod rt_signal;
pub mod rusage;
pub(crate) mod select;
pub mod shared;
pub(crate) mod signals;
pub(crate) mod spawn;
pub(crate) mod sysv_msg;
pub(crate) mod tcp_info;
pub(crate) mod tsc;
pub(crate) mod uring;
pub(crate) mod uring_msg;
pub(crate) mod uring_poll;
pub(crate) mod vmsplice;

use std::io;

/// Turns a libc-style `-1` return into the thread's `errno` as `io::Error`.
pub(crate) fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}
