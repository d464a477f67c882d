//! The SPSC ring in shared memory: where everything lives in the region,
//! and the producer's and consumer's views of one ring. A slot holds one
//! 8-byte word, the message's sequence number and length together, then
//! up to `slot` bytes of message; the producer publishes a slot by storing
//! that word (release), and the consumer polls the next slot's word, so a
//! small message costs one cache line moving from one CPU to the other.
//! The consumer's tail (messages consumed) sits on its own 128-byte line,
//! and is published only every quarter ring, so a round trip pays no extra
//! store. That is enough: a producer that finds the ring full sees a
//! publication (and is woken for it) once the consumer has taken a quarter
//! of it, and a drained ring is never more than a quarter short of empty
//! in the producer's eyes. The producer caches the tail and rereads it
//! only when the ring looks full.

use crate::sys::shared::SharedRegion;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Two cache lines on machines that prefetch lines in pairs.
pub(crate) const LINE: usize = 128;
/// Ring memory aimed for per direction; the slot count is clamped to
/// `MIN_SLOTS..=MAX_SLOTS`.
const RING_BYTES: usize = 1 << 20;
const MIN_SLOTS: usize = 4;
const MAX_SLOTS: usize = 1024;
/// The slot word before the message in each slot.
const HEADER: usize = 8;
/// Low bits of the slot word hold the message length (up to 1 MiB, so 21
/// bits); the rest the message's index + 1 (2^43 messages per ring).
const LEN_BITS: u32 = 21;
const LEN_MASK: u64 = (1 << LEN_BITS) - 1;

/// The word that publishes message `index` of `len` bytes.
fn slot_word(index: u64, len: usize) -> u64 {
    ((index + 1) << LEN_BITS) | len as u64
}

/// Where the two rings, the two sides' flags and the slots are.
fn prev_power_of_two(n: usize) -> usize {
    1 << (usize::BITS - 1 - n.leading_zeros())
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub(crate) slot: usize,
    pub(crate) slots: usize,
    stride: usize,
}

impl Layout {
    /// A layout whose slots carry messages of up to `slot` bytes.
    pub(crate) fn new(slot: usize) -> Layout {
        let stride = (HEADER + slot).next_multiple_of(LINE);
        // A power of two, so a slot index is a mask, not a division.
        let slots = prev_power_of_two((RING_BYTES / stride).clamp(MIN_SLOTS, MAX_SLOTS));
        Layout {
            slot,
            slots,
            stride,
        }
    }

    fn tail(ring: usize) -> usize {
        ring * 2 * LINE + LINE
    }

    /// The line holding side `side`'s flags (see wake.rs).
    pub(crate) fn flags(side: usize) -> usize {
        4 * LINE + side * LINE
    }

    fn data(&self, ring: usize) -> usize {
        6 * LINE + ring * self.slots * self.stride
    }

    pub(crate) fn bytes(&self) -> usize {
        self.data(2)
    }
}

/// One ring as seen from one side, with the slot arithmetic precomputed.
struct RingRef {
    region: Arc<SharedRegion>,
    layout: Layout,
    ring: usize,
    /// Offset of slot 0 in the region.
    base: usize,
    mask: u64,
    /// How many messages the consumer takes between two publications.
    quarter: u64,
}

impl RingRef {
    fn tail(&self) -> &AtomicU64 {
        self.region.atomic_u64(Layout::tail(self.ring))
    }

    fn new(region: Arc<SharedRegion>, layout: Layout, ring: usize) -> RingRef {
        RingRef {
            region,
            layout,
            ring,
            base: layout.data(ring),
            mask: layout.slots as u64 - 1,
            quarter: layout.slots as u64 / 4,
        }
    }

    #[inline]
    fn slot_at(&self, index: u64) -> usize {
        self.base + (index & self.mask) as usize * self.layout.stride
    }
}

pub(crate) struct Producer {
    ring: RingRef,
    head: u64,
    cached_tail: u64,
}

