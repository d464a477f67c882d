//! `futex`: a notification channel over one shared anonymous mapping (made
//! before the sides start, so forked sides share it too). Each direction
//! has a 64-bit counter word: the sender adds its 8-byte message to it, the
//! receiver takes it and resets it to zero, so values coalesce as an
//! eventfd's do. A side with nothing to read sleeps in FUTEX_WAIT on its
//! flag word and the sender wakes it with FUTEX_WAKE, only when it sleeps:
//! the sleep and the wake-up are shm's futex mode (`shm/wake.rs`), without
//! the ring. This is the floor under every blocking mechanism.

use super::shm::{closed, Layout, SideWaker, WakeFor, WakeMode, LINE};
use super::{word_of, word_room, BoxEndpoint, Caps, Endpoint, Mechanism, Support, Values};
use crate::sys::shared::SharedRegion;
use rustix::thread::futex;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

pub(crate) struct Futex;

impl Mechanism for Futex {
    fn name(&self) -> &'static str {
        "futex"
    }
    fn about(&self) -> &'static str {
        "a shared counter word per direction, FUTEX_WAIT / FUTEX_WAKE (the 8-byte counter is the message)"
    }
    fn calls_per_send(&self) -> bool {
        false
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
        // The two sides' flag lines (see shm's ring layout) end the region;
        // the ring lines before them hold the two counters.
        let region = Arc::new(SharedRegion::new(Layout::flags(2))?);
        Ok((
            Box::new(FutexEndpoint::new(&region, 0)),
            Box::new(FutexEndpoint::new(&region, 1)),
        ))
    }
}

/// Whether this kernel has futexes: a FUTEX_WAKE nobody waits for.
fn probed() -> &'static Result<(), String> {
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    PROBED.get_or_init(|| {
        let word = AtomicU32::new(0);
        futex::wake(&word, futex::Flags::PRIVATE, 1)
            .map(drop)
            .map_err(|e| format!("futex(FUTEX_WAKE): {e}"))
    })
}

/// Side `side` adds to counter `side` and takes from counter `1 - side`.
/// As for shm, only an end that was used says "closed" when dropped.
struct FutexEndpoint {
    region: Arc<SharedRegion>,
    side: usize,
    waker: SideWaker,
    used: bool,
}

impl FutexEndpoint {
    fn new(region: &Arc<SharedRegion>, side: usize) -> FutexEndpoint {
        FutexEndpoint {
            region: region.clone(),
            side,
            waker: SideWaker::new(region.clone(), side, WakeMode::Futex, None),
            used: false,
        }
    }

    /// The counter that `direction`'s sender adds to (a ring's head line).
    fn counter(region: &SharedRegion, direction: usize) -> &AtomicU64 {
        region.atomic_u64(direction * 2 * LINE)
    }

    /// Takes the counter's value if there is one (zero is "nothing").
    fn take(&self, buf: &mut [u8]) -> io::Result<bool> {
        let buf = word_room(buf, RULE)?;
        match Self::counter(&self.region, 1 - self.side).swap(0, Ordering::Acquire) {
            0 => Ok(false),
            value => {
                *buf = value.to_ne_bytes();
                Ok(true)
            }
        }
    }
}

/// What a futex message is, for the error of one of another size.
const RULE: &str = "a futex message is the 8-byte counter";

impl Endpoint for FutexEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.used = true;
        let value = word_of(msg, RULE)?;
        let counter = Self::counter(&self.region, self.side);
        counter.fetch_add(value, Ordering::Release);
        self.waker.notify(WakeFor::Data)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.used = true;
        let counter = Self::counter(&self.region, 1 - self.side);
        // Waits without taking: the waker may look more than once.
        self.waker.wait_for(WakeFor::Data, || {
            (counter.load(Ordering::Acquire) != 0).then_some(())
        })?;
        self.take(buf).map(drop)
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        self.used = true;
        Ok(())
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        self.send(msg).map(|()| true)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        self.used = true;
        let got = self.take(buf)?;
        if !got && self.waker.peer_closed() {
            return Err(closed());
        }
        Ok(got)
    }

    fn syscalls(&self) -> Option<u64> {
        Some(self.waker.syscalls)
    }
}

impl Drop for FutexEndpoint {
    fn drop(&mut self) {
        if self.used {
            self.waker.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (BoxEndpoint, BoxEndpoint) {
        Futex.connect(Path::new("/"), &Values::new()).unwrap()
    }

    #[test]
    fn values_add_up_until_read_and_a_closed_peer_ends_the_channel() {
        let (mut a, mut b) = pair();
        let mut got = [0u8; 8];
        assert!(!b.try_recv(&mut got).unwrap());
        a.send(&3u64.to_ne_bytes()).unwrap();
        a.send(&4u64.to_ne_bytes()).unwrap();
        b.recv(&mut got).unwrap();
        assert_eq!(u64::from_ne_bytes(got), 7);
        let err = a.send(&[1u8; 4]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a futex message is the 8-byte counter, not 4 bytes"
        );
        drop(a);
        assert_eq!(
            b.recv(&mut got).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        assert_eq!(
            b.try_recv(&mut got).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }

    #[test]
    fn a_receiver_waiting_in_another_thread_is_woken_and_answers() {
        let (mut a, mut b) = pair();
        let peer = std::thread::spawn(move || {
            let mut got = [0u8; 8];
            b.recv(&mut got).unwrap();
            b.send(&got).unwrap();
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        a.send(&9u64.to_ne_bytes()).unwrap();
        let mut back = [0u8; 8];
        a.recv(&mut back).unwrap();
        assert_eq!(u64::from_ne_bytes(back), 9);
        peer.join().unwrap();
    }
}
