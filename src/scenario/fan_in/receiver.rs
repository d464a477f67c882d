//! fan-in's receiver: takes every sender's messages, from one shared
//! channel or from one channel per sender that a poller multiplexes,
//! checks each sender's stream (`Tally`), times the repetitions by the
//! messages of all senders together, counts each sender's share of every
//! repetition for the fairness index, raises the stop flag once the last
//! repetition is timed, and drains until every sender's end message.

use crate::exec::procs::Ready;
use crate::mechanism::BoxEndpoint;
use crate::poller::Poller;
use crate::scenario::common::readiness::{read_ready, register};
use crate::scenario::common::side::{Reps, Schedule, SideOut};
use crate::scenario::common::tagged::{jain, Tagged, Taken, Tally};
use crate::sys::shared::SharedCounters;
use anyhow::Context;
use rustix::fd::{BorrowedFd, OwnedFd};
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct ReceiverOut {
    pub(crate) side: SideOut,
    /// Jain's index of the senders' shares, per timed repetition.
    pub(crate) fairness: Vec<f64>,
}

pub(crate) struct ReceiverCfg<'a> {
    pub(crate) senders: usize,
    pub(crate) size: usize,
    /// Repetitions counted in messages of all senders together.
    pub(crate) sched: Schedule,
    pub(crate) stop: &'a SharedCounters,
    /// The start byte the senders wait for: the receiver waits too, so a
    /// receive timeout (UDP's) runs only once they send.
    pub(crate) go: &'a OwnedFd,
    /// Each sender's credit pipe (its write end is the second) and the
    /// step to credit at, over an unreliable channel.
    pub(crate) credits: Option<(&'a [(OwnedFd, OwnedFd)], u64)>,
    /// The poller over one channel per sender; None: one shared channel.
    pub(crate) poller: Option<&'static dyn Poller>,
}

pub(crate) fn run(
    ends: Vec<&mut BoxEndpoint>,
    cfg: ReceiverCfg,
    ready: &Ready,
) -> anyhow::Result<ReceiverOut> {
    let tagged = Tagged::new(cfg.size)?;
    let mut p = Progress {
        tally: Tally::new(&tagged, cfg.senders),
        share: vec![0; cfg.senders],
        taken: 0,
        out: ReceiverOut::default(),
        cfg: &cfg,
        reps: None,
    };
    match cfg.poller {
        None => shared(ends, &tagged, &mut p, ready)?,
        Some(poller) => polled(ends, poller, &mut p, ready)?,
    }
    p.out.side.messages = p.taken;
    p.out.side.bytes = p.taken * cfg.size as u64;
    Ok(p.out)
}

fn shared(
    mut ends: Vec<&mut BoxEndpoint>,
    tagged: &Tagged,
    p: &mut Progress,
    ready: &Ready,
) -> anyhow::Result<()> {
    let ep = ends.pop().context("no channel")?;
    let mut buf = tagged.buffer()?;
    ready.signal()?;
    super::wait_go(p.cfg.go)?;
    p.start();
    loop {
        ep.recv(&mut buf)?;
        if !p.take(&buf, None)? {
            return Ok(());
        }
    }
}

fn polled(
    mut ends: Vec<&mut BoxEndpoint>,
    poller: &'static dyn Poller,
    p: &mut Progress,
    ready: &Ready,
) -> anyhow::Result<()> {
    for ep in ends.iter_mut() {
        ep.set_nonblocking()?;
    }
    let fds: Vec<BorrowedFd> = ends
        .iter()
        .map(|ep| ep.readable_fd().context("a channel without a descriptor"))
        .collect::<anyhow::Result<_>>()?;
    let mut set = poller.open(fds.len())?;
    register(&mut *set, &fds)?;
    let edge = set.edge_triggered();
    let size = p.cfg.size;
    let mut partial: Vec<Vec<u8>> = (0..fds.len()).map(|_| Vec::with_capacity(size)).collect();
    let mut chunk = crate::mem::zeroed(64 * 1024, "a receive buffer")?;
    let mut ready_list = Vec::new();
    ready.signal()?;
    super::wait_go(p.cfg.go)?;
    p.start();
    loop {
        ready_list.clear();
        set.wait(&mut ready_list, None)?;
        for &i in &ready_list {
            let mut go_on = true;
            read_ready(fds[i], edge, &mut chunk, |bytes| {
                if go_on {
                    go_on = feed(&mut partial[i], size, bytes, |msg| p.take(msg, Some(i)))?;
                }
                Ok(())
            })?;
            if !go_on {
                return Ok(());
            }
        }
    }
}

