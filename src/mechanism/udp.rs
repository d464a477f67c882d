//! `udp`: two UDP sockets on 127.0.0.1 connected to each other. UDP may drop
//! a datagram when the receive buffer is full, so a receive timeout turns a
//! loss into an error instead of a hang, and senders that stream respect a
//! window derived from the receive buffer.

use super::fdio::DgramEndpoint;
use super::{BoxEndpoint, Caps, Mechanism, Values};
use rustix::fd::OwnedFd;
use rustix::net::sockopt;
use std::io;
use std::net::{Ipv4Addr, UdpSocket};
use std::path::Path;
use std::time::Duration;

/// Largest UDP payload over IPv4.
const MAX_PAYLOAD: usize = 65_507;
const BUFFER_BYTES: usize = 4 << 20;
/// Kernel bookkeeping per queued datagram, counted against the buffer.
const PER_DATAGRAM_OVERHEAD: usize = 1024;
const RECV_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) struct Udp;

impl Mechanism for Udp {
    fn name(&self) -> &'static str {
        "udp"
    }
    fn about(&self) -> &'static str {
        "UDP over loopback (127.0.0.1), connected sockets"
    }
    fn caps(&self) -> Caps {
        Caps {
            boundaries: true,
            counter: false,
            reliable: false,
        }
    }
    fn max_message(&self) -> usize {
        MAX_PAYLOAD
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let a = bound_socket()?;
        let b = bound_socket()?;
        a.connect(b.local_addr()?)?;
        b.connect(a.local_addr()?)?;
        Ok((endpoint(a)?, endpoint(b)?))
    }
    fn transport(&self) -> Option<super::Transport> {
        Some(super::Transport::Udp)
    }
}

fn bound_socket() -> io::Result<UdpSocket> {
    UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))
}

/// One end over a connected UDP socket (also across hosts).
pub(super) fn endpoint(sock: UdpSocket) -> io::Result<BoxEndpoint> {
    sock.set_read_timeout(Some(RECV_TIMEOUT))?;
    let fd = OwnedFd::from(sock);
    grow_buffers(&fd);
    Ok(Box::new(DgramEndpoint {
        fd,
        window: Some(window),
    }))
}

/// Asks for large buffers; as root the `_force` variants pass rmem_max.
pub(super) fn grow_buffers(fd: impl rustix::fd::AsFd) {
    let fd = fd.as_fd();
    if sockopt::set_socket_recv_buffer_size_force(fd, BUFFER_BYTES).is_err() {
        let _ = sockopt::set_socket_recv_buffer_size(fd, BUFFER_BYTES);
    }
    if sockopt::set_socket_send_buffer_size_force(fd, BUFFER_BYTES).is_err() {
        let _ = sockopt::set_socket_send_buffer_size(fd, BUFFER_BYTES);
    }
}

/// Half the receive buffer's worth of datagrams of `size` bytes.
fn window(fd: &OwnedFd, size: usize) -> u64 {
    let rcvbuf = sockopt::socket_recv_buffer_size(fd).unwrap_or(212_992);
    ((rcvbuf / 2) / (size + PER_DATAGRAM_OVERHEAD)).clamp(1, 1024) as u64
}
