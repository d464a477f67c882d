//! `signal`: a real-time signal per direction, its 8-byte value the
//! message, queued to the receiving thread (rt_tgsigqueueinfo, so both
//! processes and threads mode are sound: the signal is pending only for
//! the thread that blocks it) and taken with sigwaitinfo, no handler. A
//! notification mechanism like eventfd, except that signals queue rather
//! than add up.
//!
//! The ends learn each other's thread only once the sides run: each end,
//! on first use, blocks both signals in its thread and then publishes its
//! process and thread id in a shared anonymous mapping (made before the
//! sides start); a sender waits for the peer's. A used end says goodbye
//! with the value 0, which no message carries, and marks itself closed so
//! that a peer leaving later signals nobody.

use super::shm::closed;
use super::{
    check_cancelled, word_of, word_room, BoxEndpoint, Caps, Endpoint, Mechanism, Support, Values,
};
use crate::sys::rt_signal::{self, Blocked};
use crate::sys::shared::SharedRegion;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The real-time signals of the two directions, from SIGRTMIN (glibc
/// keeps the first few for itself).
const FIRST: i32 = 4;
/// Each side's id word and closed flag, one cache line per side.
const LINE: usize = 64;

pub(crate) struct Signal;

impl Mechanism for Signal {
    fn name(&self) -> &'static str {
        "signal"
    }
    fn about(&self) -> &'static str {
        "a real-time signal per direction, the message in sigqueue's 8-byte value, taken by sigwaitinfo"
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
        let signals = signals().map_err(io::Error::other)?;
        let region = Arc::new(SharedRegion::new(2 * LINE)?);
        let end = |side| -> BoxEndpoint { Box::new(SignalEndpoint::new(&region, side, signals)) };
        Ok((end(0), end(1)))
    }
}

fn signals() -> Result<[i32; 2], String> {
    match (rt_signal::rt_signal(FIRST), rt_signal::rt_signal(FIRST + 1)) {
        (Some(a), Some(b)) => Ok([a, b]),
        _ => Err(format!("fewer than {} real-time signals", FIRST + 2)),
    }
}

/// Whether a signal queued to a thread of this process reaches it.
fn probed() -> &'static Result<(), String> {
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    PROBED.get_or_init(|| {
        let [sig, _] = signals()?;
        let round_trip = std::thread::Builder::new()
            .spawn(move || -> io::Result<Option<u64>> {
                let set = rt_signal::block(&[sig])?;
                let (tgid, tid) = rt_signal::ids();
                rt_signal::queue(tgid, tid, sig, 1)?;
                rt_signal::take(&set, false)
            })
            .map_err(|e| format!("cannot start the probe's thread: {e}"))?;
        match round_trip.join() {
            Ok(Ok(Some(1))) => Ok(()),
            Ok(Ok(got)) => Err(format!("a queued signal came back as {got:?}")),
            Ok(Err(e)) => Err(format!("rt_tgsigqueueinfo/sigtimedwait: {e}")),
            Err(_) => Err("the probe's thread panicked".to_string()),
        }
    })
}

/// Side `side` receives `signals[side]` and sends `signals[1 - side]`.
struct SignalEndpoint {
    region: Arc<SharedRegion>,
    side: usize,
    signals: [i32; 2],
    /// Set once this end's thread blocks its signals and published its id.
    blocked: Option<Blocked>,
    peer: Option<(i32, i32)>,
}

impl SignalEndpoint {
    fn new(region: &Arc<SharedRegion>, side: usize, signals: [i32; 2]) -> SignalEndpoint {
        SignalEndpoint {
            region: region.clone(),
            side,
            signals,
            blocked: None,
            peer: None,
        }
    }

    fn id_word(&self, side: usize) -> &AtomicU64 {
        self.region.atomic_u64(side * LINE)
    }

    fn closed_flag(&self, side: usize) -> &AtomicU32 {
        self.region.atomic_u32(side * LINE + 8)
    }

    /// On first use: blocks both signals here, then says where this end is.
    fn join(&mut self) -> io::Result<&Blocked> {
        if self.blocked.is_none() {
            let set = rt_signal::block(&self.signals)?;
            let (tgid, tid) = rt_signal::ids();
            let id = (u64::from(tgid as u32) << 32) | u64::from(tid as u32);
            self.id_word(self.side).store(id, Ordering::Release);
            self.blocked = Some(set);
        }
        Ok(self.blocked.as_ref().expect("set just above"))
    }

