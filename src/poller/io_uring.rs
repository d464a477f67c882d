//! `io-uring`: readiness as completions. Each descriptor gets a one-shot
//! IORING_OP_POLL_ADD (POLLIN); when it completes the token is reported and
//! the request is re-armed on the next `wait`, after the reader has read,
//! so the set behaves level-triggered. Re-arms and the wait share one
//! io_uring_enter; a zero timeout submits them without waiting and takes
//! the completions already there.

use super::{PollSet, Poller, Support};
use crate::sys::uring_poll::PollRing;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::time::Duration;

pub(crate) struct IoUringPoll;

/// Submission queue entries; more queued requests are submitted in batches.
const SUBMISSIONS: u32 = 1024;

impl Poller for IoUringPoll {
    fn name(&self) -> &'static str {
        "io-uring"
    }
    fn about(&self) -> &'static str {
        "io_uring one-shot IORING_OP_POLL_ADD per descriptor, re-armed after each completion"
    }
    fn support(&self) -> Support {
        match PollRing::new(8, 16) {
            Ok(_) => Support::Yes,
            Err(e) => Support::No(format!("cannot create an io_uring: {e}")),
        }
    }
    fn open<'fd>(&self, capacity: usize) -> io::Result<Box<dyn PollSet<'fd> + 'fd>> {
        // Every armed request may complete at once: the completion queue
        // holds them all, so none is ever dropped or deferred.
        let completions = (capacity as u32 + 1).next_power_of_two();
        Ok(Box::new(UringSet {
            ring: PollRing::new(SUBMISSIONS, completions)?,
            fds: Vec::with_capacity(capacity),
            rearm: Vec::new(),
            _fds: std::marker::PhantomData,
        }))
    }
}

struct UringSet<'fd> {
    ring: PollRing,
    /// Descriptor and token of each request; the request's user data is
    /// the index here.
    fds: Vec<(RawFd, usize)>,
    /// Indices whose one-shot request completed and must be armed again.
    rearm: Vec<usize>,
    _fds: std::marker::PhantomData<BorrowedFd<'fd>>,
}

impl<'fd> PollSet<'fd> for UringSet<'fd> {
    fn add(&mut self, fd: BorrowedFd<'fd>, token: usize) -> io::Result<()> {
        let index = self.fds.len();
        self.fds.push((fd.as_raw_fd(), token));
        self.ring.queue_poll(fd.as_raw_fd(), index as u64)
    }

    fn wait(&mut self, ready: &mut Vec<usize>, timeout: Option<Duration>) -> io::Result<()> {
        for index in std::mem::take(&mut self.rearm) {
            self.ring.queue_poll(self.fds[index].0, index as u64)?;
        }
        match timeout {
            Some(Duration::ZERO) => self.ring.submit()?,
            _ => self.ring.submit_and_wait(timeout)?,
        }
        let mut failed = None;
        let (fds, rearm) = (&self.fds, &mut self.rearm);
        self.ring.drain(|index, result| {
            if result < 0 {
                failed = Some(io::Error::from_raw_os_error(-result));
            }
            if let Some((_, token)) = fds.get(index as usize) {
                ready.push(*token);
                rearm.push(index as usize);
            }
        });
        failed.map_or(Ok(()), Err)
    }
}
