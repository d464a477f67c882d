//! `iolab agent`: the far host of `iolab run --peer`. It listens for
//! control connections, serves one client at a time (a second one is told
//! the agent is busy), and for each request runs the scenario's far side
//! (`scenario::far`) through the harness, as a forked process pinned to
//! the CPU the client asked for, killed at the request's time limit or when
//! the client goes away. What a client may ask is bounded (sizes, counts,
//! durations, no external programs); a client that says nothing for
//! `--idle-timeout` is dropped.

mod session;

use crate::cli::AgentArgs;
use crate::error::{Interrupted, UsageError, UsageResult};
use crate::exec::cleanup;
use crate::exec::remote::data::readable;
use crate::exec::remote::proto::VERSION;
use crate::exec::remote::{PortRange, DEFAULT_PORT};
use anyhow::Context;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the accept loop looks at Ctrl-C and `--once`.
const TICK: Duration = Duration::from_millis(200);

/// What `iolab agent` was told.
pub(crate) struct Options {
    pub(crate) listen: SocketAddr,
    pub(crate) token: Option<String>,
    pub(crate) data_ports: PortRange,
    pub(crate) once: bool,
    pub(crate) idle: Duration,
}

/// The command line, checked.
pub(crate) fn options(args: &AgentArgs) -> UsageResult<Options> {
    let listen = listen_addr(&args.listen)?;
    let data_ports = match args.data_ports.as_deref() {
        None => PortRange::ANY,
        Some(text) => PortRange::parse(text).ok_or_else(|| {
            UsageError::new(format!(
                "invalid --data-ports '{text}': expected a port or a range A-B (1-65535, A <= B)"
            ))
        })?,
    };
    let idle = args
        .idle_timeout
        .parse::<u64>()
        .ok()
        .filter(|s| (1..=3600).contains(s))
        .ok_or_else(|| {
            UsageError::new(format!(
                "invalid --idle-timeout '{}': expected whole seconds, 1 to 3600",
                args.idle_timeout
            ))
        })?;
    let token = args
        .token
        .clone()
        .or_else(|| std::env::var("IOLAB_TOKEN").ok())
        .filter(|t| !t.is_empty());
    Ok(Options {
        listen,
        token,
        data_ports,
        once: args.once,
        idle: Duration::from_secs(idle),
    })
}

/// `ADDR:PORT`, or `ADDR` on the default port.
fn listen_addr(text: &str) -> UsageResult<SocketAddr> {
    let bad = || {
        UsageError::new(format!(
            "invalid --listen '{text}': expected ADDR:PORT or ADDR (an address of this host, port default {DEFAULT_PORT})"
        ))
    };
    let with_port = match text.parse::<std::net::IpAddr>() {
        Ok(ip) => SocketAddr::new(ip, DEFAULT_PORT).to_string(),
        Err(_) => text.to_string(),
    };
    with_port
        .to_socket_addrs()
        .map_err(|_| bad())?
        .next()
        .ok_or_else(bad)
}

/// Serves until Ctrl-C (or, with `--once`, until the first client leaves).
pub(crate) fn serve(opts: Options) -> anyhow::Result<()> {
    cleanup::install()?;
    let listener = TcpListener::bind(opts.listen)
        .map_err(|e| UsageError::new(format!("cannot listen on {}: {e}", opts.listen)))?;
    announce(&listener, &opts)?;
    let opts = Arc::new(opts);
    let env = Arc::new(crate::env::fingerprint());
    let busy = Arc::new(AtomicBool::new(false));
    let mut worker: Option<JoinHandle<()>> = None;
    while !cleanup::cancelled() {
        if opts.once && worker.as_ref().is_some_and(JoinHandle::is_finished) {
            break;
        }
        if readable(&listener, TICK).is_err() {
            continue;
        }
        let Ok((stream, from)) = listener.accept() else {
            continue;
        };
        if busy.swap(true, Ordering::SeqCst) || (opts.once && worker.is_some()) {
            session::refuse_busy(stream, from);
            continue;
        }
        let (opts, env, busy) = (opts.clone(), env.clone(), busy.clone());
        worker = Some(std::thread::spawn(move || {
            session::serve(stream, from, &opts, &env, || {
                busy.store(false, Ordering::SeqCst)
            });
        }));
    }
    if let Some(signal) = crate::cancel::cancelled_by() {
        // The signal killed the far side; a session waiting for its
        // client's next request ends with the process.
        return Err(Interrupted(signal).into());
    }
    if let Some(worker) = worker {
        let _ = worker.join();
    }
    Ok(())
}

fn announce(listener: &TcpListener, opts: &Options) -> anyhow::Result<()> {
    let addr = listener.local_addr().context("the listening address")?;
    let data = match opts.data_ports {
        PortRange::ANY => "any free port".to_string(),
        r => format!("ports {}-{}", r.first, r.last),
    };
    eprintln!(
        "iolab agent: listening on {addr} (protocol {VERSION}), data on {data}, {}",
        match &opts.token {
            Some(_) => "clients must present the token",
            None => "no token: any client that reaches this port may run tests",
        }
    );
    Ok(())
}
