//! One fan-in sender: waits for the start, then sends tagged messages as
//! fast as its channel takes them until the receiver has timed every
//! repetition, and closes its stream with an end message saying how many
//! it sent. Over UDP it keeps within its credit.

use crate::exec::procs::Ready;
use crate::mechanism::BoxEndpoint;
use crate::scenario::common::tagged::Tagged;
use crate::scenario::Fault;
use crate::sys::shared::SharedCounters;
use rustix::fd::OwnedFd;
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;

/// What a sender reports.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct SenderOut {
    pub(crate) sent: u64,
    pub(crate) cpu: usize,
}

pub(crate) struct SenderCfg<'a> {
    pub(crate) id: u32,
    pub(crate) size: usize,
    pub(crate) go: &'a OwnedFd,
    pub(crate) stop: &'a SharedCounters,
    /// (credit pipe's read end, window) over an unreliable channel.
    pub(crate) credit: Option<(&'a OwnedFd, u64)>,
    /// The test-only fault, on this sender: damage its first message, or
    /// quit with an error right after sending it.
    pub(crate) fault: Option<Fault>,
}

pub(crate) fn run(
    ep: &mut BoxEndpoint,
    cfg: SenderCfg,
    ready: &Ready,
) -> anyhow::Result<SenderOut> {
    let tagged = Tagged::new(cfg.size)?;
    let mut msg = tagged.buffer()?;
    let mut credit = cfg.credit.map(|(fd, window)| Credit {
        fd,
        window,
        acked: 0,
    });
    ready.signal()?;
    wait_go(cfg.go)?;
    let mut seq = 0u64;
    loop {
        Tagged::stamp(&mut msg, cfg.id, seq);
        if cfg.fault == Some(Fault::Corrupt) && seq == 0 {
            Tagged::corrupt(&mut msg);
        }
        send(ep, &msg, &mut credit, seq)?;
        seq += 1;
        if cfg.fault == Some(Fault::DieSender) {
            anyhow::bail!("quit after {seq} message (the test-only fault die-sender)");
        }
        if cfg.stop.get(0).load(Ordering::Relaxed) != 0 {
            break;
        }
    }
    Tagged::stamp_end(&mut msg, cfg.id, seq);
    send(ep, &msg, &mut credit, seq)?;
    Ok(SenderOut {
        sent: seq,
        cpu: crate::measure::pin::current_cpu(),
    })
}

/// Blocks until the parent writes the start byte (never read, so every
/// sender sees it), as hackbench starts its workers.
pub(crate) fn wait_go(go: &OwnedFd) -> anyhow::Result<()> {
    use rustix::event::{poll, PollFd, PollFlags};
    let mut fds = [PollFd::new(go, PollFlags::IN)];
    poll(&mut fds, None)?;
    Ok(())
}

/// A sender's credit over UDP: the receiver writes how many of its
/// messages it has taken.
struct Credit<'a> {
    fd: &'a OwnedFd,
    window: u64,
    acked: u64,
}

/// Sends message number `sent` (counted from 0) once it is within credit.
fn send(
    ep: &mut BoxEndpoint,
    msg: &[u8],
    credit: &mut Option<Credit>,
    sent: u64,
) -> anyhow::Result<()> {
    if let Some(c) = credit {
        while sent - c.acked >= c.window {
            // Credits are 8-byte writes, each whole in the pipe.
            let mut buf = [0u8; 8];
            let n = rustix::io::read(c.fd, &mut buf)?;
            anyhow::ensure!(n == buf.len(), "a credit of {n} bytes");
            c.acked = c.acked.max(u64::from_le_bytes(buf));
        }
    }
    ep.send(msg)?;
    Ok(())
}
