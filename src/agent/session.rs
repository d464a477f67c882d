//! One client of the agent, once it has authenticated (`door`): the
//! welcome, then its requests one after another, each a far side run
//! through the harness and answered with its report. Every read has a
//! limit and a timeout; every refusal is an `error` line naming what was
//! wrong, then the connection closes.

use super::Options;
use crate::exec::remote::data::{readable, Listener};
use crate::exec::remote::proto::{FromAgent, Outcome, Request, ToAgent, BUSY, LINE_LIMIT, VERSION};
use crate::exec::remote::wire::{Wire, WireError};
use crate::exec::side::{self, Ended, Side, Spec};
use crate::exec::{cleanup, Mode};
use crate::model::Environment;
use crate::scenario::far::{FarSide, ROLES};
use anyhow::Context;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// The longest a client may ask one far side to run.
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_secs(600);
/// How long the client has to connect its data socket.
const CONNECT_WAIT: Duration = Duration::from_secs(10);
const TICK: Duration = Duration::from_millis(100);

/// A client that authenticated (`door`): its connection, ready for the
/// welcome.
pub(crate) struct Greeted {
    pub(super) wire: Wire,
    pub(super) from: SocketAddr,
}

/// Serves an authenticated client until it leaves, errs or falls silent.
/// `free` runs once the client has been served, before its last answer,
/// so a client that reads that answer finds the agent free for its next.
pub(crate) fn serve(client: Greeted, opts: &Options, env: &Environment, free: impl FnOnce()) {
    let Greeted { mut wire, from } = client;
    super::log(&format!("{from}: connected"));
    let _ = crate::exec::remote::data::notice_dead_link(wire.stream());
    let _ = wire.stream().set_write_timeout(Some(opts.idle));
    let why = match welcome(&mut wire, env) {
        Ok(()) => requests(&mut wire, opts),
        Err(why) => Some(why),
    };
    free();
    if let Some(message) = why {
        super::log(&format!("{from}: {message}"));
        let _ = wire.send(&FromAgent::Error { message });
    }
    super::log(&format!("{from}: gone"));
}

/// Tells an authenticated client that another one is being served.
pub(crate) fn refuse_busy(client: Greeted) {
    let Greeted { mut wire, from } = client;
    super::log(&format!("{from}: refused, busy with another client"));
    let _ = wire.send(&FromAgent::Error {
        message: format!("{BUSY}this agent is serving another client; try again when it is done"),
    });
}

/// The welcome: the agent's version, capabilities and environment.
fn welcome(wire: &mut Wire, env: &Environment) -> Result<(), String> {
    let mut capabilities: Vec<String> = ROLES.iter().map(|r| r.to_string()).collect();
    capabilities.extend(["tcp".to_string(), "udp".to_string()]);
    wire.send(&FromAgent::Welcome {
        version: VERSION,
        capabilities,
        environment: Box::new(env.clone()),
    })
    .map_err(|e| e.to_string())
}

/// Requests until the client leaves (None) or one is refused (Some(why)).
fn requests(wire: &mut Wire, opts: &Options) -> Option<String> {
    while !cleanup::cancelled() {
        let request = match wire.recv::<ToAgent>(LINE_LIMIT, Some(opts.idle)) {
            Ok(ToAgent::Run(request)) => request,
            Ok(ToAgent::Hello(_)) => return Some("a second hello".into()),
            Err(WireError::Closed) => return None,
            Err(e) => return Some(super::door::said(&e)),
        };
        match run(wire, request, opts) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(why) => return Some(why),
        }
    }
    Some("the agent was stopped".into())
}

/// Checks the request against the limits; the far side and its CPU.
fn admit(request: &Request) -> Result<FarSide, String> {
    let far: FarSide = serde_json::from_value(request.side.clone())
        .map_err(|e| format!("malformed request: {e}"))?;
    far.check(request.transport)?;
    if let Some(cpu) = request.cpu {
        let allowed = crate::measure::pin::allowed_cpus();
        if !allowed.contains(&cpu) {
            let list: Vec<String> = allowed.iter().map(usize::to_string).collect();
            return Err(format!(
                "--peer-cpu {cpu}: not a CPU this agent may use (expected one of {})",
                list.join(", ")
            ));
        }
    }
    Ok(far)
}

/// Runs one far side. Ok(false): the client went away during it.
fn run(wire: &mut Wire, request: Request, opts: &Options) -> Result<bool, String> {
    let far = admit(&request)?;
    let fd = connect_data(wire, &request, opts).map_err(|e| format!("{e:#}"))?;
    let transport = request.transport;
    let spec = Spec::new("far side", Mode::Processes).on(request.cpu);
    let mut side =
        side::start(spec, move |_| far.run(transport, fd)).map_err(|e| format!("{e:#}"))?;
    let limit = Duration::from_millis(request.timeout_ms).min(MAX_TIMEOUT);
    if !watch(&mut side, wire, limit) {
        return Ok(false);
    }
    let outcome = match side.take::<serde_json::Value>() {
        Ended::Done(value, _) => Outcome::Done(value),
        other => Outcome::Failed(format!("{:#}", other.into_result("far side").unwrap_err())),
    };
    wire.send(&FromAgent::Report { outcome })
        .map_err(|e| e.to_string())?;
    Ok(true)
}

/// Listens on a data port, tells the client which, and takes its
/// connection (from the control connection's address only).
fn connect_data(
    wire: &mut Wire,
    request: &Request,
    opts: &Options,
) -> anyhow::Result<rustix::fd::OwnedFd> {
    let ip = wire.stream().local_addr()?.ip();
    let client = wire.stream().peer_addr()?.ip();
    let listener = Listener::bind(ip, opts.data_ports, request.transport)?;
    wire.send(&FromAgent::Ready {
        port: listener.port()?,
    })?;
    listener
        .accept(client, CONNECT_WAIT)
        .context("data connection")
}

/// Waits for the far side, killing it at `limit`, on Ctrl-C, or when the
/// control connection shows the client gone (it sends nothing while a
/// side runs). False when the client is gone.
fn watch(side: &mut Side, wire: &Wire, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while !side.ended() {
        if readable(wire.stream(), Duration::ZERO).is_ok() {
            side.kill();
            let _ = side.take::<serde_json::Value>();
            return false;
        }
        if Instant::now() >= deadline || cleanup::cancelled() {
            side.kill();
        }
        side::wait_any(std::slice::from_mut(side), TICK);
    }
    true
}