/// Cuts a stream's bytes into messages of `size`, keeping a partial one
/// for the next read; false once `take` says to stop.
fn feed(
    partial: &mut Vec<u8>,
    size: usize,
    mut bytes: &[u8],
    mut take: impl FnMut(&[u8]) -> anyhow::Result<bool>,
) -> anyhow::Result<bool> {
    if !partial.is_empty() {
        let n = (size - partial.len()).min(bytes.len());
        partial.extend_from_slice(&bytes[..n]);
        bytes = &bytes[n..];
        if partial.len() < size {
            return Ok(true);
        }
        let go_on = take(partial)?;
        partial.clear();
        if !go_on {
            return Ok(false);
        }
    }
    let mut whole = bytes.chunks_exact(size);
    for msg in &mut whole {
        if !take(msg)? {
            return Ok(false);
        }
    }
    partial.extend_from_slice(whole.remainder());
    Ok(true)
}

/// The receiver's bookkeeping, message by message.
struct Progress<'a> {
    tally: Tally,
    /// Each sender's messages in the current repetition.
    share: Vec<u64>,
    /// Data messages taken so far, from all senders.
    taken: u64,
    out: ReceiverOut,
    cfg: &'a ReceiverCfg<'a>,
    reps: Option<Reps>,
}

impl Progress<'_> {
    fn start(&mut self) {
        self.reps = Some(Reps::start(&self.cfg.sched, &mut self.out.side));
    }

    /// Checks and counts one message; false when the receiver is done
    /// (every sender ended, or a message was wrong).
    fn take(&mut self, msg: &[u8], from: Option<usize>) -> anyhow::Result<bool> {
        match self.tally.take(msg, from) {
            Err(why) => {
                self.out.side.mismatch = Some(why);
                self.cfg.stop.get(0).store(1, Ordering::Relaxed);
                Ok(false)
            }
            Ok(Taken::End(_)) => Ok(!self.tally.all_ended()),
            Ok(Taken::Data(sender)) => {
                self.count(sender);
                self.credit(sender)?;
                Ok(true)
            }
        }
    }

    fn count(&mut self, sender: usize) {
        let seq = self.taken;
        self.taken += 1;
        let sched = self.cfg.sched;
        if seq >= sched.total() {
            return;
        }
        let reps = self.reps.as_mut().expect("started");
        reps.begin(seq);
        if seq == sched.warmup {
            self.share.fill(0);
        }
        self.share[sender] += 1;
        if reps.ends_at(seq) {
            reps.mark(&mut self.out.side);
            self.out.fairness.push(jain(&self.share));
            self.share.fill(0);
        }
        if seq + 1 == sched.total() {
            self.cfg.stop.get(0).store(1, Ordering::Relaxed);
        }
    }

    fn credit(&self, sender: usize) -> anyhow::Result<()> {
        let Some((pipes, step)) = self.cfg.credits else {
            return Ok(());
        };
        let got = self.tally.received[sender];
        if got.is_multiple_of(step) {
            crate::mechanism::write_all_fd(&pipes[sender].1, &got.to_le_bytes())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::feed;

    #[test]
    fn a_stream_is_cut_into_messages_across_reads() {
        let bytes: Vec<u8> = (0..20).collect();
        let mut partial = Vec::new();
        let mut got: Vec<Vec<u8>> = Vec::new();
        for piece in [&bytes[..3], &bytes[3..11], &bytes[11..12], &bytes[12..]] {
            let go_on = feed(&mut partial, 4, piece, |m| {
                got.push(m.to_vec());
                Ok(true)
            })
            .unwrap();
            assert!(go_on);
        }
        assert_eq!(got.len(), 5);
        assert!(partial.is_empty());
        assert_eq!(got.concat(), bytes);
        let stop = feed(&mut partial, 4, &bytes[..9], |_| Ok(false)).unwrap();
        assert!(!stop);
    }
}
