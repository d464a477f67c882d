//! The agent's door: every connection that has yet to authenticate waits
//! here, on the accept loop's thread, with no thread of its own. Each poll
//! reads whatever has arrived on all of them, so a client whose whole
//! hello is in reads it checked at once, however many strangers came
//! before it (not first come, first served). A source (an IPv4 address, an
//! IPv6 /64) may keep `PER_SOURCE` connections waiting and the door
//! `MAX_WAITING` in all: a new connection past either takes the place of
//! the oldest waiting one of its source, or at the door's cap of the
//! busiest source's, which is told to try again. OpenSSH's `MaxStartups`
//! drops new connections at random as its cap nears, so a flood that never
//! stops keeps a client out with some chance each try; here a stranger's
//! connections make room only for their own source's newer ones, so a
//! flood from one source cannot take the room of another, and a client
//! that shares its source is read the moment its hello arrives.
//! (`PerSourcePenalties`, which bars a misbehaving source for a while,
//! is not needed for that: a flood costs its source alone.)

use super::session::Greeted;
use super::tally::Tally;
use super::Options;
use crate::exec::remote::proto::{
    version_mismatch, FromAgent, Hello, ToAgent, BUSY, LINE_LIMIT, VERSION,
};
use crate::exec::remote::wire::{Wire, WireError};
use rustix::event::{poll, PollFd, PollFlags};
use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// Connections waiting to authenticate, at most, across all sources; each
/// holds at most one hello's bytes.
pub(crate) const MAX_WAITING: usize = 256;
/// Connections waiting to authenticate, at most, from one source.
pub(crate) const PER_SOURCE: usize = 8;

/// How long a client has to send its whole hello, token included: a
/// connection that has not authenticated by then is dropped, so a silent
/// or trickling stranger cannot hold the agent.
pub(crate) const HELLO_DEADLINE: Duration = Duration::from_secs(5);

/// Where connections come from, as the budget counts them: an IPv4
/// address, or the /64 an IPv6 address is in (a host is given a /64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Source(IpAddr);

