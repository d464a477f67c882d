//! `unix-dgram`: an AF_UNIX SOCK_DGRAM socketpair. Reliable (a full receive
//! queue blocks the sender); the largest datagram depends on the socket
//! buffer size, so it is probed once rather than assumed.

use super::fdio::DgramEndpoint;
use super::{BoxEndpoint, Caps, Mechanism, Values};
use rustix::fd::OwnedFd;
use rustix::net::{
    recv, send, socketpair, AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType,
};
use std::io;
use std::path::Path;
use std::sync::OnceLock;

pub(crate) struct UnixDgram;

impl Mechanism for UnixDgram {
    fn name(&self) -> &'static str {
        "unix-dgram"
    }
    fn about(&self) -> &'static str {
        "AF_UNIX datagram socketpair (message boundaries kept)"
    }
    fn caps(&self) -> Caps {
        Caps::RECORDS
    }
    fn max_message(&self) -> usize {
        static MAX: OnceLock<usize> = OnceLock::new();
        *MAX.get_or_init(|| probe_max(SocketType::DGRAM).unwrap_or(0))
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let (a, b) = pair(SocketType::DGRAM)?;
        Ok((
            Box::new(DgramEndpoint {
                fd: a,
                window: None,
            }),
            Box::new(DgramEndpoint {
                fd: b,
                window: None,
            }),
        ))
    }
}

/// An AF_UNIX socketpair of `kind` (datagram or seqpacket).
pub(super) fn pair(kind: SocketType) -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(socketpair(
        AddressFamily::UNIX,
        kind,
        SocketFlags::CLOEXEC,
        None,
    )?)
}

/// Binary search for the largest message one send on a `kind` pair accepts.
pub(super) fn probe_max(kind: SocketType) -> io::Result<usize> {
    let (a, b) = pair(kind)?;
    let mut buf = vec![0u8; 4 << 20];
    let (mut ok, mut too_big) = (1usize, buf.len());
    while too_big - ok > 1 {
        let mid = ok + (too_big - ok) / 2;
        match send(&a, &buf[..mid], SendFlags::DONTWAIT) {
            Ok(_) => {
                recv(&b, &mut buf, RecvFlags::empty())?;
                ok = mid;
            }
            Err(_) => too_big = mid,
        }
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probed_maximum_is_accepted_and_one_more_is_not() {
        let max = UnixDgram.max_message();
        assert!(max > 1024, "max {max}");
        let (a, _b) = pair(SocketType::DGRAM).unwrap();
        let buf = vec![0u8; max + 1];
        assert!(send(&a, &buf[..max], SendFlags::DONTWAIT).is_ok());
        assert!(send(&a, &buf, SendFlags::DONTWAIT).is_err());
    }
}
