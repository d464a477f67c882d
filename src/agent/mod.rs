//! `iolab agent`: the far host of `iolab run --peer`. It listens for
//! control connections; each must authenticate (version and token) within
//! a few seconds at the door (`door`: every such connection waits on the
//! accept loop, within a budget per source), before it may take the
//! session on a thread of its own; one client is served at a time (a
//! second one is told the agent is busy), and for each request it runs the
//! scenario's far side (`scenario::far`) through the harness, as a forked
//! process pinned to the CPU the client asked for, killed at the request's
//! time limit or when the client goes away. What a client may ask is
//! bounded (sizes, counts, durations, no external programs); a client that
//! says nothing for `--idle-timeout` is dropped. The log shows what clients
//! sent escaped, and strangers' refusals as counts (`tally`).

mod door;
mod session;
mod tally;

use crate::cli::AgentArgs;
use crate::error::{Interrupted, UsageError, UsageResult};
use crate::exec::cleanup;
use crate::exec::remote::proto::VERSION;
use crate::exec::remote::{PortRange, DEFAULT_PORT};
use anyhow::Context;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// The stack of a client's thread: its session, which forks the far side
/// rather than running it.
const CLIENT_STACK: usize = 1 << 20;
/// How long an authenticated client waits for the session to come free
/// (the previous client just left) before it is told the agent is busy.
const SLOT_GRACE: Duration = Duration::from_secs(2);
/// Connections accepted in a row before the door reads the waiting ones
/// again.
const ACCEPT_BATCH: usize = 64;
/// The widest a line of the log gets.
const LOG_WIDTH: usize = 1000;

/// One line of the agent's log on stderr; what a client sent is in it
/// escaped, line breaks too, so no client can forge a line or reach the
/// operator's terminal.
pub(crate) fn log(line: &str) {
    eprintln!("iolab agent: {}", crate::format::printable(line, LOG_WIDTH));
}

/// What the accept loop and the clients' threads share.
struct Shared {
    opts: Options,
    env: crate::model::Environment,
    /// A session holds the agent.
    busy: AtomicBool,
    /// An authenticated session has ended (what `--once` waits for).
    served: AtomicBool,
}

/// Serves until Ctrl-C (or, with `--once`, until the first authenticated
/// client leaves). Connections wait at the door until they authenticate;
/// only an authenticated one may take the session, so no stranger can
/// hold it, and no flood of them keeps a client out.
pub(crate) fn serve(opts: Options) -> anyhow::Result<()> {
    cleanup::install()?;
    let listener = TcpListener::bind(opts.listen)
        .map_err(|e| UsageError::new(format!("cannot listen on {}: {e}", opts.listen)))?;
    listener
        .set_nonblocking(true)
        .context("the listening socket")?;
    // std listens with a backlog of 128: a flood of strangers that
    // reconnect would fill it, and the kernel would then drop a client's
    // SYN too. As long a queue as the kernel allows (somaxconn) is drained
    // by the door, which accepts in batches between its reads.
    rustix::net::listen(&listener, i32::MAX).context("the listening socket's backlog")?;
    announce(&listener, &opts)?;
    let shared = Arc::new(Shared {
        opts,
        env: crate::env::fingerprint(),
        busy: AtomicBool::new(false),
        served: AtomicBool::new(false),
    });
    let mut door = door::Door::new(&shared.opts);
    let mut tally = tally::Tally::new();
    while !cleanup::cancelled() {
        if shared.opts.once && shared.served.load(Ordering::SeqCst) {
            break;
        }
        if door.wait(&listener, TICK, &mut tally) {
            accept(&listener, &mut door, &mut tally);
        }
        for client in door.greeted() {
            start_session(client, &shared);
        }
        tally.log_if_due();
    }
    tally.log();
    if let Some(signal) = crate::cancel::cancelled_by() {
        // The signal killed the far side; a session waiting for its
        // client's next request ends with the process.
        return Err(Interrupted(signal).into());
    }
    Ok(())
}

/// Takes the connections the listener holds to the door, a batch at a
/// time.
fn accept(listener: &TcpListener, door: &mut door::Door, tally: &mut tally::Tally) {
    for _ in 0..ACCEPT_BATCH {
        let Ok((stream, from)) = listener.accept() else {
            return;
        };
        door.admit(stream, from, tally);
    }
}

/// An authenticated client's thread: the session if it is free.
fn start_session(client: session::Greeted, shared: &Arc<Shared>) {
    let mine = shared.clone();
    let started = std::thread::Builder::new()
        .name("client".into())
        .stack_size(CLIENT_STACK)
        .spawn(move || session(client, &mine));
    if let Err(e) = started {
        log(&format!("a client was dropped, no thread for it: {e}"));
    }
}

/// One authenticated client: the session, once it is free.
fn session(client: session::Greeted, shared: &Shared) {
    if !take_session(&shared.busy) {
        return session::refuse_busy(client);
    }
    session::serve(client, &shared.opts, &shared.env, || {
        shared.busy.store(false, Ordering::SeqCst)
    });
    shared.served.store(true, Ordering::SeqCst);
}

/// Takes the session, waiting up to `SLOT_GRACE` for it to come free.
fn take_session(busy: &AtomicBool) -> bool {
    let until = Instant::now() + SLOT_GRACE;
    loop {
        let taken = busy.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst);
        if taken.is_ok() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn announce(listener: &TcpListener, opts: &Options) -> anyhow::Result<()> {
    let addr = listener.local_addr().context("the listening address")?;
    let data = match opts.data_ports {
        PortRange::ANY => "any free port".to_string(),
        r => format!("ports {}-{}", r.first, r.last),
    };
    log(&format!(
        "listening on {addr} (protocol {VERSION}), data on {data}, {}",
        match &opts.token {
            Some(_) => "clients must present the token",
            None => "no token: any client that reaches this port may run tests",
        }
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::session::MAX_TIMEOUT;
    use crate::scenario::far::{MAX_FILE, MAX_MESSAGES, MAX_REPS, MAX_SIZE};

    /// `agent --help` states the limits a far side is checked against.
    #[test]
    fn agent_help_states_the_limits_a_far_side_enforces() {
        let mut cli = crate::cli::command();
        let help = cli.find_subcommand_mut("agent").unwrap().render_long_help();
        let help = help
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let limits = (
            MAX_SIZE,
            MAX_MESSAGES,
            MAX_REPS,
            MAX_FILE,
            MAX_TIMEOUT.as_secs(),
        );
        assert_eq!(limits, (64 << 20, 1 << 34, 10_000, 1 << 40, 600));
        let stated = "messages of 1 B to 64 MiB, at most 2^34 messages and 10,000 repetitions \
                      per test (a far side keeps each repetition's figures until it reports), \
                      files of at most 1 TiB, and at most 600 s per test.";
        assert!(help.contains(stated), "{help}");
    }
}
