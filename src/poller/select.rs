//! `select`: the oldest readiness call. The whole interest set is copied
//! into the kernel and back on every call, and only descriptors below
//! FD_SETSIZE (1024) fit: a higher one is refused when added.

use super::{PollSet, Poller};
use crate::sys::select::{select_read, FdSet, FD_SETSIZE};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::time::Duration;

pub(crate) struct Select;

impl Poller for Select {
    fn name(&self) -> &'static str {
        "select"
    }
    fn about(&self) -> &'static str {
        "select(2): a 1024-bit fd_set copied in and out and scanned on every call"
    }
    fn max_fds(&self) -> Option<u64> {
        Some(FD_SETSIZE as u64)
    }
    fn open<'fd>(&self, capacity: usize) -> io::Result<Box<dyn PollSet<'fd> + 'fd>> {
        Ok(Box::new(SelectSet {
            set: FdSet::new(),
            fds: Vec::with_capacity(capacity),
        }))
    }
}

struct SelectSet {
    set: FdSet,
    fds: Vec<(RawFd, usize)>,
}

impl<'fd> PollSet<'fd> for SelectSet {
    fn add(&mut self, fd: BorrowedFd<'fd>, token: usize) -> io::Result<()> {
        self.set.insert(fd.as_raw_fd())?;
        self.fds.push((fd.as_raw_fd(), token));
        Ok(())
    }

    fn wait(&mut self, ready: &mut Vec<usize>, timeout: Option<Duration>) -> io::Result<()> {
        let mut result = self.set;
        if select_read(&mut result, timeout)? == 0 {
            return Ok(());
        }
        ready.extend(
            self.fds
                .iter()
                .filter(|(fd, _)| result.contains(*fd))
                .map(|(_, token)| *token),
        );
        Ok(())
    }
}
