//! The SPSC ring in shared memory: where everything lives in the region,
//! and the producer's and consumer's views of one ring. A slot holds a
//! sequence word, an 8-byte length and up to `slot` bytes of message; the
//! producer publishes a slot by storing its sequence number (release), and
//! the consumer polls the next slot's sequence, so a small message costs
//! one cache line moving from one CPU to the other. The consumer's tail
//! (messages consumed) sits on its own 128-byte line; the producer caches it
//! and rereads it only when the ring looks full.

use crate::sys::shared::SharedRegion;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Two cache lines on machines that prefetch lines in pairs.
pub const LINE: usize = 128;
/// Ring memory aimed for per direction; the slot count is clamped to
/// `MIN_SLOTS..=MAX_SLOTS`.
const RING_BYTES: usize = 1 << 20;
const MIN_SLOTS: usize = 4;
const MAX_SLOTS: usize = 1024;
/// Sequence word and length before the message in each slot.
const HEADER: usize = 16;

/// Where the two rings, the two sides' flags and the slots are.
fn prev_power_of_two(n: usize) -> usize {
    1 << (usize::BITS - 1 - n.leading_zeros())
}

#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub slot: usize,
    pub slots: usize,
    stride: usize,
}

impl Layout {
    /// A layout whose slots carry messages of up to `slot` bytes.
    pub fn new(slot: usize) -> Layout {
        let stride = (HEADER + slot).next_multiple_of(64);
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
    pub fn flags(side: usize) -> usize {
        4 * LINE + side * LINE
    }

    fn data(&self, ring: usize) -> usize {
        6 * LINE + ring * self.slots * self.stride
    }

    pub fn bytes(&self) -> usize {
        self.data(2)
    }
}

/// One ring as seen from one side.
struct RingRef {
    region: Arc<SharedRegion>,
    layout: Layout,
    ring: usize,
}

impl RingRef {
    /// The sequence word of the slot for message `index`: index + 1 once
    /// that message is published.
    fn seq(&self, index: u64) -> &AtomicU64 {
        self.region.atomic_u64(self.slot_at(index))
    }

    fn tail(&self) -> &AtomicU64 {
        self.region.atomic_u64(Layout::tail(self.ring))
    }

    fn slot_at(&self, index: u64) -> usize {
        let slot = (index & (self.layout.slots as u64 - 1)) as usize;
        self.layout.data(self.ring) + slot * self.layout.stride
    }
}

pub struct Producer {
    ring: RingRef,
    head: u64,
    cached_tail: u64,
}

impl Producer {
    pub fn new(region: Arc<SharedRegion>, layout: Layout, ring: usize) -> Producer {
        Producer {
            ring: RingRef {
                region,
                layout,
                ring,
            },
            head: 0,
            cached_tail: 0,
        }
    }

    /// True when one more message fits (rereads the consumer's tail).
    pub fn has_space(&mut self) -> bool {
        let slots = self.ring.layout.slots as u64;
        if self.head - self.cached_tail < slots {
            return true;
        }
        self.cached_tail = self.ring.tail().load(Ordering::Acquire);
        self.head - self.cached_tail < slots
    }

    /// Publishes `msg` if there is room; Ok(false) when the ring is full.
    pub fn try_push(&mut self, msg: &[u8]) -> io::Result<bool> {
        if msg.len() > self.ring.layout.slot {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "message of {} bytes exceeds the {}-byte ring slot",
                    msg.len(),
                    self.ring.layout.slot
                ),
            ));
        }
        if !self.has_space() {
            return Ok(false);
        }
        let at = self.ring.slot_at(self.head);
        let region = &self.ring.region;
        region.write(at + 8, &(msg.len() as u64).to_le_bytes());
        region.write(at + HEADER, msg);
        self.ring
            .seq(self.head)
            .store(self.head + 1, Ordering::Release);
        self.head += 1;
        Ok(true)
    }
}

pub struct Consumer {
    ring: RingRef,
    tail: u64,
}

impl Consumer {
    pub fn new(region: Arc<SharedRegion>, layout: Layout, ring: usize) -> Consumer {
        Consumer {
            ring: RingRef {
                region,
                layout,
                ring,
            },
            tail: 0,
        }
    }

    /// True when the next message is published.
    pub fn has_data(&mut self) -> bool {
        self.ring.seq(self.tail).load(Ordering::Acquire) == self.tail + 1
    }

    /// Takes the next message into `buf` (which must be its exact size);
    /// Ok(false) when the ring is empty.
    pub fn try_pop(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        if !self.has_data() {
            return Ok(false);
        }
        let at = self.ring.slot_at(self.tail);
        let mut len = [0u8; 8];
        self.ring.region.read(at + 8, &mut len);
        let len = u64::from_le_bytes(len) as usize;
        if len != buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("message of {len} bytes, expected {}", buf.len()),
            ));
        }
        self.ring.region.read(at + HEADER, buf);
        self.tail += 1;
        self.ring.tail().store(self.tail, Ordering::Release);
        Ok(true)
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