impl Source {
    pub(crate) fn of(addr: &SocketAddr) -> Source {
        match addr.ip() {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Source(IpAddr::V4(v4)),
                None => Source(IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into())),
            },
            v4 => Source(v4),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

/// A connection still to authenticate.
struct Waiting {
    stream: TcpStream,
    from: SocketAddr,
    source: Source,
    since: Instant,
    /// The hello so far.
    line: Vec<u8>,
}

/// What reading a waiting connection came to.
enum Heard {
    /// Nothing whole yet.
    More,
    /// The hello, authenticated.
    In,
    /// Refused, for this reason (its kind for the tally, what it is told).
    Out(&'static str, String),
    /// It left.
    Gone,
}

/// The connections waiting to authenticate, oldest first, and the
/// clients that have, until the accept loop takes them.
pub(crate) struct Door<'a> {
    opts: &'a Options,
    waiting: Vec<Waiting>,
    greeted: Vec<Greeted>,
}

impl<'a> Door<'a> {
    pub(crate) fn new(opts: &'a Options) -> Door<'a> {
        Door {
            opts,
            waiting: Vec::new(),
            greeted: Vec::new(),
        }
    }

    /// The clients that authenticated since the last call.
    pub(crate) fn greeted(&mut self) -> Vec<Greeted> {
        std::mem::take(&mut self.greeted)
    }

    /// Waits up to `wait` for the listener or a waiting connection; reads
    /// what arrived, drops what is past its deadline; whether the listener
    /// has connections to accept.
    pub(crate) fn wait(
        &mut self,
        listener: &TcpListener,
        wait: Duration,
        tally: &mut Tally,
    ) -> bool {
        let ready = self.ready(listener, wait);
        let incoming = ready.first().copied().unwrap_or(false);
        let mut i = 0;
        let mut at = 1;
        while i < self.waiting.len() {
            let readable = ready.get(at).copied().unwrap_or(false);
            at += 1;
            let outcome = match readable {
                true => self.read(i),
                false => Heard::More,
            };
            let outcome = match outcome {
                Heard::More => self.expired(i),
                other => other,
            };
            match outcome {
                Heard::More => i += 1,
                done => self.settle(i, done, tally),
            }
        }
        incoming
    }

    /// Takes in a connection just accepted: a client if its whole hello
    /// has arrived already; else it waits, making room if it must.
    pub(crate) fn admit(&mut self, stream: TcpStream, from: SocketAddr, tally: &mut Tally) {
        if stream.set_nonblocking(true).is_err() {
            return;
        }
        let _ = stream.set_nodelay(true);
        self.make_room(Source::of(&from), tally);
        self.waiting.push(Waiting {
            stream,
            from,
            source: Source::of(&from),
            since: Instant::now(),
            line: Vec::new(),
        });
        let last = self.waiting.len() - 1;
        match self.read(last) {
            Heard::More => {}
            done => self.settle(last, done, tally),
        }
    }

    /// Which of the listener (first) and the waiting connections poll
    /// found readable (or closed) within `wait`.
    fn ready(&self, listener: &TcpListener, wait: Duration) -> Vec<bool> {
        let mut fds = vec![PollFd::new(listener, PollFlags::IN)];
        fds.extend(
            self.waiting
                .iter()
                .map(|w| PollFd::new(&w.stream, PollFlags::IN)),
        );
        let wait = wait.min(self.next_deadline());
        let ts = rustix::time::Timespec::try_from(wait).ok();
        if poll(&mut fds, ts.as_ref()).is_err() {
            return vec![false; fds.len()];
        }
        fds.iter().map(|fd| !fd.revents().is_empty()).collect()
    }

    /// How long until the oldest waiting connection's deadline.
    fn next_deadline(&self) -> Duration {
        self.waiting.first().map_or(Duration::MAX, |w| {
            (w.since + self.allowed()).saturating_duration_since(Instant::now())
        })
    }

    /// How long a hello may take: the hello deadline, or the idle timeout
    /// if shorter.
    fn allowed(&self) -> Duration {
        HELLO_DEADLINE.min(self.opts.idle)
    }

    /// Room for one more connection from `source`: past its budget, its
    /// oldest waiting one goes; at the door's cap, the busiest source's.
    /// What arrived is read first: a connection whose hello is in is
    /// settled instead, which makes the room as well.
    fn make_room(&mut self, source: Source, tally: &mut Tally) {
        let mine = self.waiting.iter().filter(|w| w.source == source).count();
        let victim = match (mine >= PER_SOURCE, self.waiting.len() >= MAX_WAITING) {
            (true, _) => Some(source),
            (false, true) => self.busiest(),
            (false, false) => None,
        };
        let Some(victim) = victim else { return };
        let Some(i) = self.waiting.iter().position(|w| w.source == victim) else {
            return;
        };
        match self.read(i) {
            Heard::More => {
                let busy = format!("{BUSY}too many connections are still to say hello; try again");
                self.settle(i, Heard::Out("made room for newer ones", busy), tally)
            }
            done => self.settle(i, done, tally),
        }
    }

    /// The source with the most connections waiting.
    fn busiest(&self) -> Option<Source> {
        let mut counts: HashMap<Source, usize> = HashMap::new();
        for w in &self.waiting {
            *counts.entry(w.source).or_default() += 1;
        }
        counts.into_iter().max_by_key(|(_, n)| *n).map(|(s, _)| s)
    }

    /// The connection `i` past its deadline is refused; else it waits on.
    fn expired(&self, i: usize) -> Heard {
        let w = &self.waiting[i];
        if w.since.elapsed() < self.allowed() {
            return Heard::More;
        }
        let secs = self.allowed().as_secs();
        match w.line.is_empty() {
            true => Heard::Out("said nothing in time", said(&WireError::Silent(secs))),
            false => Heard::Out("sent half a hello", said(&WireError::Late(secs))),
        }
    }

    /// Reads what connection `i` sent, up to and with its hello's end: the
    /// rest stays unread for the session.
    fn read(&mut self, i: usize) -> Heard {
        let w = &mut self.waiting[i];
        let mut peeked = [0u8; 4096];
        loop {
            let n = match w.stream.peek(&mut peeked) {
                Ok(0) => return Heard::Gone,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Heard::More,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return Heard::Gone,
            };
            let end = peeked[..n].iter().position(|b| *b == b'\n');
            let take = end.map_or(n, |at| at + 1);
            if w.stream.read_exact(&mut peeked[..take]).is_err() {
                return Heard::Gone;
            }
            w.line.extend_from_slice(&peeked[..take]);
            if w.line.len() > LINE_LIMIT + 1 {
                return Heard::Out("sent too much", said(&WireError::TooLong(LINE_LIMIT)));
            }
            if end.is_some() {
                w.line.pop();
                return match authenticate(&w.line, self.opts) {
                    Ok(()) => Heard::In,
                    Err((kind, message)) => Heard::Out(kind, message),
                };
            }
        }
    }

    /// Takes connection `i` off the door: a client, if it authenticated;
    /// else it is told why it is refused (best effort: the door does not
    /// wait on a stranger) and counted.
    fn settle(&mut self, i: usize, outcome: Heard, tally: &mut Tally) {
        let w = self.waiting.remove(i);
        match outcome {
            Heard::In => {
                let wire = w
                    .stream
                    .set_nonblocking(false)
                    .and_then(|()| Wire::new(w.stream));
                if let Ok(wire) = wire {
                    self.greeted.push(Greeted { wire, from: w.from });
                }
            }
            Heard::Out(kind, message) => {
                tally.note(kind, w.source, &format!("{}: {message}", w.from));
                refuse(w.stream, &message);
            }
            Heard::Gone => {
                tally.note(
                    "left before a hello",
                    w.source,
                    &format!("{}: gone", w.from),
                );
            }
            Heard::More => {}
        }
    }
}

/// Tells a stranger why, if its socket takes the line now, and closes.
fn refuse(mut stream: TcpStream, message: &str) {
    let error = FromAgent::Error {
        message: message.to_string(),
    };
    if let Ok(mut line) = serde_json::to_vec(&error) {
        line.push(b'\n');
        let _ = stream.write(&line);
    }
    // What it sent on and nobody read would make close() a reset, which
    // can discard the line above.
    let mut sink = [0u8; 4096];
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// The client's hello: its version first (a hello of another version may
/// have another shape), then its token. Why not, as the tally's kind and
/// the error line.
fn authenticate(line: &[u8], opts: &Options) -> Result<(), (&'static str, String)> {
    let malformed = |e: String| ("malformed hello", e);
    let raw: serde_json::Value =
        crate::exec::remote::wire::parse(line).map_err(|e| malformed(e.to_string()))?;
    if let Some(version) = raw.get("version").and_then(serde_json::Value::as_u64) {
        if version != u64::from(VERSION) {
            return Err(("another version", version_mismatch(version)));
        }
    }
    let hello: Hello = match serde_json::from_value(raw) {
        Ok(ToAgent::Hello(hello)) => hello,
        Ok(ToAgent::Run(_)) => return Err(malformed("a request before the hello".into())),
        Err(e) => return Err(malformed(format!("malformed control message: {e}"))),
    };
    if !token_matches(opts.token.as_deref(), hello.token.as_deref()) {
        let why =
            "wrong token: start the client with --token or IOLAB_TOKEN as given to this agent";
        return Err(("wrong token", why.into()));
    }
    Ok(())
}

/// Compares every byte, so the time taken does not tell how much matched.
fn token_matches(want: Option<&str>, got: Option<&str>) -> bool {
    match (want, got) {
        (None, _) => true,
        (Some(want), Some(got)) => {
            let same_len = want.len() == got.len();
            let diff = want
                .bytes()
                .zip(got.bytes().chain(std::iter::repeat(0)))
                .fold(0u8, |acc, (a, b)| acc | (a ^ b));
            same_len && diff == 0
        }
        (Some(_), None) => false,
    }
}

/// The error line for what the client sent.
pub(crate) fn said(e: &WireError) -> String {
    match e {
        WireError::Silent(s) => format!("the client said nothing for {s} s"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_matches_only_itself() {
        assert!(token_matches(None, None));
        assert!(token_matches(None, Some("anything")));
        assert!(token_matches(Some("s3cret"), Some("s3cret")));
        for wrong in [
            None,
            Some(""),
            Some("s3cre"),
            Some("s3cret!"),
            Some("S3cret"),
        ] {
            assert!(!token_matches(Some("s3cret"), wrong), "{wrong:?}");
        }
    }

    #[test]
    fn a_source_is_an_address_or_an_ipv6_64() {
        let at = |s: &str| Source::of(&s.parse().unwrap()).to_string();
        assert_eq!(at("10.0.0.7:5000"), "10.0.0.7");
        assert_eq!(at("[2001:db8:1:2:3:4:5:6]:5000"), "2001:db8:1:2::/64");
        assert_eq!(at("[::ffff:10.0.0.7]:5000"), "10.0.0.7");
    }
}
