//! The perf event ioctls perf-event2 has no call for: an ftrace filter on
//! a tracepoint event (`PERF_EVENT_IOC_SET_FILTER`), so the kernel drops
//! what the filter rejects before counting it, and one event's records
//! sent into another event's ring buffer (`PERF_EVENT_IOC_SET_OUTPUT`).

use std::ffi::CString;
use std::io;
use std::os::fd::AsRawFd;

/// `_IOW('$', 6, char *)`.
const PERF_EVENT_IOC_SET_FILTER: libc::c_ulong = 0x4008_2406;
/// `_IO('$', 5)`.
const PERF_EVENT_IOC_SET_OUTPUT: libc::c_ulong = 0x2405;

/// Sets `filter` (ftrace syntax, e.g. `common_pid == 42`) on the tracepoint
/// event `event`.
pub(crate) fn set_filter(event: &impl AsRawFd, filter: &str) -> io::Result<()> {
    let text = CString::new(filter).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // The kernel only reads the NUL-terminated string, which outlives the call.
    ioctl(
        event,
        PERF_EVENT_IOC_SET_FILTER,
        text.as_ptr() as libc::c_ulong,
    )
}

/// Sends `event`'s records into `ring`'s ring buffer (same CPU, same clock).
pub(crate) fn set_output(event: &impl AsRawFd, ring: &impl AsRawFd) -> io::Result<()> {
    ioctl(
        event,
        PERF_EVENT_IOC_SET_OUTPUT,
        ring.as_raw_fd() as libc::c_ulong,
    )
}

fn ioctl(event: &impl AsRawFd, request: libc::c_ulong, arg: libc::c_ulong) -> io::Result<()> {
    // SAFETY: the descriptor is a live perf event borrowed for the call;
    // `arg` is a descriptor number or a pointer the caller keeps alive.
    let ret = unsafe { libc::ioctl(event.as_raw_fd(), request as _, arg) };
    super::cvt(ret).map(drop)
}
