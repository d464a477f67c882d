//! hackbench's two kinds of process. A sender waits for the start, then
//! sends `loops` rounds of one 100-byte message to every receiver of its
//! group; a receiver reads its 20 x `loops` messages, checking each
//! sender's sequence and counting what came from whom. Receivers read all
//! their messages even after a wrong one, so no sender is left blocked on
//! a full channel.

use crate::exec::procs::Ready;
use crate::mechanism::BoxEndpoint;
use crate::scenario::common::tagged::{Tagged, Tally};
use crate::scenario::Fault;
use rustix::fd::OwnedFd;
use serde::{Deserialize, Serialize};

/// hackbench's DATASIZE.
pub(crate) const MESSAGE: usize = 100;
/// Senders and receivers per group, as in hackbench.
pub(crate) const PER_GROUP: usize = 20;

/// What a receiver reports.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Received {
    pub(crate) messages: u64,
    pub(crate) bytes: u64,
    pub(crate) mismatch: Option<String>,
    pub(crate) cpu: usize,
}

/// Where a worker sits: its group and its index in it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub(crate) group: usize,
    pub(crate) index: usize,
}

pub(crate) fn receiver(
    ep: &mut BoxEndpoint,
    at: Place,
    loops: u64,
    go: &OwnedFd,
    ready: &Ready,
) -> anyhow::Result<Received> {
    let tagged = Tagged::new(MESSAGE)?;
    let mut tally = Tally::new(&tagged, PER_GROUP);
    let mut buf = tagged.buffer()?;
    let mut out = Received::default();
    ready.signal()?;
    crate::scenario::fan_in::wait_go(go)?;
    for _ in 0..PER_GROUP as u64 * loops {
        ep.recv(&mut buf)?;
        out.messages += 1;
        out.bytes += buf.len() as u64;
        if out.mismatch.is_none() {
            out.mismatch = tally.take(&buf, None).err();
        }
    }
    if out.mismatch.is_none() {
        out.mismatch = tally.short_of(loops);
    }
    out.mismatch = out
        .mismatch
        .map(|why| format!("receiver {} of group {}: {why}", at.index, at.group));
    out.cpu = crate::measure::pin::current_cpu();
    Ok(out)
}

/// Sends `loops` rounds to every receiver of the group. The test-only
/// fault damages its first message to the first receiver, or makes it quit
/// with an error after that message.
pub(crate) fn sender(
    mut eps: Vec<&mut BoxEndpoint>,
    at: Place,
    loops: u64,
    go: &OwnedFd,
    fault: Option<Fault>,
    ready: &Ready,
) -> anyhow::Result<usize> {
    let tagged = Tagged::new(MESSAGE)?;
    let mut msg = tagged.buffer()?;
    ready.signal()?;
    crate::scenario::fan_in::wait_go(go)?;
    for round in 0..loops {
        for (to, ep) in eps.iter_mut().enumerate() {
            Tagged::stamp(&mut msg, at.index as u32, round);
            if fault == Some(Fault::Corrupt) && round == 0 && to == 0 {
                Tagged::corrupt(&mut msg);
            }
            ep.send(&msg)?;
            if fault == Some(Fault::DieSender) {
                anyhow::bail!("quit after 1 message (the test-only fault die-sender)");
            }
        }
    }
    Ok(crate::measure::pin::current_cpu())
}
