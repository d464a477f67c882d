//! Endpoints over file descriptors, shared by the fd-based mechanisms:
//! byte streams (read until the message is complete), datagrams (one
//! message per call, length checked) and eventfd counters.
//!
//! Non-blocking operations (`try_send` / `try_recv`) make one system call
//! each and report EAGAIN as `Ok(false)`.
//!
//! EINTR is not retried: only the runner's interrupt (SIGUSR1, installed
//! without SA_RESTART) causes it, and it means "give up".

use super::Endpoint;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
use rustix::io::{read, write, Errno};
use std::io;

fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the other side closed the channel",
    )
}

pub fn write_all(fd: &OwnedFd, mut msg: &[u8]) -> io::Result<()> {
    while !msg.is_empty() {
        let n = write(fd, msg)?;
        msg = &msg[n..];
    }
    Ok(())
}

pub(crate) fn read_exact(fd: &OwnedFd, mut buf: &mut [u8]) -> io::Result<()> {
    while !buf.is_empty() {
        let n = read(fd, &mut *buf)?;
        if n == 0 {
            return Err(closed());
        }
        buf = &mut buf[n..];
    }
    Ok(())
}

/// Sets O_NONBLOCK on each descriptor.
pub(crate) fn nonblocking(fds: &[&OwnedFd]) -> io::Result<()> {
    for fd in fds {
        fcntl_setfl(fd, fcntl_getfl(fd)? | OFlags::NONBLOCK)?;
    }
    Ok(())
}

/// EAGAIN is `Ok(false)`, 0 bytes is a closed channel, and a call that
/// moved bytes must have moved all `want` of them.
pub(crate) fn moved(
    result: rustix::io::Result<usize>,
    want: usize,
    what: &str,
) -> io::Result<bool> {
    match result {
        Err(Errno::AGAIN) => Ok(false),
        Err(e) => Err(e.into()),
        Ok(0) if want > 0 => Err(closed()),
        Ok(n) if n == want => Ok(true),
        Ok(n) => Err(io::Error::other(format!(
            "short non-blocking {what}: {n} of {want} bytes"
        ))),
    }
}

fn try_write(fd: &OwnedFd, msg: &[u8]) -> io::Result<bool> {
    moved(write(fd, msg), msg.len(), "write")
}

pub(crate) fn try_read(fd: &OwnedFd, buf: &mut [u8]) -> io::Result<bool> {
    let want = buf.len();
    moved(read(fd, buf), want, "read")
}

/// A byte stream, possibly over two one-way descriptors (pipes, FIFOs).
pub(crate) struct StreamEndpoint {
    pub(crate) rx: OwnedFd,
    pub(crate) tx: OwnedFd,
}

impl Endpoint for StreamEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        write_all(&self.tx, msg)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        read_exact(&self.rx, buf)
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        nonblocking(&[&self.rx, &self.tx])
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        try_write(&self.tx, msg)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        try_read(&self.rx, buf)
    }

    fn readable_fd(&self) -> Option<BorrowedFd<'_>> {
        Some(self.rx.as_fd())
    }
}

/// One descriptor used in both directions (a stream socket).
pub(crate) fn socket_stream(fd: OwnedFd) -> io::Result<StreamEndpoint> {
    Ok(StreamEndpoint {
        rx: fd.try_clone()?,
        tx: fd,
    })
}

/// A connected datagram socket: one message per call.
pub(crate) struct DgramEndpoint {
    pub(crate) fd: OwnedFd,
    /// Messages that may be in flight, per message size (None: reliable).
    pub(crate) window: Option<fn(&OwnedFd, usize) -> u64>,
}

impl Endpoint for DgramEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        let n = rustix::net::send(&self.fd, msg, rustix::net::SendFlags::empty())?;
        if n != msg.len() {
            return Err(io::Error::other(format!(
                "short datagram send: {n} of {} bytes",
                msg.len()
            )));
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        let (n, full) = rustix::net::recv(&self.fd, &mut *buf, rustix::net::RecvFlags::TRUNC)
            .map_err(|e| match e {
                rustix::io::Errno::AGAIN => io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no datagram within the receive timeout (lost?)",
                ),
                other => other.into(),
            })?;
        if n == 0 && full == 0 && !buf.is_empty() {
            return Err(closed());
        }
        if full != buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("datagram of {full} bytes, expected {}", buf.len()),
            ));
        }
        Ok(())
    }

    fn window(&self, size: usize) -> Option<u64> {
        self.window.map(|f| f(&self.fd, size))
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        nonblocking(&[&self.fd])
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        let sent = rustix::net::send(&self.fd, msg, rustix::net::SendFlags::DONTWAIT);
        moved(sent, msg.len(), "send")
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        let want = buf.len();
        let flags = rustix::net::RecvFlags::DONTWAIT | rustix::net::RecvFlags::TRUNC;
        let got = rustix::net::recv(&self.fd, buf, flags).map(|(_, full)| full);
        moved(got, want, "recv")
    }

    fn readable_fd(&self) -> Option<BorrowedFd<'_>> {
        Some(self.fd.as_fd())
    }
}

/// An eventfd pair: the 8-byte counter is the message.
pub(crate) struct CounterEndpoint {
    pub(crate) rx: OwnedFd,
    pub(crate) tx: OwnedFd,
}

impl Endpoint for CounterEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        write_all(&self.tx, msg)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        let n = read(&self.rx, &mut *buf)?;
        if n != buf.len() {
            return Err(io::Error::other(format!("eventfd read of {n} bytes")));
        }
        Ok(())
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        nonblocking(&[&self.rx, &self.tx])
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        try_write(&self.tx, msg)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        try_read(&self.rx, buf)
    }
}
