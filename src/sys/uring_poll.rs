//! Readiness through io_uring: one-shot IORING_OP_POLL_ADD requests on a
//! ring. Pushing a submission entry is `unsafe` in the io-uring crate
//! because most operations carry buffers; a poll request carries none, so
//! the wrapper here is safe.

use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

pub(crate) struct PollRing {
    ring: IoUring,
}

impl PollRing {
    /// A ring whose completion queue holds `completions` entries, so that
    /// many armed requests can all complete without overflowing it.
    pub(crate) fn new(submissions: u32, completions: u32) -> io::Result<PollRing> {
        let ring = IoUring::builder()
            .setup_cqsize(completions.max(submissions * 2))
            .build(submissions)?;
        Ok(PollRing { ring })
    }

    /// Queues a one-shot POLLIN request on `fd` that completes with
    /// `user_data`; submits first when the submission queue is full.
    pub(crate) fn queue_poll(&mut self, fd: RawFd, user_data: u64) -> io::Result<()> {
        let entry = opcode::PollAdd::new(types::Fd(fd), libc::POLLIN as u32)
            .build()
            .user_data(user_data);
        if self.ring.submission().is_full() {
            self.ring.submit()?;
        }
        // SAFETY: a poll request references no memory of ours (no buffer),
        // only the descriptor number; a descriptor closed meanwhile makes
        // the request complete with an error, not touch freed memory.
        unsafe { self.ring.submission().push(&entry) }
            .map_err(|_| io::Error::other("io_uring submission queue full after submit"))
    }

    /// Submits what is queued and waits for at least one completion, or
    /// until `timeout` (None: forever). Waiting out the timeout is not an
    /// error; the completion queue is then simply empty.
    pub(crate) fn submit_and_wait(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        let result = match timeout {
            None => self.ring.submit_and_wait(1),
            Some(t) => {
                let ts = types::Timespec::from(t);
                let args = types::SubmitArgs::new().timespec(&ts);
                self.ring.submitter().submit_with_args(1, &args)
            }
        };
        match result {
            Ok(_) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::ETIME) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Submits what is queued without waiting: one io_uring_enter, which
    /// also runs the task work that posts completions already due.
    pub(crate) fn submit(&mut self) -> io::Result<()> {
        self.ring.submit().map(drop)
    }

    /// Hands each completion (user data, result) to `f`.
    pub(crate) fn drain(&mut self, mut f: impl FnMut(u64, i32)) {
        for cqe in self.ring.completion() {
            f(cqe.user_data(), cqe.result());
        }
    }
}
