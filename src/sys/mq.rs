//! POSIX message queues (mq_overview(7)), which rustix does not cover:
//! create or open a queue by name, send, receive, switch to O_NONBLOCK and
//! unlink. On Linux a queue descriptor is a file descriptor (close-on-exec,
//! inherited across fork, and `mq_close` is `close`), so it is held as an
//! `OwnedFd`.

use rustix::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ffi::CStr;
use std::io;

/// A queue's shape: how many messages it holds, how large each may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr {
    pub depth: usize,
    pub msgsize: usize,
}

/// Which way a descriptor is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

impl Access {
    fn flags(self) -> libc::c_int {
        match self {
            Access::Read => libc::O_RDONLY,
            Access::Write => libc::O_WRONLY,
        }
    }
}

/// An open queue descriptor; dropping it closes it.
#[derive(Debug)]
pub struct Queue(OwnedFd);

fn too_large(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("{what} out of range"))
}

fn adopt(ret: libc::mqd_t) -> io::Result<Queue> {
    let fd = super::cvt(ret)?;
    // SAFETY: mq_open just returned `fd`; nothing else owns it.
    Ok(Queue(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Creates the queue `name` (`/something`) with `attr`, mode 0600; fails
/// with EEXIST when a queue of that name exists.
pub fn create(name: &CStr, access: Access, attr: Attr) -> io::Result<Queue> {
    // SAFETY: mq_attr is plain old data; all-zero is a valid value.
    let mut raw: libc::mq_attr = unsafe { std::mem::zeroed() };
    raw.mq_maxmsg = attr.depth.try_into().map_err(|_| too_large("depth"))?;
    raw.mq_msgsize = attr.msgsize.try_into().map_err(|_| too_large("msgsize"))?;
    let flags = access.flags() | libc::O_CREAT | libc::O_EXCL;
    let mode: libc::mode_t = 0o600;
    // SAFETY: `name` is NUL-terminated; with O_CREAT, mq_open reads a mode_t
    // and a pointer to an initialised mq_attr that outlives the call.
    adopt(unsafe { libc::mq_open(name.as_ptr(), flags, mode, &raw as *const libc::mq_attr) })
}

/// Opens the existing queue `name`.
pub(crate) fn open(name: &CStr, access: Access) -> io::Result<Queue> {
    // SAFETY: `name` is NUL-terminated; without O_CREAT, mq_open reads no
    // further arguments.
    adopt(unsafe { libc::mq_open(name.as_ptr(), access.flags()) })
}

/// Removes the name; open descriptors keep the queue until they close.
pub fn unlink(name: &CStr) -> io::Result<()> {
    // SAFETY: `name` is NUL-terminated.
    super::cvt(unsafe { libc::mq_unlink(name.as_ptr()) }).map(drop)
}

impl Queue {
    fn raw(&self) -> libc::mqd_t {
        self.0.as_raw_fd()
    }

    /// Queues `msg` (priority 0), waiting for room unless non-blocking.
    pub(crate) fn send(&self, msg: &[u8]) -> io::Result<()> {
        // SAFETY: `msg` is valid for reads of `msg.len()` bytes.
        let ret = unsafe { libc::mq_send(self.raw(), msg.as_ptr().cast(), msg.len(), 0) };
        super::cvt(ret).map(drop)
    }

    /// Queues `msg` only if there is room now, whatever the blocking mode:
    /// Ok(false) when the queue is full.
    pub(crate) fn send_now(&self, msg: &[u8]) -> io::Result<bool> {
        let past = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `msg` is valid for reads of `msg.len()` bytes and `past`
        // is an initialised timespec that outlives the call.
        let ret =
            unsafe { libc::mq_timedsend(self.raw(), msg.as_ptr().cast(), msg.len(), 0, &past) };
        match super::cvt(ret) {
            Ok(_) => Ok(true),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::ETIMEDOUT)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Takes the oldest message into `buf` and returns its length. `buf`
    /// must hold the queue's `msgsize` bytes (EMSGSIZE otherwise).
    pub(crate) fn receive(&self, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes; the
        // priority pointer may be null.
        let n = unsafe {
            libc::mq_receive(
                self.raw(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                std::ptr::null_mut(),
            )
        };
        usize::try_from(n).map_err(|_| io::Error::last_os_error())
    }

    fn raw_attr(&self) -> io::Result<libc::mq_attr> {
        // SAFETY: mq_attr is plain old data; all-zero is a valid value.
        let mut raw: libc::mq_attr = unsafe { std::mem::zeroed() };
        // SAFETY: `raw` is a valid mq_attr for mq_getattr to fill.
        super::cvt(unsafe { libc::mq_getattr(self.raw(), &mut raw) })?;
        Ok(raw)
    }

    /// Sets O_NONBLOCK: a full queue's send and an empty queue's receive
    /// fail with EAGAIN (`io::ErrorKind::WouldBlock`) instead of waiting.
    pub(crate) fn set_nonblocking(&self) -> io::Result<()> {
        let mut raw = self.raw_attr()?;
        raw.mq_flags = libc::O_NONBLOCK.into();
        // SAFETY: `raw` is an initialised mq_attr; the old value is not wanted.
        super::cvt(unsafe { libc::mq_setattr(self.raw(), &raw, std::ptr::null_mut()) }).map(drop)
    }
}