impl Producer {
    pub(crate) fn new(region: Arc<SharedRegion>, layout: Layout, ring: usize) -> Producer {
        Producer {
            ring: RingRef::new(region, layout, ring),
            head: 0,
            cached_tail: 0,
        }
    }

    /// An error when `len` bytes do not fit a slot.
    pub(crate) fn check_size(&self, len: usize) -> io::Result<()> {
        if len <= self.ring.layout.slot {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "message of {len} bytes exceeds the {}-byte ring slot",
                self.ring.layout.slot
            ),
        ))
    }

    /// True when one more message fits (rereads the consumer's tail).
    #[inline]
    pub(crate) fn has_space(&mut self) -> bool {
        let slots = self.ring.layout.slots as u64;
        if self.head - self.cached_tail < slots {
            return true;
        }
        self.cached_tail = self.ring.tail().load(Ordering::Acquire);
        self.head - self.cached_tail < slots
    }

    /// Publishes `msg`, which `check_size` accepted, into the free slot
    /// `has_space` found.
    #[inline(always)]
    pub(crate) fn push(&mut self, msg: &[u8]) {
        let at = self.ring.slot_at(self.head);
        self.ring.region.write(at + HEADER, msg);
        self.ring
            .region
            .atomic_u64(at)
            .store(slot_word(self.head, msg.len()), Ordering::Release);
        self.head += 1;
    }

    /// Publishes `msg` if there is room; Ok(false) when the ring is full.
    pub(crate) fn try_push(&mut self, msg: &[u8]) -> io::Result<bool> {
        self.check_size(msg.len())?;
        let room = self.has_space();
        if room {
            self.push(msg);
        }
        Ok(room)
    }
}

pub(crate) struct Consumer {
    ring: RingRef,
    tail: u64,
    /// Offset of the next message's slot.
    next_slot: usize,
    /// The tail as last stored for the producer to see.
    published: u64,
    /// Set by a publication, cleared by `take_published`.
    fresh: bool,
}

impl Consumer {
    pub(crate) fn new(region: Arc<SharedRegion>, layout: Layout, ring: usize) -> Consumer {
        let ring = RingRef::new(region, layout, ring);
        Consumer {
            next_slot: ring.slot_at(0),
            ring,
            tail: 0,
            published: 0,
            fresh: false,
        }
    }

