//! The three processes of `poll-scale`: the server waits on every
//! connection with the poller under test and answers each one-byte request;
//! the client keeps one request outstanding on each active connection and
//! times every round trip; the idle holder keeps its connections open and
//! silent. Plus the transport (TCP over loopback, or a Unix socket).

use crate::exec::procs::Ready;
use crate::measure::clock::now_ns;
use crate::mechanism::write_all_fd;
use crate::poller::{self, Poller};
use crate::scenario::common::fd_budget::raise_nofile;
use crate::scenario::common::readiness::{read_ready, register};
use crate::scenario::common::side::{Meter, Schedule, SideOut};
use crate::stats::histogram::Latencies;
use rustix::fd::{AsFd, OwnedFd};
use rustix::net::{accept_with, listen, sockopt, SocketFlags};
use std::path::{Path, PathBuf};

/// Listen backlog: the kernel caps it at net.core.somaxconn.
const BACKLOG: i32 = 65535;

/// Where the server listens.
#[derive(Clone)]
pub(crate) enum Addr {
    Tcp(std::net::SocketAddr),
    Unix(PathBuf),
}

impl Addr {
    pub(crate) fn is_tcp(&self) -> bool {
        matches!(self, Addr::Tcp(_))
    }
}

/// A listening socket for `transport` ("tcp" or "unix") and its address.
pub(crate) fn listener(transport: &str, dir: &Path) -> anyhow::Result<(OwnedFd, Addr)> {
    let (fd, addr) = match transport {
        "tcp" => {
            let l = std::net::TcpListener::bind("127.0.0.1:0")?;
            let addr = Addr::Tcp(l.local_addr()?);
            (OwnedFd::from(l), addr)
        }
        _ => {
            let path = dir.join("poll-scale.sock");
            let l = std::os::unix::net::UnixListener::bind(&path)?;
            (OwnedFd::from(l), Addr::Unix(path))
        }
    };
    listen(&fd, BACKLOG)?;
    Ok((fd, addr))
}

fn connect(addr: &Addr) -> anyhow::Result<OwnedFd> {
    Ok(match addr {
        Addr::Tcp(a) => {
            let s = std::net::TcpStream::connect(a)?;
            s.set_nodelay(true)?;
            OwnedFd::from(s)
        }
        Addr::Unix(p) => OwnedFd::from(std::os::unix::net::UnixStream::connect(p)?),
    })
}

/// The request on the `seq`-th send and the answer it must get back.
pub(crate) fn request(seq: u64) -> u8 {
    (seq % 251) as u8
}

pub(crate) fn answer(request: u8) -> u8 {
    !request
}

pub(crate) struct ServerCfg {
    pub(crate) poller: &'static dyn Poller,
    pub(crate) conns: u64,
    pub(crate) tcp: bool,
    /// Requests to answer before reporting.
    pub(crate) total: u64,
    /// Answer this request (counted from 0) wrongly: the test-only fault.
    pub(crate) corrupt_at: Option<u64>,
}

/// Accepts every connection, waits on all of them with the poller and
/// answers until `total` requests are answered.
pub(crate) fn server(listener: OwnedFd, cfg: ServerCfg, ready: &Ready) -> anyhow::Result<SideOut> {
    raise_nofile()?;
    let mut conns = Vec::with_capacity(cfg.conns as usize);
    for _ in 0..cfg.conns {
        let c = accept_with(&listener, SocketFlags::NONBLOCK | SocketFlags::CLOEXEC)?;
        if cfg.tcp {
            sockopt::set_tcp_nodelay(&c, true)?;
        }
        conns.push(c);
    }
    let mut set = cfg.poller.open(conns.len())?;
    register(&mut *set, &conns)?;
    let edge = set.edge_triggered();
    ready.signal()?;
    let mut out = SideOut::default();
    let mut meter = Meter::start(&mut out);
    let (mut ready_list, mut buf) = (Vec::new(), [0u8; 64]);
    while out.messages < cfg.total {
        ready_list.clear();
        set.wait(&mut ready_list, None)?;
        for &i in &ready_list {
            let fd = conns[i].as_fd();
            let answered = out.messages;
            out.messages += read_ready(fd, edge, &mut buf, |chunk| {
                let mut answers: Vec<u8> = chunk.iter().map(|b| answer(*b)).collect();
                let at = cfg.corrupt_at.map(|c| c.wrapping_sub(answered) as usize);
                if let Some(a) = at.and_then(|k| answers.get_mut(k)) {
                    *a = !*a;
                }
                Ok(write_all_fd(&conns[i], &answers)?)
            })?;
        }
    }
    out.bytes = out.messages;
    meter.mark(&mut out);
    Ok(out)
}

/// Connects the idle connections, says so, then holds them silently until
/// the parent writes to (or closes) `stop`.
pub(crate) fn idle_holder(
    addr: &Addr,
    idle: u64,
    stop: OwnedFd,
    ready: &Ready,
) -> anyhow::Result<u64> {
    raise_nofile()?;
    let conns = (0..idle)
        .map(|_| connect(addr))
        .collect::<anyhow::Result<Vec<_>>>()?;
    ready.signal()?;
    let _ = rustix::io::read(&stop, &mut [0u8; 1]);
    drop(conns);
    Ok(idle)
}

