//! The far sides a scenario can have on another host (`--peer`): what the
//! client asks an `iolab agent` to run, as a serde request, the limits the
//! agent holds a request to, and the dispatch to the scenario's own side
//! function. Only sides that talk over one data socket are here: no
//! external programs (port-ring's `echo=`) ever run on an agent.

use super::common::side::{Schedule, SideOut};
use super::common::two_sided::run_remote_side;
use super::{file_transfer, pingpong, stream, CaseCtx, CaseSpec, Fault};
use crate::exec::peers::{SideFn, SideResult};
use crate::exec::remote::client::{run_remote, Remote};
use crate::exec::remote::Peer;
use crate::mechanism::Transport;
use serde::{Deserialize, Serialize};

/// A far side, as the client asks for it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "side", rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum FarSide {
    /// pingpong's echoer.
    PingpongEchoer {
        size: u64,
        sched: Schedule,
        corrupt: bool,
    },
    /// stream's receiver (it times the stream).
    StreamReceiver { size: u64, sched: Schedule },
    /// file-transfer's receiver: hashes `len` bytes and compares.
    FileReceiver { len: u64, hash: u64, corrupt: bool },
}

/// What an agent offers: the far sides by capability name.
pub(crate) const ROLES: &[&str] = &[
    "pingpong/echoer",
    "stream/receiver",
    "file-transfer/receiver",
];

/// The largest message a client may ask a far side to carry.
pub(crate) const MAX_SIZE: u64 = 64 << 20;
/// The most messages one far side may be asked to move.
pub(crate) const MAX_MESSAGES: u64 = 1 << 34;
/// The most repetitions one far side may be asked for: it keeps each
/// repetition's figures until it reports, so its memory grows with them.
pub(crate) const MAX_REPS: u64 = 10_000;
/// The largest file a far side may be asked to receive.
pub(crate) const MAX_FILE: u64 = 1 << 40;

impl FarSide {
    /// The capability that names this side (one of `ROLES`).
    pub(crate) fn role(&self) -> &'static str {
        match self {
            FarSide::PingpongEchoer { .. } => ROLES[0],
            FarSide::StreamReceiver { .. } => ROLES[1],
            FarSide::FileReceiver { .. } => ROLES[2],
        }
    }

    /// Whether an agent may run it: sizes and counts within its limits.
    pub(crate) fn check(&self, transport: Transport) -> Result<(), String> {
        let (size, sched) = match self {
            FarSide::PingpongEchoer { size, sched, .. }
            | FarSide::StreamReceiver { size, sched } => (*size, sched),
            FarSide::FileReceiver { len, .. } if transport != Transport::Tcp => {
                return Err(format!(
                    "file-transfer runs over tcp, not {}",
                    transport.name()
                ));
            }
            FarSide::FileReceiver { len, .. } if *len > MAX_FILE => {
                return Err(format!("a file of {len} bytes: at most {MAX_FILE}"));
            }
            FarSide::FileReceiver { .. } => return Ok(()),
        };
        if size == 0 || size > MAX_SIZE {
            return Err(format!(
                "message size {size}: expected 1 to {MAX_SIZE} bytes"
            ));
        }
        let messages = sched
            .reps
            .checked_mul(sched.count)
            .and_then(|m| m.checked_add(sched.warmup))
            .filter(|m| *m <= MAX_MESSAGES);
        if messages.is_none() {
            return Err(format!(
                "{} repetitions of {} messages and {} of warm-up: more than {MAX_MESSAGES} \
                 messages: at most {MAX_MESSAGES}",
                sched.reps, sched.count, sched.warmup
            ));
        }
        if sched.reps > MAX_REPS {
            return Err(format!(
                "{} repetitions: at most {MAX_REPS} (a far side keeps each one's figures)",
                sched.reps
            ));
        }
        Ok(())
    }

    /// Runs the side over `fd`, the connected data socket; its report as
    /// JSON (the client reads it back as the scenario's report type).
    pub(crate) fn run(
        self,
        transport: Transport,
        fd: rustix::fd::OwnedFd,
    ) -> anyhow::Result<serde_json::Value> {
        let fault = |corrupt: bool| corrupt.then_some(Fault::Corrupt);
        let report = match self {
            FarSide::PingpongEchoer {
                size,
                sched,
                corrupt,
            } => to_json(pingpong::echo(
                transport.endpoint(fd)?,
                size as usize,
                sched,
                fault(corrupt),
            )?)?,
            FarSide::StreamReceiver { size, sched } => to_json(stream::receiver(
                transport.endpoint(fd)?,
                size as usize,
                sched,
            )?)?,
            FarSide::FileReceiver { len, hash, corrupt } => {
                let sock = std::net::TcpStream::from(fd);
                to_json(file_transfer::receive(
                    sock,
                    len,
                    hash,
                    None,
                    fault(corrupt),
                )?)?
            }
        };
        Ok(report)
    }
}

fn to_json<T: Serialize>(report: T) -> anyhow::Result<serde_json::Value> {
    Ok(serde_json::to_value(report)?)
}

/// Runs `n` local pairs of `a` and `b` (`pairs=N`), or one `a` here and
/// `far` on the case's peer when it has one (`--peer`, where the plan
/// allows only one pair).
pub(crate) fn pairs_or_far<FA, FB>(
    case: &CaseSpec,
    ctx: &CaseCtx,
    n: u64,
    a: impl Fn(u64) -> FA,
    b: impl Fn(u64) -> FB,
    far: FarSide,
) -> anyhow::Result<Vec<[SideResult<SideOut>; 2]>>
where
    FA: SideFn<SideOut>,
    FB: SideFn<SideOut>,
{
    match &case.peer {
        Some(_) => Ok(vec![run_remote_side(case, ctx, a(0), far)?]),
        None => super::common::pairs::run(case, ctx, n, a, b),
    }
}

/// Runs `local` here with a TCP socket connected to `far` on `peer`
/// (file-transfer's sender, whose copier needs the socket itself).
pub(crate) fn run_over_tcp<R, F>(
    peer: &Peer,
    cpu: Option<usize>,
    timeout: std::time::Duration,
    far: FarSide,
    local: F,
) -> anyhow::Result<[SideResult<R>; 2]>
where
    R: Serialize + serde::de::DeserializeOwned + Send + 'static,
    F: FnOnce(std::net::TcpStream) -> anyhow::Result<R> + Send + 'static,
{
    run_remote(Remote {
        peer,
        transport: Transport::Tcp,
        role: far.role(),
        side: serde_json::to_value(far)?,
        mode: super::Mode::Processes,
        cpu,
        timeout,
        local: move |fd| local(std::net::TcpStream::from(fd)),
    })
}
