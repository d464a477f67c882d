//! The short human label of a channel, for the doctor's text output:
//! `fd 3, pipe to cat (pid 812)`, `fd 4, epoll watching 3 fds`.

use super::fds::anon_name;
use super::types::{Channel, Kind, Peer};

/// How many peer processes a label names before "and N more".
const NAMED_PEERS: usize = 3;

impl Channel {
    /// `fd N, ` and what the channel is and where it leads.
    pub(crate) fn label(&self) -> String {
        format!("fd {}, {}", self.fd, self.what())
    }

    fn what(&self) -> String {
        let peers = peer_text(self.pid, &self.peers);
        match &self.kind {
            Kind::Pipe { readable, writable } => pipe(*readable, *writable, peers),
            Kind::Fifo {
                path, fs, atime, ..
            } => {
                format!("FIFO {path} ({fs}, {atime}){}", with(" with ", peers))
            }
            Kind::Unix {
                ty,
                path,
                peer_inode,
                peer_path,
                listening,
            } => unix(
                ty,
                path.as_deref(),
                peer_inode.is_some(),
                peer_path.as_deref(),
                *listening,
                peers,
            ),
            Kind::Tcp {
                local,
                remote,
                loopback,
                state,
                ..
            } => tcp(local, remote, *loopback, state, peers),
            Kind::Udp {
                local,
                remote,
                loopback,
                ..
            } => udp(local, remote, *loopback, peers),
            Kind::Eventfd { count, semaphore } => eventfd(*count, *semaphore),
            Kind::Epoll { watched } => {
                format!(
                    "epoll watching {} fd{}",
                    watched.len(),
                    if watched.len() == 1 { "" } else { "s" }
                )
            }
            Kind::Signalfd { sigmask } => format!("signalfd (mask {sigmask})"),
            Kind::Timerfd => "timerfd".to_string(),
            Kind::Mqueue { name, qsize } => match qsize {
                Some(q) => format!("POSIX mqueue {name} ({q} bytes queued)"),
                None => format!("POSIX mqueue {name}"),
            },
            Kind::File { path } => format!("file {path}"),
            Kind::Other { target } => anon_name(target).unwrap_or(target).to_string(),
        }
    }
}

/// `cat (pid 812), sh (pid 813)`, `self (fd 6)`; None without peers.
fn peer_text(own_pid: i32, peers: &[Peer]) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    for p in peers {
        if p.pid == own_pid {
            names.push(format!("self (fd {})", p.fd));
        } else if !seen.contains(&p.pid) {
            seen.push(p.pid);
            names.push(format!("{} (pid {})", p.comm, p.pid));
        }
    }
    let more = names.len().saturating_sub(NAMED_PEERS);
    names.truncate(NAMED_PEERS);
    match (names.is_empty(), more) {
        (true, _) => None,
        (false, 0) => Some(names.join(", ")),
        (false, n) => Some(format!("{} and {n} more", names.join(", "))),
    }
}

/// `prefix` and the peers, or nothing.
fn with(prefix: &str, peers: Option<String>) -> String {
    peers.map(|p| format!("{prefix}{p}")).unwrap_or_default()
}

fn pipe(readable: bool, writable: bool, peers: Option<String>) -> String {
    let way = match (readable, writable) {
        (false, true) => " to ",
        (true, false) => " from ",
        _ => " with ",
    };
    match peers {
        Some(p) => format!("pipe{way}{p}"),
        None => "pipe (no other holder)".to_string(),
    }
}

fn unix(
    ty: &str,
    path: Option<&str>,
    paired: bool,
    peer_path: Option<&str>,
    listening: bool,
    peers: Option<String>,
) -> String {
    let head = format!("unix {ty}");
    if listening {
        return format!("{head} listening on {}", path.unwrap_or("?"));
    }
    let place = match (path, peer_path) {
        (Some(p), _) => format!(" on {p}"),
        (None, Some(p)) => format!(" to {p}"),
        (None, None) if paired => " socketpair".to_string(),
        (None, None) => String::new(),
    };
    let peers = with(
        if peer_path.is_some() && path.is_none() {
            " of "
        } else {
            " to "
        },
        peers,
    );
    format!("{head}{place}{peers}")
}

fn tcp(local: &str, remote: &str, loopback: bool, state: &str, peers: Option<String>) -> String {
    if state == "LISTEN" {
        return format!("TCP listening on {local}");
    }
    let state = if state == "ESTABLISHED" {
        String::new()
    } else {
        format!(" [{state}]")
    };
    format!(
        "TCP {local} -> {remote}{}{state}{}",
        lo(loopback),
        with(", peer ", peers)
    )
}

fn udp(local: &str, remote: &str, loopback: bool, peers: Option<String>) -> String {
    if remote.ends_with(":0") {
        return format!("UDP on {local}");
    }
    format!(
        "UDP {local} -> {remote}{}{}",
        lo(loopback),
        with(", peer ", peers)
    )
}

fn lo(loopback: bool) -> &'static str {
    if loopback {
        " (loopback)"
    } else {
        ""
    }
}

fn eventfd(count: Option<u64>, semaphore: Option<bool>) -> String {
    let mut notes = Vec::new();
    notes.extend(count.map(|c| format!("count {c}")));
    if semaphore == Some(true) {
        notes.push("semaphore".to_string());
    }
    match notes.is_empty() {
        true => "eventfd".to_string(),
        false => format!("eventfd ({})", notes.join(", ")),
    }
}
