//! `udp`: two UDP sockets on 127.0.0.1 connected to each other. UDP may drop
//! a datagram when the receive buffer is full, so senders that stream
//! respect a window derived from the receive buffer; across hosts, where a
//! link may still drop one, a receive timeout turns a loss into an error
//! instead of a hang. On loopback the window is enough, and a timeout would
//! arm and cancel a timer on every receive that blocks: 10% of a same-CPU
//! round trip (docs/measuring.md, "The harness's own cost").

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
        Ok((endpoint_with(a, None)?, endpoint_with(b, None)?))
    }
    fn transport(&self) -> Option<super::Transport> {
        Some(super::Transport::Udp)
    }
}

fn bound_socket() -> io::Result<UdpSocket> {
    UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))
}

/// One end over a UDP socket connected to another host.
pub(super) fn endpoint(sock: UdpSocket) -> io::Result<BoxEndpoint> {
    endpoint_with(sock, Some(RECV_TIMEOUT))
}

fn endpoint_with(sock: UdpSocket, recv_timeout: Option<Duration>) -> io::Result<BoxEndpoint> {
    sock.set_read_timeout(recv_timeout)?;
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

/// Half the receive buffer's worth of datagrams of `size` bytes, and no
/// more than an eighth of the loopback's backlog queue: a datagram sent
/// over loopback waits in the CPU's backlog (`netdev_max_backlog`, 1000 by
/// default) until the receiving softirq runs, and the kernel drops it
/// when that queue is full, whatever room the socket has. An eighth leaves
/// room for several streams at once (`pairs=N`).
fn window(fd: &OwnedFd, size: usize) -> u64 {
    let rcvbuf = sockopt::socket_recv_buffer_size(fd).unwrap_or(212_992);
    let by_buffer = (rcvbuf / 2) / (size + PER_DATAGRAM_OVERHEAD);
    by_buffer.min(backlog() / 8).clamp(1, 1024) as u64
}

/// The per-CPU backlog queue's length in packets.
fn backlog() -> usize {
    std::fs::read_to_string("/proc/sys/net/core/netdev_max_backlog")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_fits_the_socket_buffer_and_an_eighth_of_the_backlog() {
        let sock = bound_socket().unwrap();
        let fd = OwnedFd::from(sock);
        grow_buffers(&fd);
        let rcvbuf = sockopt::socket_recv_buffer_size(&fd).unwrap();
        for size in [1, 64, 4096, MAX_PAYLOAD] {
            let w = window(&fd, size) as usize;
            assert!(w >= 1 && w <= backlog() / 8, "{size}: {w}");
            assert!(w * (size + PER_DATAGRAM_OVERHEAD) <= rcvbuf / 2 || w == 1);
        }
    }
}
