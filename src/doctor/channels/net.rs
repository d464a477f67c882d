//! The socket tables of a network namespace as `/proc/PID/net` shows them
//! (proc(5)): `unix` for a unix socket's type, path and listening flag;
//! `tcp`, `tcp6`, `udp` and `udp6` for the addresses and state of an inet
//! socket, and for finding the loopback socket at the other end.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use super::procfs::split_fields;

/// __SO_ACCEPTCON in the Flags column: the socket listens.
const ACCEPTCON: u32 = 0x10000;

/// One row of `/proc/net/unix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UnixRow {
    /// stream, dgram, seqpacket (or the raw number).
    pub(super) ty: String,
    pub(super) path: Option<String>,
    pub(super) listening: bool,
}

/// TCP or UDP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Proto {
    Tcp,
    Udp,
}

/// One row of a tcp/udp table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct InetRow {
    pub(super) proto: Proto,
    pub(super) local: SocketAddr,
    pub(super) remote: SocketAddr,
    /// The kernel's state code (0x0A = LISTEN).
    pub(super) state: u8,
    pub(super) inode: u64,
}

/// Inode to row, from the text of a `unix` table.
pub(super) fn parse_unix(text: &str) -> HashMap<u64, UnixRow> {
    text.lines().skip(1).filter_map(unix_row).collect()
}

/// `Num RefCount Protocol Flags Type St Inode [Path]`.
fn unix_row(line: &str) -> Option<(u64, UnixRow)> {
    let (f, rest) = split_fields(line, 7)?;
    let flags = u32::from_str_radix(f[3], 16).ok()?;
    let ty = sock_type(u32::from_str_radix(f[4], 16).ok()?);
    let inode = f[6].parse().ok()?;
    let path = (!rest.is_empty()).then(|| rest.to_string());
    Some((
        inode,
        UnixRow {
            ty,
            path,
            listening: flags & ACCEPTCON != 0,
        },
    ))
}

/// The name of a SOCK_* type.
pub(super) fn sock_type(ty: u32) -> String {
    match ty {
        1 => "stream".to_string(),
        2 => "dgram".to_string(),
        5 => "seqpacket".to_string(),
        n => format!("type {n}"),
    }
}

/// The rows of a tcp/udp (v4 or v6) table that belong to a socket: a row
/// without an inode (TIME_WAIT, of which a busy machine holds tens of
/// thousands) is skipped before its addresses are parsed.
pub(super) fn parse_inet(text: &str, proto: Proto) -> Vec<InetRow> {
    text.lines()
        .skip(1)
        .filter_map(|l| inet_row(l, proto))
        .collect()
}

/// `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...`.
fn inet_row(line: &str, proto: Proto) -> Option<InetRow> {
    let mut f = line.split_ascii_whitespace();
    let (local, remote, state) = (f.nth(1)?, f.next()?, f.next()?);
    let inode: u64 = f.nth(5)?.parse().ok()?;
    if inode == 0 {
        return None;
    }
    Some(InetRow {
        proto,
        local: addr(local)?,
        remote: addr(remote)?,
        state: u8::from_str_radix(state, 16).ok()?,
        inode,
    })
}

/// `0100007F:1F90` or 32 hex digits and a port: each 32-bit word of the
/// address is printed as a host-order number.
pub(super) fn addr(text: &str) -> Option<SocketAddr> {
    let (ip, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let mut bytes = Vec::with_capacity(16);
    for i in (0..ip.len()).step_by(8) {
        let word = u32::from_str_radix(ip.get(i..i + 8)?, 16).ok()?;
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    let ip = match bytes.len() {
        4 => IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(bytes).ok()?)),
        16 => IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(bytes).ok()?)),
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// The address with an IPv4-mapped IPv6 address turned into IPv4.
pub(super) fn canonical(a: SocketAddr) -> SocketAddr {
    SocketAddr::new(a.ip().to_canonical(), a.port())
}

/// Whether the address is a loopback one (127/8, ::1, ::ffff:127/104).
pub(super) fn is_loopback(a: SocketAddr) -> bool {
    a.ip().to_canonical().is_loopback()
}

/// The kernel's name of a TCP state code (include/net/tcp_states.h).
pub(super) fn tcp_state(code: u8) -> String {
    let name = match code {
        0x01 => "ESTABLISHED",
        0x02 => "SYN_SENT",
        0x03 => "SYN_RECV",
        0x04 => "FIN_WAIT1",
        0x05 => "FIN_WAIT2",
        0x06 => "TIME_WAIT",
        0x07 => "CLOSE",
        0x08 => "CLOSE_WAIT",
        0x09 => "LAST_ACK",
        0x0A => "LISTEN",
        0x0B => "CLOSING",
        0x0C => "NEW_SYN_RECV",
        n => return format!("state {n:02X}"),
    };
    name.to_string()
}

/// The socket at the other end of a loopback `row` in the same tables:
/// TCP needs both addresses to match; UDP takes a socket bound to the
/// remote address (or its port on a wildcard) that is unconnected or
/// connected back.
pub(super) fn loopback_peer(rows: &[InetRow], row: &InetRow) -> Option<u64> {
    let (local, remote) = (canonical(row.local), canonical(row.remote));
    if !is_loopback(row.remote) || remote.port() == 0 {
        return None;
    }
    let exact = rows.iter().find(|o| {
        o.proto == row.proto
            && o.inode != row.inode
            && o.inode != 0
            && canonical(o.local) == remote
            && canonical(o.remote) == local
    });
    if exact.is_some() || row.proto == Proto::Tcp {
        return exact.map(|o| o.inode);
    }
    rows.iter()
        .find(|o| {
            let l = canonical(o.local);
            o.proto == Proto::Udp
                && o.inode != 0
                && o.remote.port() == 0
                && l.port() == remote.port()
                && (l.ip() == remote.ip() || l.ip().is_unspecified())
        })
        .map(|o| o.inode)
}
