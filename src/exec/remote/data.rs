//! The data connection of a remote case: the agent listens on a port of
//! its `--data-ports` range (or one the kernel picks), the client connects,
//! and each gets ONE connected socket that the mechanism turns into its
//! endpoint (`mechanism::Transport::endpoint`). UDP has no accept: the
//! client sends a hello datagram until the agent, having connected its
//! socket to the client's address, answers it. Only the address of the
//! control connection's client may connect.

use crate::mechanism::Transport;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::fd::{AsFd, OwnedFd};
use std::io;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

const HELLO: &[u8] = b"iolab-data-hello";
/// How long the client waits for the answer to one hello datagram.
const HELLO_RETRY: Duration = Duration::from_millis(200);

/// Ports the agent may listen on for data; `0-0`: any the kernel picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PortRange {
    pub(crate) first: u16,
    pub(crate) last: u16,
}

impl PortRange {
    pub(crate) const ANY: PortRange = PortRange { first: 0, last: 0 };

    /// `A-B` (A <= B) or one port `A`.
    pub(crate) fn parse(text: &str) -> Option<PortRange> {
        let (a, b) = text.split_once('-').unwrap_or((text, text));
        let (first, last) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        (first <= last && first > 0).then_some(PortRange { first, last })
    }
}

/// The agent's listening data socket, before the client has connected.
pub(crate) enum Listener {
    Tcp(TcpListener),
    Udp(UdpSocket),
}

impl Listener {
    /// Binds `ip` on the first free port of `ports`.
    pub(crate) fn bind(ip: IpAddr, ports: PortRange, t: Transport) -> io::Result<Listener> {
        let mut last_err = None;
        for port in ports.first..=ports.last {
            let addr = SocketAddr::new(ip, port);
            let bound = match t {
                Transport::Tcp => TcpListener::bind(addr).map(Listener::Tcp),
                Transport::Udp => UdpSocket::bind(addr).map(|s| {
                    t.prepare(&s);
                    Listener::Udp(s)
                }),
            };
            match bound {
                Ok(l) => return Ok(l),
                Err(e) => last_err = Some(e),
            }
        }
        let why = last_err.map_or("an empty range".to_string(), |e| e.to_string());
        Err(io::Error::other(format!(
            "no free data port in {}-{}: {why}",
            ports.first, ports.last
        )))
    }

    pub(crate) fn port(&self) -> io::Result<u16> {
        match self {
            Listener::Tcp(l) => l.local_addr().map(|a| a.port()),
            Listener::Udp(s) => s.local_addr().map(|a| a.port()),
        }
    }

    /// The socket connected to `client` (the control connection's peer),
    /// once it came, at most `wait`; anyone else is turned away.
    pub(crate) fn accept(self, client: IpAddr, wait: Duration) -> io::Result<OwnedFd> {
        let end = Instant::now() + wait;
        let left = || {
            end.saturating_duration_since(Instant::now())
                .max(HELLO_RETRY / 10)
        };
        loop {
            match &self {
                Listener::Tcp(l) => {
                    readable(l, left())?;
                    let (sock, from) = l.accept()?;
                    if from.ip() == client {
                        notice_dead_link(&sock)?;
                        return Ok(OwnedFd::from(sock));
                    }
                }
                Listener::Udp(s) => {
                    s.set_read_timeout(Some(left()))?;
                    let mut buf = [0u8; 64];
                    let (n, from) = s.recv_from(&mut buf).map_err(no_client)?;
                    if from.ip() == client && &buf[..n] == HELLO {
                        s.connect(from)?;
                        s.send(HELLO)?;
                        s.set_read_timeout(None)?;
                        return Ok(OwnedFd::from(s.try_clone()?));
                    }
                }
            }
            if Instant::now() >= end {
                return Err(no_client(io::ErrorKind::TimedOut.into()));
            }
        }
    }
}

/// A TCP connection to the other host notices a dead link in about 15 s,
/// idle or not (keepalive probes after 5 s of silence, and a limit on
/// unacknowledged data), instead of blocking until the case's timeout.
pub(crate) fn notice_dead_link(fd: impl AsFd) -> io::Result<()> {
    use rustix::net::sockopt;
    let fd = fd.as_fd();
    sockopt::set_socket_keepalive(fd, true)?;
    sockopt::set_tcp_keepidle(fd, Duration::from_secs(5))?;
    sockopt::set_tcp_keepintvl(fd, Duration::from_secs(2))?;
    sockopt::set_tcp_keepcnt(fd, 3)?;
    sockopt::set_tcp_user_timeout(fd, 15_000)?;
    Ok(())
}

