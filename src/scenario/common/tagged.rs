//! Messages from many senders to one receiver (fan-in, hackbench): each
//! carries its sender's id and that sender's sequence number, so the
//! receiver can check every sender's stream on its own: complete, in order,
//! and with the payload that was sent (compared in full on every 64th
//! message of each sender). A sender may close its stream
//! with an end message that says how many it sent.
//!
//! Layout: bytes 0..4 the sender id, 4..12 the tag (the sequence number,
//! or `END` plus the count), then `Payload`'s fixed pattern.

use super::payload::Payload;
use std::io;

/// The sender id and tag every message starts with.
pub(crate) const HEADER: usize = 12;
/// Marks an end message; the rest of its tag is the count sent.
const END: u64 = 1 << 63;
const FULL_CHECK_EVERY: u64 = 64;

/// The bytes every message of one size starts from.
pub(crate) struct Tagged {
    template: Vec<u8>,
}

impl Tagged {
    /// Messages of `size` bytes; `size` must hold the header.
    pub(crate) fn new(size: usize) -> io::Result<Tagged> {
        assert!(size >= HEADER, "a tagged message needs {HEADER} bytes");
        Ok(Tagged {
            template: Payload::new(size)?.buffer()?,
        })
    }

    pub(crate) fn buffer(&self) -> io::Result<Vec<u8>> {
        let mut buf = crate::mem::reserve(self.template.len(), "a message buffer")?;
        buf.extend_from_slice(&self.template);
        Ok(buf)
    }

    /// Makes `buf` message `seq` of `sender`.
    pub(crate) fn stamp(buf: &mut [u8], sender: u32, seq: u64) {
        buf[..4].copy_from_slice(&sender.to_le_bytes());
        buf[4..HEADER].copy_from_slice(&seq.to_le_bytes());
    }

    /// Makes `buf` the end message of `sender`, which sent `count`.
    pub(crate) fn stamp_end(buf: &mut [u8], sender: u32, count: u64) {
        Tagged::stamp(buf, sender, END | count);
    }

    /// Damages `buf` where `Tally` must notice: its last byte (the
    /// payload, or the sequence when the message is only a header).
    pub(crate) fn corrupt(buf: &mut [u8]) {
        if let Some(b) = buf.last_mut() {
            *b ^= 0x5a;
        }
    }
}

/// What a message was, once checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Taken {
    /// Message of this sender, in order and intact.
    Data(usize),
    /// This sender's end message; its count matched what arrived.
    End(usize),
}

/// The receiver's view of every sender's stream.
pub(crate) struct Tally {
    template: Vec<u8>,
    /// Messages received so far per sender: the next sequence expected.
    pub(crate) received: Vec<u64>,
    ended: Vec<bool>,
}

impl Tally {
    pub(crate) fn new(tagged: &Tagged, senders: usize) -> Tally {
        Tally {
            template: tagged.template.clone(),
            received: vec![0; senders],
            ended: vec![false; senders],
        }
    }

    /// Checks one message; the error names the sender and what is wrong.
    /// `from` is the sender a private channel belongs to, if it does.
    pub(crate) fn take(&mut self, msg: &[u8], from: Option<usize>) -> Result<Taken, String> {
        let id = u32::from_le_bytes(msg[..4].try_into().expect("4 bytes")) as usize;
        let tag = u64::from_le_bytes(msg[4..HEADER].try_into().expect("8 bytes"));
        let sender = from.unwrap_or(id);
        if id != sender || sender >= self.received.len() {
            return Err(match from {
                Some(s) => format!("sender {s}: a message names sender {id}"),
                None => format!(
                    "a message names sender {id}, of {} senders",
                    self.received.len()
                ),
            });
        }
        if self.ended[sender] {
            return Err(format!("sender {sender}: a message after its end"));
        }
        let seq = self.received[sender];
        if tag & END != 0 {
            return self.end(sender, tag & !END);
        }
        if tag != seq {
            return Err(format!(
                "sender {sender}: message {seq} expected, message {tag} arrived"
            ));
        }
        if seq.is_multiple_of(FULL_CHECK_EVERY) && msg[HEADER..] != self.template[HEADER..] {
            return Err(self.differs(sender, seq, msg));
        }
        self.received[sender] += 1;
        Ok(Taken::Data(sender))
    }

    fn end(&mut self, sender: usize, count: u64) -> Result<Taken, String> {
        let got = self.received[sender];
        if count != got {
            return Err(format!(
                "sender {sender}: sent {count} messages, {got} arrived"
            ));
        }
        self.ended[sender] = true;
        Ok(Taken::End(sender))
    }

