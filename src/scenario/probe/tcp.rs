//! What the TCP checks share: a connected loopback pair, and how long the
//! peer waits until what was sent is readable.

use crate::exec::link::Link;
use crate::measure::clock::now_ns;
use anyhow::Context;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::fd::AsFd;
use std::net::TcpStream;
use std::time::Duration;

/// (sender, receiver) over loopback.
pub(crate) fn loopback_pair() -> anyhow::Result<(TcpStream, TcpStream)> {
    Link::Loopback
        .connect()
        .context("connecting a TCP pair over loopback")
}

/// Nanoseconds until `fd` is readable, or None when it was not within
/// `limit`.
pub(crate) fn until_readable(fd: impl AsFd, limit: Duration) -> anyhow::Result<Option<u64>> {
    let start = now_ns();
    let deadline = start + limit.as_nanos() as u64;
    loop {
        let now = now_ns();
        if now >= deadline {
            return Ok(None);
        }
        let left = rustix::time::Timespec::try_from(Duration::from_nanos(deadline - now))
            .context("poll timeout")?;
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&left)) {
            Ok(0) => return Ok(None),
            Ok(_) => return Ok(Some(now_ns() - start)),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e).context("poll"),
        }
    }
}
