//! The client half of a remote case: a side that lives on another host.
//! `run_remote` opens the control connection to the agent, asks it to run
//! the far side, connects the data socket, runs the local side through
//! `side::start` (pinned, threads or processes, as a local pair would),
//! and returns both sides' reports: the far one is the same serde report
//! the side wrote on the agent. Every wait is bounded, so an agent that
//! dies, a link that drops or a refusal is the case's failure reason.

use super::data;
use super::proto::{
    FromAgent, Hello, Outcome, Request, ToAgent, LINE_LIMIT, REPORT_LIMIT, VERSION,
};
use super::wire::{Wire, WireError};
use crate::error::UsageError;
use crate::exec::peers::{side_result, SideResult};
use crate::exec::side::{self, Side, Spec};
use crate::exec::{cleanup, Mode};
use crate::mechanism::Transport;
use crate::model::Environment;
use anyhow::{bail, Context};
use rustix::fd::OwnedFd;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long connecting, the handshake and the data connection may take.
const SETUP_WAIT: Duration = Duration::from_secs(10);
/// After one side has finished, how long the other may take.
const GRACE: Duration = Duration::from_secs(5);
/// After the local side has finished, how long the agent's report may take
/// (a UDP far side notices a lost peer by its 5 s receive timeout).
const REPORT_WAIT: Duration = Duration::from_secs(10);
/// How often the control connection is looked at while the sides run.
const TICK: Duration = Duration::from_millis(100);
/// How long a client keeps trying an agent that is busy (serving another
/// client, or with too many connections saying hello) or that drops it
/// before its hello is read, waiting longer each time.
const BUSY_WAIT: Duration = Duration::from_secs(20);
/// The first and the longest pause between two tries.
const FIRST_PAUSE: Duration = Duration::from_millis(50);
const LONGEST_PAUSE: Duration = Duration::from_secs(1);

/// Where the far side of a case runs: an `iolab agent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Peer {
    /// `HOST:PORT` as given (the port defaulted).
    pub(crate) addr: String,
    pub(crate) token: Option<String>,
    /// The agent's CPU for the far side (`--peer-cpu`).
    pub(crate) cpu: Option<usize>,
}

/// One far side to run and the local side that talks to it.
pub(crate) struct Remote<'a, F> {
    pub(crate) peer: &'a Peer,
    pub(crate) transport: Transport,
    /// What the far side is, e.g. `pingpong/echoer` (a capability).
    pub(crate) role: &'static str,
    /// The far side's request, as the agent's scenario reads it.
    pub(crate) side: serde_json::Value,
    pub(crate) mode: Mode,
    pub(crate) cpu: Option<usize>,
    pub(crate) timeout: Duration,
    /// The local side, given its connected data socket.
    pub(crate) local: F,
}

/// An open control connection, after the handshake.
struct Conn {
    addr: String,
    wire: Wire,
    environment: Environment,
    capabilities: Vec<String>,
}

/// The connection the last case left in a clean state: the next case of
/// the run reuses it, so a run is one client of the agent (`--once`
/// serves one run). The kernel closes it when iolab exits.
static POOL: Mutex<Option<Conn>> = Mutex::new(None);

/// The pooled connection to `peer` (true), or a new one (false).
fn connection(peer: &Peer) -> anyhow::Result<(Conn, bool)> {
    let pooled = POOL.lock().unwrap_or_else(|e| e.into_inner()).take();
    match pooled {
        Some(conn) if conn.addr == peer.addr => Ok((conn, true)),
        _ => Ok((open(peer)?, false)),
    }
}

fn keep(conn: Conn) {
    *POOL.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn);
}

/// Runs both sides; returns (local report, far report). Refusals and
/// setup failures are errors naming the agent.
pub(crate) fn run_remote<R, F>(r: Remote<F>) -> anyhow::Result<[SideResult<R>; 2]>
where
    R: Serialize + DeserializeOwned + Send + 'static,
    F: FnOnce(OwnedFd) -> anyhow::Result<R> + Send + 'static,
{
    let at = || format!("agent at {}", r.peer.addr);
    let (mut conn, pooled) = connection(r.peer).with_context(at)?;
    let fd = match start_far(&mut conn, &r) {
        Ok(fd) => fd,
        // The agent may have dropped an idle connection: once more afresh.
        Err(_) if pooled => {
            conn = open(r.peer).with_context(at)?;
            start_far(&mut conn, &r).with_context(at)?
        }
        Err(e) => return Err(e).with_context(at),
    };
    let local = r.local;
    let spec = Spec::new("local side", r.mode).on(r.cpu);
    let mut side = side::start(spec, move |_| local(fd))?;
    let (reports, clean) = watch(&mut side, &mut conn.wire, r.timeout);
    if clean {
        keep(conn);
    }
    Ok(reports)
}

