//! `io-uring-msg`: one io_uring per end, and IORING_OP_MSG_RING from one
//! ring to the other: the 8-byte message travels as the target
//! completion's user_data, and each end waits on its own ring. A
//! notification mechanism like eventfd, except that completions queue
//! rather than add up. Both rings are made before the sides start, so
//! forked sides share them (each end keeps a descriptor of the peer's
//! ring).
//!
//! A completion on an end's ring is either a message from the peer (`res`
//! is `MESSAGE`, or `GOODBYE` when a used peer end is dropped) or the end's
//! own MSG_RING finishing (`res` 0 or minus an errno), so `res` alone tells
//! them apart whatever the message. Nothing bounds the completions a ring
//! is sent, so a sender keeps at most `WINDOW` messages unread, counted in
//! a shared mapping where the receiver adds what it took.

use super::shm::closed;
use super::CANCEL_POLL;
use super::{
    check_cancelled, word_of, word_room, BoxEndpoint, Caps, Endpoint, Mechanism, Support, Values,
};
use crate::sys::shared::SharedCounters;
use crate::sys::uring_msg::{Completion, MsgRing};
use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

/// `res` of a posted message: its length.
const MESSAGE: i32 = 8;
/// `res` of the goodbye a used end posts when dropped.
const GOODBYE: i32 = 1;
/// user_data of an end's own MSG_RING completions.
const OWN: u64 = u64::MAX;
/// Messages a sender may have unread at the peer.
const WINDOW: u64 = 1024;

pub(crate) struct IoUringMsg;

impl Mechanism for IoUringMsg {
    fn name(&self) -> &'static str {
        "io-uring-msg"
    }
    fn about(&self) -> &'static str {
        "a ring per end, IORING_OP_MSG_RING posts the 8-byte message as the peer ring's completion"
    }
    fn caps(&self) -> Caps {
        Caps::COUNTER
    }
    fn max_message(&self) -> usize {
        8
    }
    fn support(&self) -> Support {
        Support::of(probed())
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        // Room for the window, the own completions and the goodbye.
        let entries = 2 * WINDOW as u32;
        let (a, b) = (MsgRing::new(entries)?, MsgRing::new(entries)?);
        let taken = Arc::new(SharedCounters::new(2)?);
        let (to_b, to_a) = (b.dup()?, a.dup()?);
        Ok((
            Box::new(MsgEndpoint::new(a, to_b, 0, &taken)),
            Box::new(MsgEndpoint::new(b, to_a, 1, &taken)),
        ))
    }
}

/// Whether a MSG_RING really goes from one ring to another here.
fn probed() -> &'static Result<(), String> {
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    PROBED.get_or_init(|| support(&crate::env::io_uring(), round_trip))
}

/// Why not, from io_uring's availability and, if there is one, a message
/// really sent between two rings by `round_trip`.
fn support(
    ring: &crate::model::Availability,
    round_trip: impl FnOnce() -> io::Result<()>,
) -> Result<(), String> {
    if !ring.available {
        return Err(format!("io_uring unavailable: {}", ring.detail));
    }
    round_trip()
        .map_err(|e| format!("IORING_OP_MSG_RING failed ({e}); it needs Linux 5.18 or later"))
}

fn round_trip() -> io::Result<()> {
    let (mut a, mut b) = (MsgRing::new(8)?, MsgRing::new(8)?);
    a.post(b.dup()?.as_fd(), 7, MESSAGE, OWN)?;
    a.wait(std::time::Duration::from_secs(1))?;
    match a.take() {
        Some(c) if c.res < 0 => return Err(io::Error::from_raw_os_error(-c.res)),
        Some(_) => {}
        None => return Err(io::Error::other("the send did not complete")),
    }
    match b.take() {
        Some(Completion {
            user_data: 7,
            res: MESSAGE,
        }) => Ok(()),
        got => Err(io::Error::other(format!("the target ring got {got:?}"))),
    }
}

/// Side `side` takes from its own ring and posts to `peer`'s; `taken`
/// counts each side's messages taken, for the peer's window.
struct MsgEndpoint {
    ring: MsgRing,
    peer: OwnedFd,
    side: usize,
    taken: Arc<SharedCounters>,
    sent: u64,
    inbox: VecDeque<u64>,
    /// The result of this end's last MSG_RING, once it completed.
    own: Option<i32>,
    peer_gone: bool,
    used: bool,
    syscalls: u64,
}

impl MsgEndpoint {
    fn new(ring: MsgRing, peer: OwnedFd, side: usize, taken: &Arc<SharedCounters>) -> Self {
        MsgEndpoint {
            ring,
            peer,
            side,
            taken: taken.clone(),
            sent: 0,
            inbox: VecDeque::new(),
            own: None,
            peer_gone: false,
            used: false,
            syscalls: 0,
        }
    }

    /// Sorts the completions on this ring into messages, the goodbye and
    /// this end's own send.
    fn drain(&mut self) {
        while let Some(c) = self.ring.take() {
            match c.res {
                MESSAGE => self.inbox.push_back(c.user_data),
                GOODBYE => self.peer_gone = true,
                res => self.own = Some(res),
            }
        }
    }

    /// Waits on this ring for at most `CANCEL_POLL`, then sorts.
    fn wait(&mut self) -> io::Result<()> {
        self.syscalls += 1;
        self.ring.wait(CANCEL_POLL)?;
        check_cancelled()?;
        self.drain();
        Ok(())
    }

