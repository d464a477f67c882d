//! Message contents that prove what arrived is what was sent: every message
//! carries its sequence number (as seq+1, so an eventfd counter is never 0)
//! in its first bytes, and the rest is a fixed pattern. Receivers check the
//! sequence of every message and the whole content of every 64th and the
//! last, so verification costs little inside timed loops. Buffers of a
//! user-given size are reserved fallibly: a size memory cannot hold fails
//! the case with a reason instead of aborting the process.

use crate::mem::reserve;
use std::io;

/// Every FULL_CHECK_EVERY-th message is compared byte for byte.
const FULL_CHECK_EVERY: u64 = 64;

pub(crate) struct Payload {
    template: Vec<u8>,
}

impl Payload {
    pub(crate) fn new(size: usize) -> io::Result<Payload> {
        let mut template = reserve(size, "a message template")?;
        template.extend((0..size).map(|i| (i as u8).wrapping_mul(31).wrapping_add(7)));
        Ok(Payload { template })
    }

    /// A buffer holding the template, for a sender to stamp.
    pub(crate) fn buffer(&self) -> io::Result<Vec<u8>> {
        let mut buf = reserve(self.template.len(), "a message buffer")?;
        buf.extend_from_slice(&self.template);
        Ok(buf)
    }

    /// Writes `seq` into the first bytes of `buf` (little-endian seq+1,
    /// truncated to the message size).
    #[inline(always)]
    pub(crate) fn stamp(&self, buf: &mut [u8], seq: u64) {
        let tag = (seq + 1).to_le_bytes();
        let n = buf.len().min(8);
        // A byte loop: for up to 8 bytes, cheaper than a call to memcpy.
        for (to, from) in buf[..n].iter_mut().zip(tag) {
            *to = from;
        }
    }

    /// Checks that `buf` is message `seq`; explains the first difference.
    #[inline(always)]
    pub(crate) fn check(&self, buf: &[u8], seq: u64, last: bool) -> Result<(), String> {
        let n = buf.len().min(8);
        let expected = (seq + 1).to_le_bytes();
        if !buf[..n].iter().eq(&expected[..n]) {
            return Err(format!(
                "message {seq}: expected sequence tag {:02x?}, got {:02x?}",
                &expected[..n],
                &buf[..n]
            ));
        }
        if (seq.is_multiple_of(FULL_CHECK_EVERY) || last) && buf[n..] != self.template[n..] {
            let at = (n..buf.len())
                .find(|i| buf[*i] != self.template[*i])
                .unwrap_or(n);
            return Err(format!(
                "message {seq}: payload differs from what was sent at byte {at}"
            ));
        }
        Ok(())
    }

    /// Damages `buf` so that `check` must reject it (the test-only fault);
    /// doing it twice restores the original.
    pub(crate) fn corrupt(buf: &mut [u8]) {
        buf[0] ^= 0x5a;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::zeroed;

    #[test]
    fn stamped_messages_check() {
        for size in [1, 7, 8, 64, 4096] {
            let p = Payload::new(size).unwrap();
            let mut buf = p.buffer().unwrap();
            for seq in [0, 1, 63, 64, 1000] {
                p.stamp(&mut buf, seq);
                assert_eq!(p.check(&buf, seq, true), Ok(()));
            }
        }
    }

    #[test]
    fn wrong_sequence_is_caught() {
        let p = Payload::new(16).unwrap();
        let mut buf = p.buffer().unwrap();
        p.stamp(&mut buf, 5);
        let err = p.check(&buf, 6, false).unwrap_err();
        assert!(err.starts_with("message 6: expected sequence tag"), "{err}");
    }

    #[test]
    fn damaged_body_is_caught_on_checked_messages() {
        let p = Payload::new(100).unwrap();
        let mut buf = p.buffer().unwrap();
        p.stamp(&mut buf, 64);
        buf[50] ^= 1;
        assert_eq!(
            p.check(&buf, 64, false),
            Err("message 64: payload differs from what was sent at byte 50".to_string())
        );
    }

    #[test]
    fn corrupt_breaks_the_tag_and_twice_restores_it() {
        let p = Payload::new(1).unwrap();
        let mut buf = p.buffer().unwrap();
        p.stamp(&mut buf, 3);
        Payload::corrupt(&mut buf);
        assert!(p.check(&buf, 3, false).is_err());
        Payload::corrupt(&mut buf);
        assert_eq!(p.check(&buf, 3, false), Ok(()));
    }

    #[test]
    fn a_size_memory_cannot_hold_is_an_error_not_an_abort() {
        let huge = 1usize << 60;
        let err = Payload::new(huge)
            .err()
            .expect("2^60 bytes cannot be allocated");
        assert_eq!(err.kind(), io::ErrorKind::OutOfMemory);
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "cannot allocate {huge} bytes for a message template"
            )),
            "{msg}"
        );
        assert!(zeroed(huge, "a copier buffer").is_err());
        assert_eq!(zeroed(3, "a copier buffer").unwrap(), vec![0, 0, 0]);
    }
}
