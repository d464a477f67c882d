//! `unix-seqpacket`: an AF_UNIX SOCK_SEQPACKET socketpair. Connected and
//! reliable like a stream socket, yet each send arrives as one record like
//! a datagram, and a closed peer reads as end-of-file. The largest record
//! depends on the socket buffer size, so it is probed once, as for
//! `unix-dgram`, whose socketpair and probe it shares.

use super::fdio::DgramEndpoint;
use super::unix_dgram::{pair, probe_max};
use super::{BoxEndpoint, Caps, Mechanism, Support, Values};
use rustix::net::SocketType;
use std::io;
use std::path::Path;
use std::sync::OnceLock;

pub(crate) struct UnixSeqpacket;

impl Mechanism for UnixSeqpacket {
    fn name(&self) -> &'static str {
        "unix-seqpacket"
    }
    fn about(&self) -> &'static str {
        "AF_UNIX seqpacket socketpair (connected, reliable, message boundaries kept)"
    }
    fn caps(&self) -> Caps {
        Caps::RECORDS
    }
    fn max_message(&self) -> usize {
        probed().as_ref().map_or(0, |max| *max)
    }
    fn support(&self) -> Support {
        Support::of(probed())
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let (a, b) = pair(SocketType::SEQPACKET)?;
        let end = |fd| -> BoxEndpoint { Box::new(DgramEndpoint { fd, window: None }) };
        Ok((end(a), end(b)))
    }
}

/// The largest record, or why there is no seqpacket socketpair here.
fn probed() -> &'static Result<usize, String> {
    static MAX: OnceLock<Result<usize, String>> = OnceLock::new();
    MAX.get_or_init(|| {
        probe_max(SocketType::SEQPACKET)
            .map_err(|e| format!("socketpair(AF_UNIX, SOCK_SEQPACKET): {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probed_maximum_is_accepted_and_one_more_is_not() {
        let max = UnixSeqpacket.max_message();
        assert!(max > 1024, "max {max}");
        let (mut a, _b) = UnixSeqpacket
            .connect(Path::new("/"), &Values::new())
            .unwrap();
        a.set_nonblocking().unwrap();
        assert!(a.try_send(&vec![0u8; max]).unwrap());
        assert!(a.try_send(&vec![0u8; max + 1]).is_err());
    }

    #[test]
    fn records_keep_their_boundaries_and_a_closed_peer_is_end_of_file() {
        let (mut a, mut b) = UnixSeqpacket
            .connect(Path::new("/"), &Values::new())
            .unwrap();
        a.send(&[1, 2, 3]).unwrap();
        a.send(&[4, 5, 6]).unwrap();
        let mut two = [0u8; 2];
        let err = b.recv(&mut two).unwrap_err();
        assert_eq!(err.to_string(), "datagram of 3 bytes, expected 2");
        let mut three = [0u8; 3];
        b.recv(&mut three).unwrap();
        assert_eq!(three, [4, 5, 6]);
        drop(a);
        let err = b.recv(&mut three).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }
}
