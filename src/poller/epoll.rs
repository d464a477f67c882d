//! `epoll-lt` and `epoll-et`: the interest set lives in the kernel, added
//! once with epoll_ctl; epoll_wait returns only the ready descriptors.
//! Level-triggered reports a descriptor while it stays readable;
//! edge-triggered only when data arrives, so its user must drain it.

use super::{PollSet, Poller};
use rustix::event::epoll::{self, CreateFlags, Event, EventData, EventFlags};
use rustix::fd::OwnedFd;
use std::io;
use std::os::fd::BorrowedFd;
use std::time::Duration;

pub(crate) struct Epoll {
    edge: bool,
}

pub(crate) static EPOLL_LT: Epoll = Epoll { edge: false };
pub(crate) static EPOLL_ET: Epoll = Epoll { edge: true };

/// At most this many ready descriptors are taken per epoll_wait.
const BATCH: usize = 1024;

impl Poller for Epoll {
    fn name(&self) -> &'static str {
        if self.edge {
            "epoll-et"
        } else {
            "epoll-lt"
        }
    }
    fn about(&self) -> &'static str {
        if self.edge {
            "epoll, edge-triggered (EPOLLET): reported once per arrival; the reader drains"
        } else {
            "epoll, level-triggered: kernel-held interest set, only ready descriptors returned"
        }
    }
    fn open<'fd>(&self, capacity: usize) -> io::Result<Box<dyn PollSet<'fd> + 'fd>> {
        Ok(Box::new(EpollSet {
            ep: epoll::create(CreateFlags::CLOEXEC)?,
            edge: self.edge,
            events: Vec::with_capacity(BATCH.min(capacity.max(1))),
            _fds: std::marker::PhantomData,
        }))
    }
}

struct EpollSet<'fd> {
    ep: OwnedFd,
    edge: bool,
    events: Vec<Event>,
    _fds: std::marker::PhantomData<BorrowedFd<'fd>>,
}

impl<'fd> PollSet<'fd> for EpollSet<'fd> {
    fn add(&mut self, fd: BorrowedFd<'fd>, token: usize) -> io::Result<()> {
        let mut flags = EventFlags::IN;
        if self.edge {
            flags |= EventFlags::ET;
        }
        epoll::add(&self.ep, fd, EventData::new_u64(token as u64), flags)?;
        Ok(())
    }

    fn wait(&mut self, ready: &mut Vec<usize>, timeout: Option<Duration>) -> io::Result<()> {
        let ts = timeout.map(rustix::time::Timespec::try_from).transpose();
        let ts = ts.map_err(|_| io::Error::other("epoll timeout out of range"))?;
        self.events.clear();
        epoll::wait(
            &self.ep,
            rustix::buffer::spare_capacity(&mut self.events),
            ts.as_ref(),
        )?;
        ready.extend(self.events.iter().map(|e| e.data.u64() as usize));
        Ok(())
    }

    fn edge_triggered(&self) -> bool {
        self.edge
    }
}