    /// A watch on the next message: the length it has once published.
    /// The slot is found once, so a side spinning on it only loads it.
    #[inline]
    pub(crate) fn watch_next(&self) -> impl Fn() -> Option<usize> + '_ {
        let word = self.ring.region.atomic_u64(self.next_slot);
        let published = self.tail + 1;
        move || {
            let now = word.load(Ordering::Acquire);
            (now >> LEN_BITS == published).then_some((now & LEN_MASK) as usize)
        }
    }

    /// The next message's length, once it is published.
    pub(crate) fn ready_len(&self) -> Option<usize> {
        let watch = self.watch_next();
        watch()
    }

    /// Takes the next message, of `len` bytes as `ready_len` said, into
    /// `buf` (which must be its exact size).
    #[inline(always)]
    pub(crate) fn take(&mut self, len: usize, buf: &mut [u8]) -> io::Result<()> {
        if len != buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("message of {len} bytes, expected {}", buf.len()),
            ));
        }
        self.ring.region.read(self.next_slot + HEADER, buf);
        self.tail += 1;
        self.next_slot = self.ring.slot_at(self.tail);
        if self.tail - self.published >= self.ring.quarter {
            self.publish();
        }
        Ok(())
    }

    /// Takes the next message into `buf` (which must be its exact size);
    /// Ok(false) when the ring is empty.
    pub(crate) fn try_pop(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        let Some(len) = self.ready_len() else {
            return Ok(false);
        };
        self.take(len, buf)?;
        Ok(true)
    }

    /// Lets the producer see every message taken so far.
    fn publish(&mut self) {
        if self.published != self.tail {
            self.ring.tail().store(self.tail, Ordering::Release);
            self.published = self.tail;
            self.fresh = true;
        }
    }

    /// True once after each publication: the moment to wake a producer
    /// waiting for space.
    pub(crate) fn take_published(&mut self) -> bool {
        std::mem::take(&mut self.fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(slot: usize) -> (Producer, Consumer, Layout) {
        let layout = Layout::new(slot);
        let region = Arc::new(SharedRegion::new(layout.bytes()).unwrap());
        (
            Producer::new(region.clone(), layout, 0),
            Consumer::new(region, layout, 0),
            layout,
        )
    }

    #[test]
    fn fills_up_then_drains_in_order() {
        let (mut p, mut c, layout) = ring(16);
        let mut n = 0usize;
        while p.try_push(&[n as u8; 16]).unwrap() {
            n += 1;
        }
        assert_eq!(n, layout.slots);
        let mut buf = [0u8; 16];
        for want in 0..n {
            assert!(c.try_pop(&mut buf).unwrap());
            assert_eq!(buf, [want as u8; 16]);
        }
        assert!(!c.try_pop(&mut buf).unwrap());
        assert!(p.try_push(&[9; 16]).unwrap());
    }

    #[test]
    fn the_tail_is_published_every_quarter_ring() {
        let (mut p, mut c, layout) = ring(8);
        let quarter = layout.slots / 4;
        let mut buf = [0u8; 8];
        for _ in 0..layout.slots {
            assert!(p.try_push(&[1; 8]).unwrap());
        }
        for _ in 0..quarter - 1 {
            assert!(c.try_pop(&mut buf).unwrap());
        }
        assert!(!c.take_published());
        assert!(!p.has_space());
        assert!(c.try_pop(&mut buf).unwrap());
        assert!(c.take_published());
        assert!(!c.take_published(), "reported once");
        assert!(p.has_space());
        assert!(c.try_pop(&mut buf).unwrap());
        c.publish();
        assert!(
            c.take_published(),
            "an explicit publish of one more message"
        );
        c.publish();
        assert!(!c.take_published(), "nothing new to publish");
    }

    #[test]
    fn a_drained_ring_is_at_most_a_quarter_short_of_empty() {
        let (mut p, mut c, layout) = ring(8);
        let quarter = layout.slots / 4;
        let mut buf = [0u8; 8];
        for taken in 0..2 * quarter + 3 {
            for _ in 0..taken {
                assert!(p.try_push(&[2; 8]).unwrap());
                assert!(c.try_pop(&mut buf).unwrap());
            }
            let mut room = 0;
            while p.try_push(&[3; 8]).unwrap() {
                room += 1;
            }
            assert!(room > layout.slots - quarter, "room {room} after {taken}");
            for _ in 0..room {
                assert!(c.try_pop(&mut buf).unwrap());
            }
        }
    }

    #[test]
    fn lengths_travel_in_the_slot_word() {
        let (mut p, mut c, _) = ring(1 << 20);
        let big = vec![7u8; 1 << 20];
        assert!(p.try_push(&big).unwrap());
        let mut got = vec![0u8; 1 << 20];
        assert!(c.try_pop(&mut got).unwrap());
        assert_eq!(got, big);
        assert!(p.try_push(&[3; 5]).unwrap());
        assert_eq!(c.ready_len(), Some(5));
    }

    #[test]
    fn sizes_are_checked() {
        let (mut p, mut c, _) = ring(8);
        assert!(p.try_push(&[0; 9]).is_err());
        assert!(p.try_push(&[0; 4]).unwrap());
        assert!(c.try_pop(&mut [0; 8]).is_err());
    }

    #[test]
    fn layouts_keep_lines_apart_and_slots_bounded() {
        let small = Layout::new(1);
        assert_eq!(small.slots, MAX_SLOTS);
        let big = Layout::new(1 << 20);
        assert_eq!(big.slots, MIN_SLOTS);
        assert!(Layout::flags(1) + LINE <= big.data(0));
        assert_eq!(Layout::tail(1) - Layout::tail(0), 2 * LINE);
    }
}
