//! `sysv-msg`: System V message queues, one private queue (msgget with
//! IPC_PRIVATE) per direction. The largest message and a queue's capacity
//! come from /proc/sys/kernel/msgmax and msgmnb, probed rather than
//! assumed.
//!
//! A private queue lives until removed. The kernel keeps no count of its
//! users, so a pipe stands in for one: every endpoint holds a copy of its
//! write end (forked sides inherit theirs), and a thread of the creating
//! process removes both queues once the last copy anywhere is closed, i.e.
//! after the case, or when its sides were killed. `sys::sysv_msg` removes
//! whatever is left when iolab exits (an error, a second Ctrl-C).
//!
//! As with `mq`, a queue cannot tell that its peer left: an end that has
//! carried traffic sends an empty message when dropped.

use super::mq::read_positive;
use super::{BoxEndpoint, Caps, Endpoint, Mechanism, Support, Values};
use crate::sys::sysv_msg;
use rustix::fd::OwnedFd;
use rustix::io::Errno;
use std::io;
use std::path::Path;
use std::sync::OnceLock;

const LIMITS_DIR: &str = "/proc/sys/kernel";

pub(crate) struct SysvMsg;

impl Mechanism for SysvMsg {
    fn name(&self) -> &'static str {
        "sysv-msg"
    }
    fn about(&self) -> &'static str {
        "System V message queues, one private queue per direction (msgget, msgsnd, msgrcv)"
    }
    fn caps(&self) -> Caps {
        Caps::RECORDS
    }
    fn max_message(&self) -> usize {
        probed().as_ref().map_or(0, |l| l.msgmax.min(l.msgmnb))
    }
    fn support(&self) -> Support {
        Support::of(probed())
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let a_to_b = create()?;
        let b_to_a = create();
        let b_to_a = b_to_a.inspect_err(|_| drop(sysv_msg::remove(&[a_to_b])))?;
        let users = remove_after_last_user([a_to_b, b_to_a])?;
        let a = SysvEndpoint::new(b_to_a, a_to_b, users.try_clone()?);
        Ok((
            Box::new(a),
            Box::new(SysvEndpoint::new(a_to_b, b_to_a, users)),
        ))
    }
}

/// The kernel's limits: the largest message, and bytes per queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    msgmax: usize,
    msgmnb: usize,
}

/// The limits, once a queue was created and removed.
fn probed() -> &'static Result<Limits, String> {
    static PROBED: OnceLock<Result<Limits, String>> = OnceLock::new();
    PROBED.get_or_init(|| {
        let dir = Path::new(LIMITS_DIR);
        let limits = Limits {
            msgmax: read_positive(&dir.join("msgmax"))?,
            msgmnb: read_positive(&dir.join("msgmnb"))?,
        };
        let id = create().map_err(|e| e.to_string())?;
        sysv_msg::remove(&[id]).map_err(|e| format!("msgctl(IPC_RMID): {e}"))?;
        Ok(limits)
    })
}

fn create() -> io::Result<i32> {
    sysv_msg::create().map_err(|err| {
        let why = match Errno::from_io_error(&err) {
            Some(Errno::NOSYS) => "this kernel has no System V IPC".to_string(),
            Some(Errno::NOSPC) => "kernel.msgmni queues exist already".to_string(),
            _ => return io::Error::new(err.kind(), format!("msgget: {err}")),
        };
        io::Error::new(err.kind(), format!("msgget: {why} ({err})"))
    })
}

/// The write end of a pipe whose read end a thread watches: once every
/// copy is closed, the thread removes `ids`.
fn remove_after_last_user(ids: [i32; 2]) -> io::Result<OwnedFd> {
    let piped = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC);
    let (watch, users) = piped.inspect_err(|_| drop(sysv_msg::remove(&ids)))?;
    let watcher = std::thread::Builder::new().spawn(move || {
        let mut byte = [0u8; 1];
        while matches!(
            rustix::io::read(&watch, &mut byte),
            Ok(1) | Err(Errno::INTR)
        ) {}
        let _ = sysv_msg::remove(&ids);
    });
    match watcher {
        Ok(_) => Ok(users),
        Err(e) => {
            let _ = sysv_msg::remove(&ids);
            Err(io::Error::new(
                e.kind(),
                format!("cannot start the queues' watcher: {e}"),
            ))
        }
    }
}