fn no_client(e: io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            io::Error::new(io::ErrorKind::TimedOut, "the client never connected")
        }
        _ => e,
    }
}

/// Waits until `fd` is readable, at most `wait`.
pub(crate) fn readable(fd: &impl AsFd, wait: Duration) -> io::Result<()> {
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    let ts = rustix::time::Timespec::try_from(wait).ok();
    match poll(&mut fds, ts.as_ref())? {
        0 => Err(no_client(io::ErrorKind::TimedOut.into())),
        _ => Ok(()),
    }
}

/// The client's end: connected to the agent's data port within `wait`.
pub(crate) fn connect(addr: SocketAddr, t: Transport, wait: Duration) -> io::Result<OwnedFd> {
    match t {
        Transport::Tcp => {
            let sock = TcpStream::connect_timeout(&addr, wait)?;
            notice_dead_link(&sock)?;
            Ok(OwnedFd::from(sock))
        }
        Transport::Udp => {
            let any: IpAddr = match addr {
                SocketAddr::V4(_) => std::net::Ipv4Addr::UNSPECIFIED.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::UNSPECIFIED.into(),
            };
            let s = UdpSocket::bind((any, 0))?;
            t.prepare(&s);
            s.connect(addr)?;
            udp_hello(&s, wait)?;
            s.set_read_timeout(None)?;
            Ok(OwnedFd::from(s))
        }
    }
}

/// Sends hellos until the agent answers one, waiting twice as long after
/// each: a hello sent again while the answer was on its way would reach
/// the far side as data.
fn udp_hello(s: &UdpSocket, wait: Duration) -> io::Result<()> {
    let end = Instant::now() + wait;
    let mut retry = HELLO_RETRY;
    let mut buf = [0u8; 64];
    while Instant::now() < end {
        s.set_read_timeout(Some(retry))?;
        retry = (retry * 2).min(wait);
        s.send(HELLO)?;
        match s.recv(&mut buf) {
            Ok(n) if &buf[..n] == HELLO => return Ok(()),
            Ok(_) => return Err(io::Error::other("a stray datagram instead of the hello")),
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                std::thread::sleep(HELLO_RETRY)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::TimedOut,
        "the agent never answered the data hello",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_ranges_parse_and_refuse() {
        assert_eq!(
            PortRange::parse("5201-5210"),
            Some(PortRange {
                first: 5201,
                last: 5210
            })
        );
        assert_eq!(
            PortRange::parse("5201"),
            Some(PortRange {
                first: 5201,
                last: 5201
            })
        );
        for bad in ["5210-5201", "0-3", "x", "1-70000", ""] {
            assert_eq!(PortRange::parse(bad), None, "{bad}");
        }
    }

    /// Datagrams may arrive before the far side has made its endpoint: the
    /// agent's socket has the buffers the sender's window counts on as
    /// soon as it is bound.
    #[test]
    fn a_udp_data_socket_is_grown_when_bound() {
        use rustix::net::sockopt::socket_recv_buffer_size;
        let lo = (std::net::Ipv4Addr::LOCALHOST, 0);
        let (plain, grown) = (UdpSocket::bind(lo).unwrap(), UdpSocket::bind(lo).unwrap());
        Transport::Udp.prepare(&grown);
        let ip: IpAddr = std::net::Ipv4Addr::LOCALHOST.into();
        let Listener::Udp(bound) = Listener::bind(ip, PortRange::ANY, Transport::Udp).unwrap()
        else {
            unreachable!()
        };
        let size = |s: &UdpSocket| socket_recv_buffer_size(s).unwrap();
        assert_eq!(size(&bound), size(&grown));
        eprintln!("receive buffer {} -> {}", size(&plain), size(&grown));
    }

    #[test]
    fn both_transports_connect_one_socket_each() {
        let ip: IpAddr = std::net::Ipv4Addr::LOCALHOST.into();
        for t in [Transport::Tcp, Transport::Udp] {
            let l = Listener::bind(ip, PortRange::ANY, t).unwrap();
            let addr = SocketAddr::new(ip, l.port().unwrap());
            let client = std::thread::spawn(move || connect(addr, t, Duration::from_secs(5)));
            let server = l.accept(ip, Duration::from_secs(5)).unwrap();
            let client = client.join().unwrap().unwrap();
            let (mut a, mut b) = (t.endpoint(client).unwrap(), t.endpoint(server).unwrap());
            a.send(b"ping").unwrap();
            let mut got = [0u8; 4];
            b.recv(&mut got).unwrap();
            assert_eq!(&got, b"ping");
        }
    }
}
