//! How fan-in's senders reach the receiver on each mechanism: one channel
//! that every sender writes into, where each write arrives whole (a pipe or
//! FIFO up to PIPE_BUF, datagrams, records, message queues), or one
//! channel per sender that the receiver waits on with a poller (byte
//! streams whose writes from several processes could interleave). Plus
//! the descriptor budget, and the credits that keep UDP from dropping.

use crate::mechanism::{BoxEndpoint, Mechanism};
use crate::scenario::common::fd_budget::FdBudget;
use crate::scenario::{CaseCtx, CaseSpec, Unsupported};
use crate::sys::shared::SharedCounters;
use rustix::fd::OwnedFd;
use rustix::pipe::{pipe_with, PipeFlags};

/// Writes up to PIPE_BUF bytes to a pipe or FIFO are atomic (POSIX), so
/// several writers may share one as long as each message fits.
const PIPE_LIKE: [&str; 2] = ["pipe", "fifo"];
/// One record per send, kept whole whoever sends it.
const RECORDS: [&str; 5] = ["unix-dgram", "unix-seqpacket", "udp", "mq", "sysv-msg"];
/// Byte streams: a write from one process may interleave with another's,
/// so each sender gets its own channel.
const PER_SENDER: [&str; 2] = ["unix-stream", "tcp"];

/// Descriptors iolab holds besides its channels: the go pipe, the
/// mapping, the case directory, a little room for the harness.
const EXTRA_FDS: u64 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Shared,
    PerSender,
}

/// How `mech` carries fan-in, or why it cannot.
pub(crate) fn kind(mech: &dyn Mechanism) -> Result<Kind, String> {
    let name = mech.name();
    if PIPE_LIKE.contains(&name) || RECORDS.contains(&name) {
        return Ok(Kind::Shared);
    }
    if PER_SENDER.contains(&name) {
        return Ok(Kind::PerSender);
    }
    Err(match mech.caps().counter {
        true => {
            format!("{name} carries a counter, not messages: no sender id or sequence to check")
        }
        false => format!(
            "{name} has one producer per channel and no descriptor for a poller: \
             fan-in needs either"
        ),
    })
}

/// A pipe or FIFO shared by several senders keeps a message whole only up
/// to PIPE_BUF bytes.
pub(crate) fn check_atomic(mech: &dyn Mechanism, size: u64) -> Result<(), Unsupported> {
    let limit = libc::PIPE_BUF as u64;
    if PIPE_LIKE.contains(&mech.name()) && size > limit {
        return Err(Unsupported(format!(
            "size {size} is above PIPE_BUF ({limit} bytes): writes to a {} shared by several \
             senders are atomic only up to it, so larger messages could interleave",
            mech.name()
        )));
    }
    Ok(())
}

/// Descriptors iolab holds per sender: its report pipe, and its own
/// channel (two socket endpoints of two descriptors each) or its credit
/// pipe (UDP).
fn per_sender_fds(kind: Kind) -> u64 {
    1 + match kind {
        Kind::PerSender => 4,
        Kind::Shared => 2,
    }
}

/// Refuses a sender count whose descriptors do not fit (the receiver's
/// poller may allow fewer, select its FD_SETSIZE), naming the largest
/// that does; raises the soft limit to the hard one otherwise.
pub(crate) fn fit_fds(
    kind: Kind,
    poller: Option<&dyn crate::poller::Poller>,
    senders: u64,
) -> anyhow::Result<rustix::process::Rlimit> {
    let budget = match poller {
        Some(p) => FdBudget::for_poller(p)?,
        None => FdBudget::process()?,
    };
    let per = per_sender_fds(kind);
    let who = format!("iolab process ({per} per sender)");
    budget.check(&who, "senders", senders, EXTRA_FDS, per)?;
    Ok(crate::scenario::common::fd_budget::raise_nofile()?)
}

/// UDP's flow control: each sender keeps at most `window` messages in
/// flight and the receiver credits it every `step` over its own pipe.
pub(crate) struct Credits {
    pub(crate) window: u64,
    pub(crate) step: u64,
    /// (the sender's read end, the receiver's write end) per sender.
    pub(crate) pipes: Vec<(OwnedFd, OwnedFd)>,
}

/// Every channel of a case, and the flag that stops the senders.
pub(crate) struct Channels {
    pub(crate) kind: Kind,
    /// (sender end, receiver end): one pair, or one per sender.
    pub(crate) pairs: Vec<(BoxEndpoint, BoxEndpoint)>,
    pub(crate) credits: Option<Credits>,
    /// Counter 0 turns non-zero once the receiver has timed every repetition.
    pub(crate) stop: SharedCounters,
}

impl Channels {
    pub(crate) fn connect(
        case: &CaseSpec,
        ctx: &CaseCtx,
        kind: Kind,
        senders: usize,
    ) -> anyhow::Result<Channels> {
        let mech = case.mech.expect("fan-in runs over a mechanism");
        let count = match kind {
            Kind::Shared => 1,
            Kind::PerSender => senders,
        };
        let mut pairs = Vec::with_capacity(count);
        for i in 0..count {
            let dir = ctx.dir.join(format!("channel-{i}"));
            std::fs::create_dir(&dir)?;
            pairs.push(mech.connect(&dir, &case.values)?);
        }
        let size = case.int(&super::SIZE) as usize;
        let credits = match pairs[0].0.window(size) {
            Some(window) => Some(credits(window, senders)?),
            None => None,
        };
        Ok(Channels {
            kind,
            pairs,
            credits,
            stop: SharedCounters::new(1)?,
        })
    }
}

/// An even share of the receive buffer's `window` per sender.
fn credits(window: u64, senders: usize) -> anyhow::Result<Credits> {
    let share = (window / senders as u64).max(1);
    let pipes = (0..senders)
        .map(|_| pipe_with(PipeFlags::CLOEXEC))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Credits {
        window: share,
        step: (share / 2).max(1),
        pipes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mechanism_has_a_kind_or_a_reason() {
        let mut shared = Vec::new();
        for mech in crate::mechanism::ALL {
            match kind(*mech) {
                Ok(Kind::Shared) => shared.push(mech.name()),
                Ok(Kind::PerSender) => assert!(!mech.caps().boundaries, "{}", mech.name()),
                Err(why) => assert!(why.starts_with(mech.name()), "{why}"),
            }
        }
        assert_eq!(shared.len(), PIPE_LIKE.len() + RECORDS.len());
        assert_eq!(
            kind(crate::mechanism::find("eventfd").unwrap()).unwrap_err(),
            "eventfd carries a counter, not messages: no sender id or sequence to check"
        );
    }

    #[test]
    fn pipes_keep_messages_whole_only_up_to_pipe_buf() {
        let pipe = crate::mechanism::find("fifo").unwrap();
        assert!(check_atomic(pipe, 4096).is_ok());
        assert_eq!(
            check_atomic(pipe, 4097).unwrap_err().0,
            "size 4097 is above PIPE_BUF (4096 bytes): writes to a fifo shared by several \
             senders are atomic only up to it, so larger messages could interleave"
        );
        assert!(check_atomic(crate::mechanism::find("udp").unwrap(), 65507).is_ok());
    }

    #[test]
    fn udp_credits_share_the_window() {
        let c = credits(100, 8).unwrap();
        assert_eq!((c.window, c.step, c.pipes.len()), (12, 6, 8));
        let c = credits(10, 64).unwrap();
        assert_eq!((c.window, c.step), (1, 1));
    }
}
