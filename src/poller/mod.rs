//! Pollers: the readiness backends (`select`, `poll`, `epoll-lt`,
//! `epoll-et`, `io-uring`), one file each behind `trait Poller`; `ALL` lists
//! them. A poller opens a `PollSet`: descriptors are added once, then each
//! `wait` returns the tokens of the readable ones.

mod epoll;
mod io_uring;
mod poll;
mod select;

pub(crate) use crate::mechanism::Support;
use std::io;
use std::os::fd::BorrowedFd;
use std::time::Duration;

pub(crate) trait Poller: Sync {
    /// The CLI name, kebab-case.
    fn name(&self) -> &'static str;
    /// One line for `iolab list`.
    fn about(&self) -> &'static str;
    fn support(&self) -> Support {
        Support::Yes
    }
    /// The most descriptors (counting from 0) it can watch, if limited.
    fn max_fds(&self) -> Option<u64> {
        None
    }
    /// An empty set sized for about `capacity` descriptors.
    fn open<'fd>(&self, capacity: usize) -> io::Result<Box<dyn PollSet<'fd> + 'fd>>;
}

/// Descriptors watched for readability. Level-triggered sets report a
/// descriptor for as long as it is readable; an edge-triggered one only
/// when new data arrives, so its user reads until a short read.
pub(crate) trait PollSet<'fd> {
    fn add(&mut self, fd: BorrowedFd<'fd>, token: usize) -> io::Result<()>;
    /// Waits until at least one descriptor is readable or `timeout` passes
    /// (None: forever), and appends the ready tokens to `ready`. A zero
    /// timeout never sleeps: it only looks (poll and select then add no
    /// wait-queue entry to the descriptors they scan).
    fn wait(&mut self, ready: &mut Vec<usize>, timeout: Option<Duration>) -> io::Result<()>;
    fn edge_triggered(&self) -> bool {
        false
    }
}

pub(crate) static ALL: &[&dyn Poller] = &[
    &select::Select,
    &poll::Poll,
    &epoll::EPOLL_LT,
    &epoll::EPOLL_ET,
    &io_uring::IoUringPoll,
];

/// The pollers' names, in `ALL`'s order.
pub(crate) fn names() -> Vec<&'static str> {
    ALL.iter().map(|p| p.name()).collect()
}

pub(crate) fn find(name: &str) -> Option<&'static dyn Poller> {
    ALL.iter().copied().find(|p| p.name() == name)
}

#[cfg(test)]
mod tests;