/// One active connection's outstanding request.
#[derive(Clone, Copy)]
struct Outstanding {
    byte: u8,
    sent_ns: u64,
}

/// Runs `active` connections, one request outstanding on each, until
/// `sched.total()` answers have come back; times each round trip.
pub(crate) fn client(
    addr: &Addr,
    active: u64,
    sched: Schedule,
    go: OwnedFd,
    ready: &Ready,
) -> anyhow::Result<SideOut> {
    let conns = (0..active)
        .map(|_| connect(addr))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut set = poller::find("epoll-lt")
        .expect("epoll-lt exists")
        .open(conns.len())?;
    register(&mut *set, &conns)?;
    ready.signal()?;
    rustix::io::read(&go, &mut [0u8; 1])?;
    let mut c = Client {
        conns: &conns,
        pending: vec![None; conns.len()],
        sent: 0,
        sched,
        out: SideOut::default(),
        hist: Latencies::new(),
    };
    let mut meter = Meter::start(&mut c.out);
    for i in 0..conns.len() {
        c.send(i)?;
    }
    let mut ready_list = Vec::new();
    while c.out.messages < sched.total() && c.out.mismatch.is_none() {
        ready_list.clear();
        set.wait(&mut ready_list, None)?;
        // Once the last answer is in, the server exits: other connections
        // may be readable only because they were closed (`receive` skips
        // one with no request outstanding).
        for &i in &ready_list {
            if c.out.messages == sched.total() {
                break;
            }
            c.receive(i, &mut meter)?;
        }
    }
    c.out.histogram = Some(c.hist.to_v2());
    Ok(c.out)
}

struct Client<'a> {
    conns: &'a [OwnedFd],
    /// Each connection's request awaiting its answer, if any.
    pending: Vec<Option<Outstanding>>,
    sent: u64,
    sched: Schedule,
    out: SideOut,
    hist: Latencies,
}

impl Client<'_> {
    fn send(&mut self, i: usize) -> anyhow::Result<()> {
        if self.sent == self.sched.total() {
            return Ok(());
        }
        let byte = request(self.sent);
        self.pending[i] = Some(Outstanding {
            byte,
            sent_ns: now_ns(),
        });
        write_all_fd(&self.conns[i], &[byte])?;
        self.sent += 1;
        Ok(())
    }

    /// Takes the answer on connection `i`, checks it, sends the next
    /// request. A connection whose last request was answered may be closed
    /// by the server finishing with the others: that end is not an error.
    fn receive(&mut self, i: usize, meter: &mut Meter) -> anyhow::Result<()> {
        let mut got = [0u8; 2];
        let n = rustix::io::read(&self.conns[i], &mut got)?;
        let Some(asked) = self.pending[i].take() else {
            if n > 0 {
                self.out.mismatch = Some(format!(
                    "{n} bytes on connection {i}, which has no request outstanding"
                ));
            }
            return Ok(());
        };
        let rtt = now_ns() - asked.sent_ns;
        let want = answer(asked.byte);
        if n != 1 || got[0] != want {
            self.out.mismatch = Some(match n {
                0 => format!("connection {i} closed by the server"),
                1 => format!(
                    "answer {:#04x} to request {:#04x}, expected {want:#04x}",
                    got[0], asked.byte
                ),
                _ => format!("{n} answers to one request on connection {i}"),
            });
            return Ok(());
        }
        let seq = self.out.messages;
        if seq >= self.sched.warmup {
            self.hist.record(rtt);
        }
        self.out.messages += 1;
        self.out.bytes += 1;
        if self.out.messages == self.sched.warmup {
            meter.reset();
        }
        if self.sched.rep_ending_at(seq).is_some() {
            meter.mark(&mut self.out);
        }
        self.send(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    /// A client of one connection whose server end is already closed.
    fn closed_one(pending: Option<Outstanding>, f: impl FnOnce(&mut Client, &mut Meter)) {
        let (mine, theirs) = UnixStream::pair().unwrap();
        drop(theirs);
        let conns = [OwnedFd::from(mine)];
        let sched = Schedule {
            warmup: 0,
            reps: 1,
            count: 10,
            explain: false,
        };
        let mut c = Client {
            conns: &conns,
            pending: vec![pending],
            sent: 1,
            sched,
            out: SideOut::default(),
            hist: Latencies::new(),
        };
        let mut meter = Meter::start(&mut c.out);
        f(&mut c, &mut meter);
    }

    #[test]
    fn a_closed_connection_with_no_request_outstanding_is_not_a_mismatch() {
        closed_one(None, |c, meter| {
            c.receive(0, meter).unwrap();
            assert_eq!(c.out.mismatch, None);
            assert_eq!(c.out.messages, 0);
        });
    }

    #[test]
    fn a_connection_closed_before_its_answer_is_a_mismatch() {
        let asked = Outstanding {
            byte: request(0),
            sent_ns: now_ns(),
        };
        closed_one(Some(asked), |c, meter| {
            c.receive(0, meter).unwrap();
            assert_eq!(
                c.out.mismatch.as_deref(),
                Some("connection 0 closed by the server")
            );
        });
    }
}