    fn differs(&self, sender: usize, seq: u64, msg: &[u8]) -> String {
        let at = (HEADER..msg.len())
            .find(|i| msg[*i] != self.template[*i])
            .unwrap_or(HEADER);
        format!("sender {sender}: message {seq}: payload differs from what was sent at byte {at}")
    }

    /// True once every sender's end message arrived.
    pub(crate) fn all_ended(&self) -> bool {
        self.ended.iter().all(|e| *e)
    }

    /// The first sender that did not send exactly `count` (for senders
    /// that send a fixed count and no end message).
    pub(crate) fn short_of(&self, count: u64) -> Option<String> {
        let (sender, got) = self
            .received
            .iter()
            .enumerate()
            .find(|(_, got)| **got != count)?;
        Some(format!(
            "sender {sender}: {got} of {count} messages arrived"
        ))
    }
}

/// Jain's fairness index of per-sender counts: 1 when every sender got
/// the same share, 1/n when one got everything.
pub(crate) fn jain(counts: &[u64]) -> f64 {
    let shares: Vec<f64> = counts.iter().map(|c| *c as f64).collect();
    crate::stats::estimators::jain(&shares)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(t: &Tagged, sender: u32, seq: u64) -> Vec<u8> {
        let mut buf = t.buffer().unwrap();
        Tagged::stamp(&mut buf, sender, seq);
        buf
    }

    #[test]
    fn each_sender_is_checked_on_its_own() {
        let t = Tagged::new(100).unwrap();
        let mut tally = Tally::new(&t, 2);
        for seq in 0..3 {
            assert_eq!(tally.take(&message(&t, 1, seq), None), Ok(Taken::Data(1)));
            assert_eq!(tally.take(&message(&t, 0, seq), None), Ok(Taken::Data(0)));
        }
        let mut end = t.buffer().unwrap();
        Tagged::stamp_end(&mut end, 0, 3);
        assert_eq!(tally.take(&end, None), Ok(Taken::End(0)));
        assert!(!tally.all_ended());
        assert_eq!(
            tally.take(&message(&t, 1, 4), None),
            Err("sender 1: message 3 expected, message 4 arrived".into())
        );
        assert_eq!(
            tally.take(&message(&t, 0, 3), None),
            Err("sender 0: a message after its end".into())
        );
    }

    #[test]
    fn damage_names_the_sender() {
        let t = Tagged::new(64).unwrap();
        let mut tally = Tally::new(&t, 8);
        let mut msg = message(&t, 5, 0);
        Tagged::corrupt(&mut msg);
        assert_eq!(
            tally.take(&msg, None),
            Err("sender 5: message 0: payload differs from what was sent at byte 63".into())
        );
        let short = Tagged::new(HEADER).unwrap();
        let mut tally = Tally::new(&short, 8);
        let mut msg = message(&short, 3, 0);
        Tagged::corrupt(&mut msg);
        let err = tally.take(&msg, None).unwrap_err();
        assert!(err.starts_with("sender 3: message 0 expected"), "{err}");
    }

    #[test]
    fn wrong_sender_ids_and_counts_are_caught() {
        let t = Tagged::new(16).unwrap();
        let mut tally = Tally::new(&t, 2);
        assert_eq!(
            tally.take(&message(&t, 7, 0), None),
            Err("a message names sender 7, of 2 senders".into())
        );
        assert_eq!(
            tally.take(&message(&t, 0, 0), Some(1)),
            Err("sender 1: a message names sender 0".into())
        );
        tally.take(&message(&t, 1, 0), Some(1)).unwrap();
        assert_eq!(
            tally.short_of(1),
            Some("sender 0: 0 of 1 messages arrived".into())
        );
        let mut end = t.buffer().unwrap();
        Tagged::stamp_end(&mut end, 1, 2);
        assert_eq!(
            tally.take(&end, None),
            Err("sender 1: sent 2 messages, 1 arrived".into())
        );
    }

    #[test]
    fn jain_is_one_when_fair_and_one_over_n_when_not() {
        assert_eq!(jain(&[5, 5, 5, 5]), 1.0);
        assert_eq!(jain(&[8, 0, 0, 0]), 0.25);
        assert!((jain(&[3, 1]) - 0.8).abs() < 1e-12);
        assert_eq!(jain(&[0, 0]), 1.0);
    }
}
