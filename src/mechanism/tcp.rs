//! `tcp`: a TCP connection over loopback with TCP_NODELAY on both ends.

use super::fdio::socket_stream;
use super::{BoxEndpoint, Caps, Mechanism, Values};
use rustix::fd::OwnedFd;
use std::io;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::Path;

pub(crate) struct Tcp;

impl Mechanism for Tcp {
    fn name(&self) -> &'static str {
        "tcp"
    }
    fn about(&self) -> &'static str {
        "TCP over loopback (127.0.0.1), TCP_NODELAY"
    }
    fn caps(&self) -> Caps {
        Caps::STREAM
    }
    fn max_message(&self) -> usize {
        usize::MAX
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let (a, b) = loopback_pair()?;
        Ok((endpoint(a)?, endpoint(b)?))
    }
    fn transport(&self) -> Option<super::Transport> {
        Some(super::Transport::Tcp)
    }
}

/// One end over a connected TCP socket, NODELAY set (also across hosts).
pub(super) fn endpoint(fd: OwnedFd) -> io::Result<BoxEndpoint> {
    rustix::net::sockopt::set_tcp_nodelay(&fd, true)?;
    Ok(Box::new(socket_stream(fd)?))
}

/// A connected pair of TCP sockets over 127.0.0.1.
pub(crate) fn loopback_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (server, _) = listener.accept()?;
    Ok((OwnedFd::from(client), OwnedFd::from(server)))
}
