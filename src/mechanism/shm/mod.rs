//! `shm`: an SPSC ring buffer per direction in one anonymous MAP_SHARED
//! mapping made before the sides start (so it is shared across fork), with
//! the way a waiting side is woken as the parameter `wake` (spin, futex,
//! eventfd, fifo; see wake.rs). `fifo` is the design of the E3 post: shared
//! memory for the data, a FIFO only to notify. Slots are sized to the case's
//! message size, so one ring carries any message up to that size.

mod ring;
mod wake;

use super::{BoxEndpoint, Caps, Endpoint, Mechanism, Values, SIZE};
use crate::params::{ParamKind, ParamSpec};
use crate::sys::shared::SharedRegion;
use ring::{Consumer, Producer};
use rustix::event::{eventfd, EventfdFlags};
use std::io;
use std::path::Path;
use std::sync::Arc;
use wake::{Channel, Mode, Waker, Want};

// For `futex`, which sleeps and wakes as this ring's futex mode does.
pub(super) use ring::{Layout, LINE};

pub(super) use wake::{closed, Mode as WakeMode, Waker as SideWaker, Want as WakeFor};

pub(crate) struct Shm;

/// The largest slot, hence message, a ring is made for.
const MAX_MESSAGE: usize = 1 << 20;
/// Slot size when the case has no `size` (contention's one-byte calls).
const DEFAULT_SLOT: usize = 64;

pub(crate) const WAKE: ParamSpec = ParamSpec {
    name: "wake",
    kind: ParamKind::Choice(wake::MODES),
    default: "spin,futex,eventfd,fifo",
    about: "shm only: how a waiting side is woken (spin busy-polls)",
    in_name: true,
};

const PARAMS: &[ParamSpec] = &[WAKE];

impl Mechanism for Shm {
    fn name(&self) -> &'static str {
        "shm"
    }
    fn about(&self) -> &'static str {
        "SPSC ring in shared memory; wake-up by spin, futex, eventfd or fifo (--param wake=)"
    }
    fn calls_per_send(&self) -> bool {
        false
    }
    fn caps(&self) -> Caps {
        Caps {
            boundaries: true,
            counter: false,
            reliable: true,
        }
    }
    fn max_message(&self) -> usize {
        MAX_MESSAGE
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn connect(&self, dir: &Path, values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let mode = match WAKE.text(values) {
            Some(w) => Mode::parse(w),
            None => Some(Mode::Spin),
        }
        .ok_or_else(|| io::Error::other("unknown wake mode"))?;
        let slot = match SIZE.int(values) {
            Some(n) => (n as usize).clamp(8, MAX_MESSAGE),
            None => DEFAULT_SLOT,
        };
        let layout = Layout::new(slot);
        let region = Arc::new(SharedRegion::new(layout.bytes())?);
        let [ch0, ch1] = channels(mode, dir)?;
        Ok((
            Box::new(ShmEndpoint::new(&region, layout, 0, mode, ch0)),
            Box::new(ShmEndpoint::new(&region, layout, 1, mode, ch1)),
        ))
    }
}

/// Each side's descriptors: it blocks on its own, and writes the peer's.
fn channels(mode: Mode, dir: &Path) -> io::Result<[Option<Channel>; 2]> {
    let (rx0, tx0, rx1, tx1) = match mode {
        Mode::Spin | Mode::Futex => return Ok([None, None]),
        Mode::EventFd => {
            let (e0, e1) = (
                eventfd(0, EventfdFlags::CLOEXEC)?,
                eventfd(0, EventfdFlags::CLOEXEC)?,
            );
            (e0.try_clone()?, e0, e1.try_clone()?, e1)
        }
        Mode::Fifo => {
            let (rx0, tx0) = super::fifo::open_fifo(&dir.join("shm-wake-0"))?;
            let (rx1, tx1) = super::fifo::open_fifo(&dir.join("shm-wake-1"))?;
            (rx0, tx0, rx1, tx1)
        }
    };
    Ok([
        Some(Channel { rx: rx0, tx: tx1 }),
        Some(Channel { rx: rx1, tx: tx0 }),
    ])
}

/// Side `side` produces into ring `side` and consumes ring `1 - side`.
/// Only an end that was used says "closed" when dropped: across fork each
/// process holds copies of both ends, and dropping the unused copies must
/// not tell the real peer that its partner went away. Aligned to the
/// ring's line size: with the sides as threads, the two ends are heap
/// neighbours, and sharing a cache line would bounce it on every message.
#[repr(align(128))]
pub(crate) struct ShmEndpoint {
    tx: Producer,
    rx: Consumer,
    waker: Waker,
    used: bool,
}

impl ShmEndpoint {
    fn new(
        region: &Arc<SharedRegion>,
        layout: Layout,
        side: usize,
        mode: Mode,
        channel: Option<Channel>,
    ) -> Self {
        ShmEndpoint {
            tx: Producer::new(region.clone(), layout, side),
            rx: Consumer::new(region.clone(), layout, 1 - side),
            waker: Waker::new(region.clone(), side, mode, channel),
            used: false,
        }
    }
}

impl ShmEndpoint {
    /// Wakes a producer sleeping for space, if space was just published.
    #[inline]
    fn wake_producer(&mut self) -> io::Result<()> {
        if self.rx.take_published() {
            self.waker.notify(Want::Space)?;
        }
        Ok(())
    }
}

impl Endpoint for ShmEndpoint {
    #[inline(always)]
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.used = true;
        self.tx.check_size(msg.len())?;
        let tx = &mut self.tx;
        self.waker
            .wait_for(Want::Space, || tx.has_space().then_some(()))?;
        self.tx.push(msg);
        self.waker.notify(Want::Data)
    }

    #[inline(always)]
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.used = true;
        let len = self.waker.wait_for(Want::Data, self.rx.watch_next())?;
        self.rx.take(len, buf)?;
        self.wake_producer()
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        self.used = true;
        Ok(())
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        self.used = true;
        let sent = self.tx.try_push(msg)?;
        if sent {
            self.waker.notify(Want::Data)?;
        } else if self.waker.peer_closed() {
            return Err(wake::closed());
        }
        Ok(sent)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        self.used = true;
        let got = self.rx.try_pop(buf)?;
        if got {
            self.wake_producer()?;
        } else if self.waker.peer_closed() && self.rx.ready_len().is_none() {
            return Err(wake::closed());
        }
        Ok(got)
    }

    fn syscalls(&self) -> Option<u64> {
        Some(self.waker.syscalls)
    }
}

impl Drop for ShmEndpoint {
    fn drop(&mut self) {
        if self.used {
            self.waker.close();
        }
    }
}
