//! `poll`: an array of pollfd copied into the kernel on every call; the
//! kernel visits every entry and the caller scans every `revents`.

use super::{PollSet, Poller};
use rustix::event::{poll, PollFd, PollFlags};
use std::io;
use std::os::fd::BorrowedFd;
use std::time::Duration;

pub(crate) struct Poll;

impl Poller for Poll {
    fn name(&self) -> &'static str {
        "poll"
    }
    fn about(&self) -> &'static str {
        "poll(2): the whole pollfd array passed and scanned on every call"
    }
    fn open<'fd>(&self, capacity: usize) -> io::Result<Box<dyn PollSet<'fd> + 'fd>> {
        Ok(Box::new(PollArray {
            fds: Vec::with_capacity(capacity),
            tokens: Vec::with_capacity(capacity),
        }))
    }
}

struct PollArray<'fd> {
    fds: Vec<PollFd<'fd>>,
    tokens: Vec<usize>,
}

impl<'fd> PollSet<'fd> for PollArray<'fd> {
    fn add(&mut self, fd: BorrowedFd<'fd>, token: usize) -> io::Result<()> {
        self.fds.push(PollFd::from_borrowed_fd(fd, PollFlags::IN));
        self.tokens.push(token);
        Ok(())
    }

    fn wait(&mut self, ready: &mut Vec<usize>, timeout: Option<Duration>) -> io::Result<()> {
        let ts = timeout.map(rustix::time::Timespec::try_from).transpose();
        let ts = ts.map_err(|_| io::Error::other("poll timeout out of range"))?;
        if poll(&mut self.fds, ts.as_ref())? == 0 {
            return Ok(());
        }
        ready.extend(
            self.fds
                .iter()
                .zip(&self.tokens)
                .filter(|(fd, _)| !fd.revents().is_empty())
                .map(|(_, token)| *token),
        );
        Ok(())
    }
}
