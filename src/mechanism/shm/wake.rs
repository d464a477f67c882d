//! How a side that cannot go on (ring empty, or full) waits, and how the
//! other side wakes it. `spin` busy-polls (checking every few
//! hundred spins whether the peer closed or the run was cancelled, and yielding
//! the CPU, which a same-cpu placement needs). The sleeping modes announce
//! "I am going to sleep" in a flag, re-check the ring, then block on a
//! futex, an eventfd or a FIFO; the other side, after publishing progress,
//! issues a wake-up only when that flag is set (Dekker-style: both sides
//! write, SeqCst fence, then read the other's word, so at least one of them
//! sees the other). A busy consumer thus costs no system calls. Every
//! system call made here is counted.

use super::ring::Layout;
use crate::sys::shared::SharedRegion;
use rustix::fd::OwnedFd;
use rustix::io::{read, write, Errno};
use rustix::thread::futex;
use std::io;
use std::sync::atomic::{fence, AtomicU32, Ordering};
use std::sync::Arc;

pub(crate) const MODES: &[&str] = &["spin", "futex", "eventfd", "fifo"];

/// Spins between two looks at "closed?", "cancelled?" and a sched_yield.
const SPINS_PER_CHECK: u32 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Spin,
    Futex,
    EventFd,
    Fifo,
}

impl Mode {
    pub(crate) fn parse(name: &str) -> Option<Mode> {
        match name {
            "spin" => Some(Mode::Spin),
            "futex" => Some(Mode::Futex),
            "eventfd" => Some(Mode::EventFd),
            "fifo" => Some(Mode::Fifo),
            _ => None,
        }
    }
}

/// What a side waits for; each has its own flag, so progress of one kind
/// wakes only a side waiting for that kind.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Want {
    Data = 0,
    Space = 4,
}

const CLOSED: usize = 8;

/// The descriptors of a sleeping mode: the one this side blocks on, and the
/// peer's, to wake it.
pub(crate) struct Channel {
    pub(crate) rx: OwnedFd,
    pub(crate) tx: OwnedFd,
}

pub(crate) struct Waker {
    region: Arc<SharedRegion>,
    mine: usize,
    peer: usize,
    mode: Mode,
    channel: Option<Channel>,
    pub(crate) syscalls: u64,
}

pub(crate) fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the other side closed the channel",
    )
}

impl Waker {
    pub(crate) fn new(
        region: Arc<SharedRegion>,
        side: usize,
        mode: Mode,
        channel: Option<Channel>,
    ) -> Self {
        Waker {
            region,
            mine: Layout::flags(side),
            peer: Layout::flags(1 - side),
            mode,
            channel,
            syscalls: 0,
        }
    }

    fn word(&self, line: usize, at: usize) -> &AtomicU32 {
        self.region.atomic_u32(line + at)
    }

    pub(crate) fn peer_closed(&self) -> bool {
        self.word(self.peer, CLOSED).load(Ordering::Acquire) != 0
    }

    /// Waits until `ready()` gives a value, and returns it; an error if
    /// the peer closed first. Inlined, so that a spinning side's loop is
    /// one load and a compare, and the value it found is used as it is.
    #[inline]
    pub(crate) fn wait_for<T>(
        &mut self,
        want: Want,
        mut ready: impl FnMut() -> Option<T>,
    ) -> io::Result<T> {
        let mut spins = 0u32;
        loop {
            if let Some(value) = ready() {
                return Ok(value);
            }
            if self.mode != Mode::Spin {
                self.sleep(want, &mut || ready().is_some())?;
                continue;
            }
            std::hint::spin_loop();
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(SPINS_PER_CHECK) {
                if let Err(e) = self.checkpoint() {
                    return ready().ok_or(e);
                }
            }
        }
    }

    fn checkpoint(&mut self) -> io::Result<()> {
        if self.peer_closed() {
            return Err(closed());
        }
        if crate::cancel::cancelled() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "cancelled"));
        }
        self.syscalls += 1;
        rustix::thread::sched_yield();
        Ok(())
    }

    fn sleep(&mut self, want: Want, ready: &mut impl FnMut() -> bool) -> io::Result<()> {
        let flag = self.word(self.mine, want as usize);
        flag.store(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // The peer publishes its last data before it closes: a side that
        // sees it closed looks for data once more before giving up.
        let result = if ready() {
            Ok(())
        } else if self.peer_closed() {
            if ready() {
                Ok(())
            } else {
                Err(closed())
            }
        } else {
            self.syscalls += 1;
            self.block(want)
        };
        self.word(self.mine, want as usize)
            .store(0, Ordering::SeqCst);
        result
    }

    fn block(&self, want: Want) -> io::Result<()> {
        let flag = self.word(self.mine, want as usize);
        match (self.mode, &self.channel) {
            (Mode::Futex, _) => match futex::wait(flag, futex::Flags::empty(), 1, None) {
                Ok(()) | Err(Errno::AGAIN) => Ok(()),
                Err(e) => Err(e.into()),
            },
            (_, Some(ch)) => match read(&ch.rx, &mut [0u8; 64])? {
                0 => Err(closed()),
                _ => Ok(()),
            },
            (_, None) => Ok(()),
        }
    }

    /// Tells the peer about progress it may be sleeping on.
    #[inline]
    pub(crate) fn notify(&mut self, want: Want) -> io::Result<()> {
        if self.mode == Mode::Spin {
            return Ok(());
        }
        self.notify_sleeper(want)
    }

    fn notify_sleeper(&mut self, want: Want) -> io::Result<()> {
        fence(Ordering::SeqCst);
        let flag = self.word(self.peer, want as usize);
        if flag.load(Ordering::Relaxed) == 0 || flag.swap(0, Ordering::SeqCst) == 0 {
            return Ok(());
        }
        self.syscalls += 1;
        self.kick(want)
    }

    fn kick(&self, want: Want) -> io::Result<()> {
        match (self.mode, &self.channel) {
            (Mode::Futex, _) => {
                let flag = self.word(self.peer, want as usize);
                futex::wake(flag, futex::Flags::empty(), 1)?;
            }
            (Mode::EventFd, Some(ch)) => {
                write(&ch.tx, &1u64.to_ne_bytes())?;
            }
            (_, Some(ch)) => {
                write(&ch.tx, &[1u8])?;
            }
            (_, None) => {}
        }
        Ok(())
    }

    /// Marks this side closed and wakes the peer if it sleeps.
    pub(crate) fn close(&mut self) {
        self.word(self.mine, CLOSED).store(1, Ordering::SeqCst);
        let _ = self.notify(Want::Data);
        let _ = self.notify(Want::Space);
    }
}
