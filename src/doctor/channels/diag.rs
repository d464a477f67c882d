//! The peer of each unix socket, which /proc does not show: one
//! NETLINK_SOCK_DIAG dump of the unix sockets of this process's network
//! namespace (sock_diag(7), with UDIAG_SHOW_PEER|UDIAG_SHOW_NAME), built
//! and parsed as bytes over a rustix netlink socket.

use std::collections::HashMap;
use std::time::Duration;

use rustix::fd::OwnedFd;
use rustix::net::netlink::{self, SocketAddrNetlink};
use rustix::net::{sockopt, AddressFamily, RecvFlags, SendFlags, SocketType};

use super::procfs::err_text;

const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const UDIAG_SHOW_NAME: u32 = 0x1;
const UDIAG_SHOW_PEER: u32 = 0x4;
const UNIX_DIAG_NAME: u16 = 0;
const UNIX_DIAG_PEER: u16 = 2;
/// struct nlmsghdr, struct unix_diag_msg.
const NLMSG_HDR: usize = 16;
const UNIX_DIAG_MSG: usize = 16;

/// What sock_diag says of one unix socket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct UnixDiag {
    /// SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET.
    pub(super) ty: u8,
    /// The inode of the socket at the other end.
    pub(super) peer: Option<u64>,
    /// The bound path; an abstract name starts with '@'.
    pub(super) name: Option<String>,
}

/// Inode to diag of every unix socket in this network namespace, or why
/// the kernel would not say.
pub(super) fn dump_unix() -> Result<HashMap<u64, UnixDiag>, String> {
    let text = |e: rustix::io::Errno| err_text(&e.into());
    let sock = rustix::net::socket(
        AddressFamily::NETLINK,
        SocketType::RAW,
        Some(netlink::SOCK_DIAG),
    )
    .map_err(|e| format!("sock_diag socket: {}", text(e)))?;
    sockopt::set_socket_timeout(&sock, sockopt::Timeout::Recv, Some(Duration::from_secs(2)))
        .map_err(|e| format!("sock_diag timeout: {}", text(e)))?;
    rustix::net::sendto(
        &sock,
        &request(),
        SendFlags::empty(),
        &SocketAddrNetlink::new(0, 0),
    )
    .map_err(|e| format!("sock_diag request: {}", text(e)))?;
    receive(&sock)
}

/// An nlmsghdr and a unix_diag_req asking for all states, names and peers.
fn request() -> Vec<u8> {
    let mut out = Vec::with_capacity(NLMSG_HDR + 24);
    out.extend_from_slice(&((NLMSG_HDR + 24) as u32).to_ne_bytes());
    out.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    out.extend_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    out.extend_from_slice(&1u32.to_ne_bytes()); // seq
    out.extend_from_slice(&0u32.to_ne_bytes()); // pid: the kernel
    out.extend_from_slice(&[libc::AF_UNIX as u8, 0, 0, 0]); // family, protocol, pad
    out.extend_from_slice(&u32::MAX.to_ne_bytes()); // udiag_states: all
    out.extend_from_slice(&0u32.to_ne_bytes()); // udiag_ino
    out.extend_from_slice(&(UDIAG_SHOW_NAME | UDIAG_SHOW_PEER).to_ne_bytes());
    out.extend_from_slice(&[0xff; 8]); // udiag_cookie: none
    out
}

/// Reads datagrams until NLMSG_DONE.
fn receive(sock: &OwnedFd) -> Result<HashMap<u64, UnixDiag>, String> {
    let mut out = HashMap::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let (n, _) = rustix::net::recv(sock, &mut buf[..], RecvFlags::empty())
            .map_err(|e| format!("sock_diag reply: {}", err_text(&e.into())))?;
        if n == 0 || parse(&buf[..n], &mut out)? {
            return Ok(out);
        }
    }
}

/// Adds the messages of one datagram to `out`; whether the dump is done.
pub(super) fn parse(mut buf: &[u8], out: &mut HashMap<u64, UnixDiag>) -> Result<bool, String> {
    while buf.len() >= NLMSG_HDR {
        let len = u32_at(buf, 0).unwrap_or(0) as usize;
        let ty = u16_at(buf, 4).unwrap_or(0);
        if len < NLMSG_HDR || len > buf.len() {
            return Err("sock_diag reply: a truncated message".to_string());
        }
        match ty {
            NLMSG_DONE => return Ok(true),
            NLMSG_ERROR => return Err(nl_error(&buf[NLMSG_HDR..len])),
            SOCK_DIAG_BY_FAMILY => {
                out.extend(message(&buf[NLMSG_HDR..len]));
            }
            _ => {}
        }
        buf = buf.get(align(len)..).unwrap_or(&[]);
    }
    Ok(false)
}

/// A struct nlmsgerr: a negative errno first.
fn nl_error(payload: &[u8]) -> String {
    let errno = u32_at(payload, 0).map_or(0, |v| -(v as i32));
    let err = std::io::Error::from_raw_os_error(errno);
    format!("sock_diag (unix peers): {}", err_text(&err))
}

/// A unix_diag_msg and its attributes.
fn message(msg: &[u8]) -> Option<(u64, UnixDiag)> {
    let ty = *msg.get(1)?;
    let inode = u64::from(u32_at(msg, 4)?);
    let mut diag = UnixDiag {
        ty,
        ..UnixDiag::default()
    };
    let mut attrs = msg.get(UNIX_DIAG_MSG..)?;
    while attrs.len() >= 4 {
        let len = usize::from(u16_at(attrs, 0)?);
        let data = attrs.get(4..len)?;
        match u16_at(attrs, 2)? {
            UNIX_DIAG_PEER => diag.peer = u32_at(data, 0).map(u64::from),
            UNIX_DIAG_NAME => diag.name = Some(sun_path(data)),
            _ => {}
        }
        attrs = attrs.get(align(len)..).unwrap_or(&[]);
    }
    Some((inode, diag))
}

/// A sun_path as /proc/net/unix prints it: an abstract name with '@'.
fn sun_path(data: &[u8]) -> String {
    match data.split_first() {
        Some((0, rest)) => format!("@{}", String::from_utf8_lossy(rest)),
        _ => {
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            String::from_utf8_lossy(&data[..end]).into_owned()
        }
    }
}

fn align(len: usize) -> usize {
    (len + 3) & !3
}

fn u16_at(buf: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(buf.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(buf: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(buf.get(at..at + 4)?.try_into().ok()?))
}