/// The peer's environment fingerprint, from the handshake.
pub(crate) fn environment(peer: &Peer) -> anyhow::Result<Environment> {
    let (conn, _) = connection(peer).with_context(|| format!("agent at {}", peer.addr))?;
    let env = conn.environment.clone();
    keep(conn);
    Ok(env)
}

/// Why one try to shake hands failed.
enum Try {
    /// For a while (busy, or dropped before the hello was read): again.
    Again(anyhow::Error),
    /// For good.
    Failed(anyhow::Error),
}

/// Connects and shakes hands; an agent that is busy or drops the
/// connection before its hello is read is tried again, with growing
/// pauses, for up to `BUSY_WAIT`.
fn open(peer: &Peer) -> anyhow::Result<Conn> {
    let until = Instant::now() + BUSY_WAIT;
    let mut pause = FIRST_PAUSE;
    loop {
        let why = match try_open(peer) {
            Ok(conn) => return Ok(conn),
            Err(Try::Failed(e)) => return Err(e),
            Err(Try::Again(why)) => why,
        };
        if Instant::now() + pause >= until || cleanup::cancelled() {
            return Err(why);
        }
        std::thread::sleep(jittered(pause));
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// `pause` give or take a quarter, so clients turned away together do not
/// come back together.
fn jittered(pause: Duration) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let quarter = pause / 4;
    pause - quarter + quarter.mul_f64(2.0 * f64::from(nanos % 1000) / 1000.0)
}

/// One try to connect and shake hands.
fn try_open(peer: &Peer) -> Result<Conn, Try> {
    let failed = |e: anyhow::Error| Try::Failed(e);
    let addr = resolve(&peer.addr).map_err(failed)?;
    let stream = TcpStream::connect_timeout(&addr, SETUP_WAIT)
        .context("connecting")
        .map_err(failed)?;
    let _ = stream.set_nodelay(true);
    data::notice_dead_link(&stream).map_err(|e| failed(e.into()))?;
    let mut wire = Wire::new(stream).map_err(|e| failed(e.into()))?;
    let hello = ToAgent::Hello(Hello {
        version: VERSION,
        token: peer.token.clone(),
        capabilities: vec![format!("protocol/{VERSION}")],
    });
    wire.send(&hello).map_err(|e| Try::Again(e.into()))?;
    // An agent that refuses the hello for good (a wrong token, another
    // version) cannot serve this run at all: the caller's setting to fix.
    let welcome = match wire.recv(LINE_LIMIT, Some(SETUP_WAIT)) {
        Ok(FromAgent::Error { message }) if message.starts_with(super::proto::BUSY) => {
            return Err(Try::Again(anyhow::anyhow!("refused: {message}")))
        }
        Ok(FromAgent::Error { message }) => {
            let refused = UsageError::new(format!("refused: {message}"));
            return Err(Try::Failed(refused.into()));
        }
        Ok(msg) => msg,
        Err(e @ (WireError::Closed | WireError::Io(_))) => {
            return Err(Try::Again(
                anyhow::Error::new(e).context("waiting for the agent"),
            ))
        }
        Err(e) => {
            return Err(failed(
                anyhow::Error::new(e).context("waiting for the agent"),
            ))
        }
    };
    welcomed(peer, wire, welcome).map_err(failed)
}

/// The connection, once the agent's answer to the hello is a welcome of
/// this protocol's version.
fn welcomed(peer: &Peer, wire: Wire, welcome: FromAgent) -> anyhow::Result<Conn> {
    match welcome {
        FromAgent::Welcome {
            version,
            environment,
            capabilities,
        } if version == VERSION => Ok(Conn {
            addr: peer.addr.clone(),
            wire,
            environment: *environment,
            capabilities,
        }),
        FromAgent::Welcome { version, .. } => bail!(
            "protocol version mismatch: the agent speaks version {version}, this client {VERSION}"
        ),
        other => unexpected(other),
    }
}

fn resolve(addr: &str) -> anyhow::Result<SocketAddr> {
    addr.to_socket_addrs()
        .with_context(|| format!("resolving {addr}"))?
        .next()
        .with_context(|| format!("{addr} has no address"))
}

/// The next message during setup; an `error` from the agent is an error.
fn answer(wire: &mut Wire) -> anyhow::Result<FromAgent> {
    match wire.recv(LINE_LIMIT, Some(SETUP_WAIT)) {
        Ok(FromAgent::Error { message }) => bail!("refused: {message}"),
        Ok(msg) => Ok(msg),
        Err(e) => Err(e).context("waiting for the agent"),
    }
}

fn unexpected<T>(msg: FromAgent) -> anyhow::Result<T> {
    bail!("unexpected answer from the agent: {msg:?}")
}

/// Asks for the far side and connects to its data port.
fn start_far<F>(conn: &mut Conn, r: &Remote<F>) -> anyhow::Result<OwnedFd> {
    for needed in [r.role, r.transport.name()] {
        if !conn.capabilities.iter().any(|c| c == needed) {
            bail!(
                "the agent does not offer {needed} (it offers {})",
                conn.capabilities.join(", ")
            );
        }
    }
    let wire = &mut conn.wire;
    wire.send(&ToAgent::Run(Request {
        transport: r.transport,
        cpu: r.peer.cpu,
        timeout_ms: r.timeout.as_millis() as u64,
        side: r.side.clone(),
    }))?;
    let port = match answer(wire)? {
        FromAgent::Ready { port } => port,
        other => return unexpected(other),
    };
    let addr = SocketAddr::new(wire.stream().peer_addr()?.ip(), port);
    data::connect(addr, r.transport, SETUP_WAIT).with_context(|| {
        format!(
            "connecting the {} data socket to {addr}",
            r.transport.name()
        )
    })
}

/// Waits for the local side and the agent's report; past the timeout, or
/// the grace period after the report, or on Ctrl-C, the local side is
/// stopped until it gives up.
/// Also says whether the agent's report came as it should (the connection
/// may serve the next case).
fn watch<R: DeserializeOwned>(
    side: &mut Side,
    wire: &mut Wire,
    timeout: Duration,
) -> ([SideResult<R>; 2], bool) {
    let mut deadline = Instant::now() + timeout;
    let give_up = deadline + GRACE * 2;
    let mut far = None;
    while !side.ended() && Instant::now() < give_up {
        let now = Instant::now();
        if far.is_none() && data::readable(wire.stream(), Duration::ZERO).is_ok() {
            far = Some(report(wire, GRACE));
            deadline = deadline.min(now + GRACE);
        }
        if now >= deadline || cleanup::cancelled() {
            side.kill();
            deadline = deadline.min(now + TICK);
        }
        let wait = deadline
            .saturating_duration_since(now)
            .clamp(TICK / 10, TICK);
        side::wait_any(std::slice::from_mut(side), wait);
    }
    let (far, clean) = far.unwrap_or_else(|| match cleanup::cancelled() {
        true => (Err("cancelled".into()), false),
        false => report(wire, REPORT_WAIT),
    });
    ([side_result(side.take()), far], clean)
}

/// The far side's report, or why there is none; true when the agent
/// sent its report (whatever it says).
fn report<R: DeserializeOwned>(wire: &mut Wire, wait: Duration) -> (SideResult<R>, bool) {
    let outcome = match wire.recv::<FromAgent>(REPORT_LIMIT, Some(wait)) {
        Ok(FromAgent::Report { outcome }) => outcome,
        Ok(FromAgent::Error { message }) => return (Err(format!("the agent: {message}")), false),
        Ok(other) => {
            return (
                Err(format!("unexpected message from the agent: {other:?}")),
                false,
            )
        }
        Err(WireError::Closed) => {
            let why = "the agent closed the control connection without a report \
                       (agent killed or link down)";
            return (Err(why.into()), false);
        }
        Err(WireError::Silent(s)) => {
            let why = format!("no report from the agent within {s} s (agent or link down)");
            return (Err(why), false);
        }
        Err(e) => return (Err(format!("reading the agent's report: {e}")), false),
    };
    let result = match outcome {
        Outcome::Done(value) => serde_json::from_value(value)
            .map_err(|e| format!("unreadable report from the agent: {e}")),
        Outcome::Failed(why) => Err(why),
    };
    (result, true)
}
