//! Messages between io_urings: IORING_OP_MSG_RING (Linux 5.18) posts a
//! completion on another ring, with a `user_data` and a `res` the sender
//! chooses, and completes on the sender's own ring too. Pushing a
//! submission entry is `unsafe` in the io-uring crate because most
//! operations carry buffers; a MSG_RING carries none, so the wrapper here
//! is safe.

use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::time::Duration;

/// One ring that sends MSG_RINGs and takes the completions posted on it.
pub(crate) struct MsgRing {
    ring: IoUring,
}

/// One completion: a message posted by another ring (its `user_data` and
/// `res` are the sender's), or this ring's own MSG_RING finishing (its
/// `user_data` is the tag given to `post`, `res` 0 or minus an errno).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Completion {
    pub(crate) user_data: u64,
    pub(crate) res: i32,
}

impl MsgRing {
    /// A ring whose completion queue holds `completions` entries.
    pub(crate) fn new(completions: u32) -> io::Result<MsgRing> {
        let ring = IoUring::builder()
            .setup_cqsize(completions.max(8))
            .build(8)?;
        Ok(MsgRing { ring })
    }

    /// A descriptor of this ring of its own, the target other rings post
    /// to (kept by the peer end, so it outlives this ring's end in another
    /// process).
    pub(crate) fn dup(&self) -> io::Result<OwnedFd> {
        // SAFETY: the ring's descriptor stays open while `self` lives, and
        // the borrow ends with the duplication.
        let fd = unsafe { BorrowedFd::borrow_raw(self.ring.as_raw_fd()) };
        Ok(rustix::io::fcntl_dupfd_cloexec(fd, 0)?)
    }

    /// Submits a MSG_RING that posts (`user_data`, `res`) on the ring
    /// `target`; it completes on this ring with `tag` as its user_data.
    pub(crate) fn post(
        &mut self,
        target: BorrowedFd,
        user_data: u64,
        res: i32,
        tag: u64,
    ) -> io::Result<()> {
        let target = types::Fd(target.as_raw_fd());
        let entry = opcode::MsgRingData::new(target, res, user_data, None)
            .build()
            .user_data(tag);
        // SAFETY: a MSG_RING references no memory of ours (no buffer), only
        // the target ring's descriptor number; a descriptor that is not a
        // ring makes the request complete with an error.
        unsafe { self.ring.submission().push(&entry) }
            .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        loop {
            match self.ring.submit() {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other.map(drop),
            }
        }
    }

    /// Waits until a completion is there or `timeout` has passed (which
    /// is not an error: `take` then finds nothing); a signal ends the wait
    /// early in the same way.
    pub(crate) fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        let ts = types::Timespec::from(timeout);
        let args = types::SubmitArgs::new().timespec(&ts);
        match self.ring.submitter().submit_with_args(1, &args) {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME | libc::EINTR)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The next completion on this ring, if there is one.
    pub(crate) fn take(&mut self) -> Option<Completion> {
        self.ring.completion().next().map(|cqe| Completion {
            user_data: cqe.user_data(),
            res: cqe.result(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn a_message_arrives_on_the_target_and_the_send_completes_on_the_sender() {
        let (Ok(mut a), Ok(mut b)) = (MsgRing::new(8), MsgRing::new(8)) else {
            eprintln!("skipped: no io_uring here");
            return;
        };
        let target = b.dup().unwrap();
        a.post(target.as_fd(), 0x1122_3344_5566_7788, 8, 99)
            .unwrap();
        b.wait(Duration::from_secs(5)).unwrap();
        let got = b.take();
        let own = a.take();
        if own.is_some_and(|c| c.res == -libc::EINVAL) {
            eprintln!("skipped: this kernel has no IORING_OP_MSG_RING");
            return;
        }
        let want = Completion {
            user_data: 0x1122_3344_5566_7788,
            res: 8,
        };
        assert_eq!(got, Some(want));
        assert_eq!(
            own,
            Some(Completion {
                user_data: 99,
                res: 0
            })
        );
        assert_eq!(b.take(), None);
    }
}
