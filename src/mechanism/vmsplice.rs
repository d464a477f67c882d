//! `vmsplice`: the zero-copy pipe. Each direction is a pipe that the sender
//! feeds with vmsplice, which maps pages into the pipe instead of copying
//! bytes, and the receiver drains with read. No SPLICE_F_GIFT: the pages
//! are reused.
//!
//! A mapped page is read only when the receiver gets to it, so a sender
//! must not change it before then, and the caller changes its message
//! buffer for every message. Each end therefore splices from a ring of its
//! own pages, copying a message in at most `CHUNK` bytes at a time, and the
//! ring is larger than the pipe by two chunks: a pipe holds at most its
//! size in bytes, so by the time the ring comes round to a byte again the
//! receiver has read it.

use super::fdio::{moved, nonblocking, read_exact, try_read};
use super::{BoxEndpoint, Caps, Endpoint, Mechanism, Values};
use crate::sys::vmsplice::{pipe, Pages, PipeWriter};
use rustix::fd::OwnedFd;
use rustix::pipe::fcntl_getpipe_size;
use std::io;
use std::path::Path;

/// The most bytes copied into the ring and spliced in one call.
const CHUNK: usize = 64 * 1024;

pub(crate) struct Vmsplice;

impl Mechanism for Vmsplice {
    fn name(&self) -> &'static str {
        "vmsplice"
    }
    fn about(&self) -> &'static str {
        "pipes fed with vmsplice (pages mapped, not copied, no gift) and drained with read"
    }
    fn caps(&self) -> Caps {
        Caps::STREAM
    }
    fn max_message(&self) -> usize {
        usize::MAX
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let (a_rx, b_tx) = pipe()?;
        let (b_rx, a_tx) = pipe()?;
        Ok((
            Box::new(VmspliceEndpoint::new(a_rx, a_tx)),
            Box::new(VmspliceEndpoint::new(b_rx, b_tx)),
        ))
    }
}

struct VmspliceEndpoint {
    rx: OwnedFd,
    tx: PipeWriter,
    /// Made on the first send, in the side that sends (after any fork).
    ring: Option<Pages>,
    /// Where the next message's bytes go in the ring.
    at: usize,
}

impl VmspliceEndpoint {
    fn new(rx: OwnedFd, tx: PipeWriter) -> VmspliceEndpoint {
        VmspliceEndpoint {
            rx,
            tx,
            ring: None,
            at: 0,
        }
    }

    /// Copies `bytes` (at most `CHUNK`) into the ring; where they are.
    fn stage(&mut self, bytes: &[u8]) -> io::Result<std::ops::Range<usize>> {
        if self.ring.is_none() {
            let pipe = fcntl_getpipe_size(self.tx.fd())?;
            self.ring = Some(Pages::new(pipe + 2 * CHUNK)?);
        }
        let ring = self.ring.as_mut().expect("made above").as_mut_slice();
        if self.at + bytes.len() > ring.len() {
            self.at = 0;
        }
        let range = self.at..self.at + bytes.len();
        ring[range.clone()].copy_from_slice(bytes);
        Ok(range)
    }

    fn splice(&self, range: std::ops::Range<usize>, nonblock: bool) -> rustix::io::Result<usize> {
        let ring = self.ring.as_ref().expect("staged");
        self.tx.splice(ring, range, nonblock)
    }
}

fn too_large(len: usize) -> io::Error {
    let why = format!("a non-blocking vmsplice takes at most {CHUNK} bytes, not {len}");
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

impl Endpoint for VmspliceEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        for chunk in msg.chunks(CHUNK) {
            let mut range = self.stage(chunk)?;
            while !range.is_empty() {
                let n = self.splice(range.clone(), false)?;
                range.start += n;
            }
            self.at = range.end;
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        read_exact(&self.rx, buf)
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        nonblocking(&[&self.rx, self.tx.fd()])
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        if msg.len() > CHUNK {
            return Err(too_large(msg.len()));
        }
        let range = self.stage(msg)?;
        let sent = moved(self.splice(range.clone(), true), msg.len(), "vmsplice")?;
        if sent {
            self.at = range.end;
        }
        Ok(sent)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        try_read(&self.rx, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_changed_after_sending_arrive_as_sent() {
        let (mut a, mut b) = Vmsplice.connect(Path::new("/"), &Values::new()).unwrap();
        let reader = std::thread::spawn(move || {
            let mut got = vec![0u8; 3 * CHUNK + 5];
            for round in 0..40u8 {
                b.recv(&mut got).unwrap();
                assert!(got.iter().all(|&x| x == round), "round {round}");
            }
        });
        let mut msg = vec![0u8; 3 * CHUNK + 5];
        for round in 0..40u8 {
            msg.fill(round);
            a.send(&msg).unwrap();
        }
        reader.join().unwrap();
        let err = a.try_send(&vec![0u8; CHUNK + 1]).unwrap_err();
        let why = format!(
            "a non-blocking vmsplice takes at most {CHUNK} bytes, not {}",
            CHUNK + 1
        );
        assert_eq!(err.to_string(), why);
    }
}