/// One end: it receives from one queue and sends to the other.
struct SysvEndpoint {
    rx: i32,
    tx: i32,
    /// Send and receive wait, until `set_nonblocking`.
    wait: bool,
    scratch: Vec<u8>,
    /// Whether this end has moved a message (only such an end says goodbye).
    used: bool,
    /// Held only to be closed with the endpoint (see the module comment).
    _users: OwnedFd,
}

impl SysvEndpoint {
    fn new(rx: i32, tx: i32, users: OwnedFd) -> SysvEndpoint {
        SysvEndpoint {
            rx,
            tx,
            wait: true,
            scratch: Vec::new(),
            used: false,
            _users: users,
        }
    }

    fn put(&mut self, msg: &[u8], wait: bool) -> io::Result<bool> {
        match sysv_msg::send(self.tx, msg, &mut self.scratch, wait) {
            Ok(()) => {
                self.used = true;
                Ok(true)
            }
            Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Receives one message of exactly `buf.len()` bytes; Ok(false) when
    /// not waiting and the queue is empty.
    fn take(&mut self, buf: &mut [u8], wait: bool) -> io::Result<bool> {
        let n = match sysv_msg::receive(self.rx, buf, &mut self.scratch, wait) {
            Ok(n) => n,
            Err(e) if e.raw_os_error() == Some(libc::ENOMSG) => return Ok(false),
            Err(e) if e.raw_os_error() == Some(libc::E2BIG) => {
                let why = format!("a message longer than the expected {} bytes", buf.len());
                return Err(io::Error::new(io::ErrorKind::InvalidData, why));
            }
            Err(e) => return Err(e),
        };
        if n == 0 && !buf.is_empty() {
            let why = "the other side closed the channel (empty message)";
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, why));
        }
        if n != buf.len() {
            let why = format!("message of {n} bytes, expected {}", buf.len());
            return Err(io::Error::new(io::ErrorKind::InvalidData, why));
        }
        self.used = true;
        Ok(true)
    }
}

impl Endpoint for SysvEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        match self.put(msg, self.wait)? {
            true => Ok(()),
            false => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        match self.take(buf, self.wait)? {
            true => Ok(()),
            false => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        self.wait = false;
        Ok(())
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        self.put(msg, false)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        self.take(buf, false)
    }
}

impl Drop for SysvEndpoint {
    fn drop(&mut self) {
        if self.used {
            // Best effort and never waiting, as for `mq`.
            let _ = sysv_msg::send(self.tx, &[], &mut self.scratch, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (BoxEndpoint, BoxEndpoint) {
        SysvMsg.connect(Path::new("/"), &Values::new()).unwrap()
    }

    #[test]
    fn messages_keep_their_length_and_a_goodbye_ends_the_channel() {
        let (mut a, mut b) = pair();
        a.send(&[7u8; 5]).unwrap();
        let err = b.recv(&mut [0u8; 4]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a message longer than the expected 4 bytes"
        );
        let mut got = [0u8; 5];
        b.recv(&mut got).unwrap();
        assert_eq!(got, [7u8; 5]);
        a.send(&[1u8; 3]).unwrap();
        drop(a);
        let err = b.recv(&mut [0u8; 4]).unwrap_err();
        assert_eq!(err.to_string(), "message of 3 bytes, expected 4");
        let err = b.recv(&mut [0u8; 4]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn non_blocking_calls_fill_the_queue_to_msgmnb_bytes() {
        let limits = probed().clone().unwrap();
        let (mut a, mut b) = pair();
        a.set_nonblocking().unwrap();
        let mut one = [0u8; 64];
        assert!(!b.try_recv(&mut one).unwrap());
        let mut sent = 0;
        while a.try_send(&one).unwrap() {
            sent += 1;
        }
        assert_eq!(sent, limits.msgmnb / 64);
        for _ in 0..sent {
            assert!(b.try_recv(&mut one).unwrap());
        }
        assert!(!b.try_recv(&mut one).unwrap());
    }
}