    fn peer_closed(&self) -> bool {
        self.closed_flag(1 - self.side).load(Ordering::Acquire) != 0
    }

    /// The peer's process and thread, once it has published them; with
    /// `wait`, yields the CPU until it has (or it closed, or a cancel).
    fn peer(&mut self, wait: bool) -> io::Result<Option<(i32, i32)>> {
        while self.peer.is_none() {
            if self.peer_closed() {
                return Err(closed());
            }
            match self.id_word(1 - self.side).load(Ordering::Acquire) {
                0 if !wait => return Ok(None),
                0 => checkpoint()?,
                id => self.peer = Some(((id >> 32) as i32, id as u32 as i32)),
            }
        }
        Ok(self.peer)
    }

    /// Queues `value` to the peer; Ok(false) when the peer is not known
    /// yet or the queue is full and `wait` is false.
    fn put(&mut self, value: u64, wait: bool) -> io::Result<bool> {
        self.join()?;
        let Some((tgid, tid)) = self.peer(wait)? else {
            return Ok(false);
        };
        let sig = self.signals[1 - self.side];
        loop {
            match rt_signal::queue(tgid, tid, sig, value) {
                Ok(()) => return Ok(true),
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && wait => checkpoint()?,
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => return Ok(false),
                // The receiving thread has ended: the peer is gone.
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) => return Err(closed()),
                Err(e) => return Err(e),
            }
        }
    }

    /// Takes one signal's value into `buf`; Ok(false) if none and not `wait`.
    fn get(&mut self, buf: &mut [u8], wait: bool) -> io::Result<bool> {
        let buf = word_room(buf, RULE)?;
        match rt_signal::take(self.join()?, wait)? {
            Some(0) => Err(closed()),
            Some(value) => {
                *buf = value.to_ne_bytes();
                Ok(true)
            }
            None if self.peer_closed() => Err(closed()),
            None => Ok(false),
        }
    }
}

/// A yield between two looks, and a way out when the run is cancelled.
fn checkpoint() -> io::Result<()> {
    check_cancelled()?;
    rustix::thread::sched_yield();
    Ok(())
}

fn value_of(msg: &[u8]) -> io::Result<u64> {
    match word_of(msg, RULE)? {
        0 => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a signal's value 0 is kept for the goodbye",
        )),
        value => Ok(value),
    }
}

/// What a signal message is, for the error of one of another size.
const RULE: &str = "a signal carries an 8-byte value";

impl Endpoint for SignalEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.put(value_of(msg)?, true).map(drop)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.get(buf, true).map(drop)
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        self.join().map(drop)
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        self.put(value_of(msg)?, false)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        self.get(buf, false)
    }
}

impl Drop for SignalEndpoint {
    fn drop(&mut self) {
        let Some(set) = self.blocked.take() else {
            return;
        };
        self.closed_flag(self.side).store(1, Ordering::SeqCst);
        if !self.peer_closed() {
            if let Ok(Some((tgid, tid))) = self.peer(false) {
                let _ = rt_signal::queue(tgid, tid, self.signals[1 - self.side], 0);
            }
        }
        // What the peer sent and nobody read stays blocked; take it.
        while let Ok(Some(_)) = rt_signal::take(&set, false) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(n: u64) -> [u8; 8] {
        n.to_ne_bytes()
    }

    #[test]
    fn values_queue_in_order_between_threads_and_a_goodbye_ends_the_channel() {
        let (mut a, mut b) = Signal.connect(Path::new("/"), &Values::new()).unwrap();
        let peer = std::thread::spawn(move || {
            let mut got = [0u8; 8];
            b.recv(&mut got).unwrap();
            b.recv(&mut got).unwrap();
            assert_eq!(got, value(5));
            assert_eq!(
                b.recv(&mut got).unwrap_err().kind(),
                io::ErrorKind::UnexpectedEof
            );
        });
        let err = a.send(&value(0)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a signal's value 0 is kept for the goodbye"
        );
        let err = a.send(&[1u8; 4]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a signal carries an 8-byte value, not 4 bytes"
        );
        a.send(&value(4)).unwrap();
        a.send(&value(5)).unwrap();
        drop(a);
        peer.join().unwrap();
    }
}
