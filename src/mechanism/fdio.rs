//! Endpoints over file descriptors, shared by the fd-based mechanisms:
//! byte streams (read until the message is complete), datagrams (one
//! message per call, length checked) and eventfd counters.
//!
//! EINTR is not retried: only the runner's interrupt (SIGUSR1, installed
//! without SA_RESTART) causes it, and it means "give up".

use super::Endpoint;
use rustix::fd::OwnedFd;
use rustix::io::{read, write};
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

pub fn read_exact(fd: &OwnedFd, mut buf: &mut [u8]) -> io::Result<()> {
    while !buf.is_empty() {
        let n = read(fd, &mut *buf)?;
        if n == 0 {
            return Err(closed());
        }
        buf = &mut buf[n..];
    }
    Ok(())
}

/// A byte stream, possibly over two one-way descriptors (pipes, FIFOs).
pub struct StreamEndpoint {
    pub rx: OwnedFd,
    pub tx: OwnedFd,
}

impl Endpoint for StreamEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        write_all(&self.tx, msg)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        read_exact(&self.rx, buf)
    }
}

/// One descriptor used in both directions (a stream socket).
pub fn socket_stream(fd: OwnedFd) -> io::Result<StreamEndpoint> {
    Ok(StreamEndpoint {
        rx: fd.try_clone()?,
        tx: fd,
    })
}

/// A connected datagram socket: one message per call.
pub struct DgramEndpoint {
    pub fd: OwnedFd,
    /// Messages that may be in flight, per message size (None: reliable).
    pub window: Option<fn(&OwnedFd, usize) -> u64>,
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
}

/// An eventfd pair: the 8-byte counter is the message.
pub struct CounterEndpoint {
    pub rx: OwnedFd,
    pub tx: OwnedFd,
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
}