    fn window_full(&self) -> bool {
        let taken = self.taken.get(1 - self.side).load(Ordering::Acquire);
        self.sent - taken >= WINDOW
    }

    /// Posts `value` to the peer and waits for the post to complete;
    /// Ok(false) when the window is full and not `wait`.
    fn put(&mut self, value: u64, wait: bool) -> io::Result<bool> {
        self.used = true;
        while self.window_full() {
            self.drain();
            if self.peer_gone {
                return Err(closed());
            }
            if !wait {
                return Ok(false);
            }
            check_cancelled()?;
            rustix::thread::sched_yield();
        }
        self.own = None;
        self.syscalls += 1;
        self.ring.post(self.peer.as_fd(), value, MESSAGE, OWN)?;
        self.drain();
        while self.own.is_none() {
            self.wait()?;
        }
        match self.own {
            Some(res) if res < 0 => Err(io::Error::from_raw_os_error(-res)),
            _ => {
                self.sent += 1;
                Ok(true)
            }
        }
    }

    /// Takes one message into `buf`; Ok(false) if none and not `wait`.
    fn get(&mut self, buf: &mut [u8], wait: bool) -> io::Result<bool> {
        self.used = true;
        let buf = word_room(buf, RULE)?;
        self.drain();
        loop {
            if let Some(value) = self.inbox.pop_front() {
                self.taken.get(self.side).fetch_add(1, Ordering::Release);
                *buf = value.to_ne_bytes();
                return Ok(true);
            }
            if self.peer_gone {
                return Err(closed());
            }
            if !wait {
                return Ok(false);
            }
            self.wait()?;
        }
    }
}

/// What an io_uring message is, for the error of one of another size.
const RULE: &str = "an io_uring message is the 8-byte user_data";

impl Endpoint for MsgEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.put(word_of(msg, RULE)?, true).map(drop)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.get(buf, true).map(drop)
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        self.used = true;
        Ok(())
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        self.put(word_of(msg, RULE)?, false)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        self.get(buf, false)
    }

    fn syscalls(&self) -> Option<u64> {
        Some(self.syscalls)
    }
}

impl Drop for MsgEndpoint {
    fn drop(&mut self) {
        if self.used && !self.peer_gone {
            let _ = self.ring.post(self.peer.as_fd(), 0, GOODBYE, OWN);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(n: u64) -> [u8; 8] {
        n.to_ne_bytes()
    }

    fn pair() -> Option<(BoxEndpoint, BoxEndpoint)> {
        if let Support::No(why) = IoUringMsg.support() {
            eprintln!("skipped: {why}");
            return None;
        }
        Some(IoUringMsg.connect(Path::new("/"), &Values::new()).unwrap())
    }

    #[test]
    fn a_disabled_io_uring_or_an_old_kernel_is_the_reason_why_not() {
        let ring = |available: bool| crate::model::Availability {
            available,
            detail: "io_uring_disabled=2, io_uring_setup failed: EPERM".into(),
        };
        let never = || -> io::Result<()> { panic!("no ring to send on") };
        assert_eq!(
            support(&ring(false), never).unwrap_err(),
            "io_uring unavailable: io_uring_disabled=2, io_uring_setup failed: EPERM"
        );
        let old = || Err(io::Error::from_raw_os_error(libc::EINVAL));
        assert_eq!(
            support(&ring(true), old).unwrap_err(),
            format!(
                "IORING_OP_MSG_RING failed ({}); it needs Linux 5.18 or later",
                io::Error::from_raw_os_error(libc::EINVAL)
            )
        );
        assert_eq!(support(&ring(true), || Ok(())), Ok(()));
    }

    #[test]
    fn messages_queue_in_order_and_a_goodbye_ends_the_channel() {
        let Some((mut a, mut b)) = pair() else {
            return;
        };
        let mut got = [0u8; 8];
        assert!(!b.try_recv(&mut got).unwrap());
        let err = a.send(&[1u8; 4]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "an io_uring message is the 8-byte user_data, not 4 bytes"
        );
        for n in [0, 3, u64::MAX] {
            a.send(&value(n)).unwrap();
        }
        for n in [0, 3, u64::MAX] {
            b.recv(&mut got).unwrap();
            assert_eq!(got, value(n));
        }
        assert_eq!(b.syscalls(), Some(0), "the messages were there already");
        drop(a);
        let eof = b.recv(&mut got).unwrap_err();
        assert_eq!(eof.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_sender_stops_at_the_window_until_the_receiver_takes() {
        let Some((mut a, mut b)) = pair() else {
            return;
        };
        a.set_nonblocking().unwrap();
        for n in 0..WINDOW {
            assert!(a.try_send(&value(n)).unwrap(), "message {n}");
        }
        assert!(!a.try_send(&value(1)).unwrap());
        let mut got = [0u8; 8];
        b.recv(&mut got).unwrap();
        assert_eq!(got, value(0));
        assert!(a.try_send(&value(1)).unwrap());
    }

    #[test]
    fn a_receiver_waiting_in_another_thread_is_woken_and_answers() {
        let Some((mut a, mut b)) = pair() else {
            return;
        };
        let peer = std::thread::spawn(move || {
            let mut got = [0u8; 8];
            b.recv(&mut got).unwrap();
            b.send(&got).unwrap();
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        a.send(&value(9)).unwrap();
        let mut back = [0u8; 8];
        a.recv(&mut back).unwrap();
        assert_eq!(back, value(9));
        peer.join().unwrap();
    }
}
