//! `condvar`: a queue per direction under a `Mutex`, with a `Condvar` for
//! "data" and one for "space", between two threads: the textbook in-process
//! hand-off, a baseline for IPC. Threads mode only. The queue holds as
//! many messages as `channel`'s; a receiver looks whether the run was
//! cancelled before each message, and a waiting end every `CANCEL_POLL`
//! (a condvar wait ignores the runner's interrupt).

use super::channel::{capacity, deliver};
use super::{check_cancelled, in_process_only, CANCEL_POLL, SIZE};
use super::{BoxEndpoint, Caps, Endpoint, Mechanism, Support, Values};
use std::collections::VecDeque;
use std::io;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

pub(crate) struct CondvarQueue;

impl Mechanism for CondvarQueue {
    fn name(&self) -> &'static str {
        "condvar"
    }
    fn about(&self) -> &'static str {
        "a queue per direction under a Mutex with Condvars for data and space, between threads (in-process baseline)"
    }
    fn calls_per_send(&self) -> bool {
        false
    }
    fn caps(&self) -> Caps {
        Caps::RECORDS
    }
    fn max_message(&self) -> usize {
        usize::MAX
    }
    fn in_processes(&self) -> Support {
        in_process_only()
    }
    fn connect(&self, _dir: &Path, values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let capacity = capacity(SIZE.int(values));
        let a_to_b = Arc::new(Direction::new(capacity));
        let b_to_a = Arc::new(Direction::new(capacity));
        Ok((
            Box::new(CondvarEndpoint {
                tx: a_to_b.clone(),
                rx: b_to_a.clone(),
            }),
            Box::new(CondvarEndpoint {
                tx: b_to_a,
                rx: a_to_b,
            }),
        ))
    }
}

struct Queue {
    messages: VecDeque<Vec<u8>>,
    capacity: usize,
    /// An end was dropped: nothing more will be sent or taken.
    closed: bool,
}

struct Direction {
    queue: Mutex<Queue>,
    data: Condvar,
    space: Condvar,
}

impl Direction {
    fn new(capacity: usize) -> Direction {
        Direction {
            queue: Mutex::new(Queue {
                messages: VecDeque::with_capacity(capacity),
                capacity,
                closed: false,
            }),
            data: Condvar::new(),
            space: Condvar::new(),
        }
    }

    fn lock(&self) -> io::Result<MutexGuard<'_, Queue>> {
        self.queue
            .lock()
            .map_err(|_| io::Error::other("the other side panicked holding the queue"))
    }

    /// Waits on `cond` while `blocked` holds, looking for a cancel between.
    fn wait_while<'a>(
        &self,
        cond: &Condvar,
        mut queue: MutexGuard<'a, Queue>,
        blocked: impl Fn(&Queue) -> bool,
    ) -> io::Result<MutexGuard<'a, Queue>> {
        while blocked(&queue) && !queue.closed {
            queue = match cond.wait_timeout(queue, CANCEL_POLL) {
                Ok((queue, _)) => queue,
                Err(_) => return Err(io::Error::other("the other side panicked")),
            };
            check_cancelled()?;
        }
        Ok(queue)
    }

    fn close(&self) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.closed = true;
        }
        self.data.notify_all();
        self.space.notify_all();
    }
}

fn closed(kind: io::ErrorKind) -> io::Error {
    io::Error::new(kind, "the other side closed the channel")
}

struct CondvarEndpoint {
    tx: Arc<Direction>,
    rx: Arc<Direction>,
}

impl CondvarEndpoint {
    fn put(&self, msg: &[u8], wait: bool) -> io::Result<bool> {
        let mut queue = self.tx.lock()?;
        if wait {
            queue = self
                .tx
                .wait_while(&self.tx.space, queue, |q| q.messages.len() >= q.capacity)?;
        }
        if queue.closed {
            return Err(closed(io::ErrorKind::BrokenPipe));
        }
        if queue.messages.len() >= queue.capacity {
            return Ok(false);
        }
        queue.messages.push_back(msg.to_vec());
        drop(queue);
        self.tx.data.notify_one();
        Ok(true)
    }

    fn take(&self, buf: &mut [u8], wait: bool) -> io::Result<bool> {
        // A wait that a message always ends would never see the cancel.
        check_cancelled()?;
        let mut queue = self.rx.lock()?;
        if wait {
            queue = self
                .rx
                .wait_while(&self.rx.data, queue, |q| q.messages.is_empty())?;
        }
        let Some(msg) = queue.messages.pop_front() else {
            return match queue.closed {
                true => Err(closed(io::ErrorKind::UnexpectedEof)),
                false => Ok(false),
            };
        };
        drop(queue);
        self.rx.space.notify_one();
        deliver(&msg, buf).map(|()| true)
    }
}

impl Endpoint for CondvarEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.put(msg, true).map(drop)
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.take(buf, true).map(drop)
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        self.put(msg, false)
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        self.take(buf, false)
    }
}

impl Drop for CondvarEndpoint {
    fn drop(&mut self) {
        self.tx.close();
        self.rx.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanism::Mechanism;

    /// Both in-process baselines: whole messages, a wrong length refused,
    /// a full queue refused without waiting, a dropped peer ends the
    /// channel, and no processes mode.
    #[test]
    fn in_process_baselines_keep_messages_whole_and_see_a_closed_peer() {
        let mut values = Values::new();
        values.insert(SIZE.name, crate::params::Value::Int(1 << 19));
        for mech in [
            &CondvarQueue as &dyn Mechanism,
            &super::super::channel::Channel,
        ] {
            let (mut a, mut b) = mech.connect(Path::new("/"), &values).unwrap();
            assert!(a.try_send(&[1u8; 3]).unwrap());
            assert!(a.try_send(&[2u8; 3]).unwrap());
            assert!(!a.try_send(&[3u8; 3]).unwrap(), "{}", mech.name());
            let err = b.recv(&mut [0u8; 2]).unwrap_err();
            assert_eq!(err.to_string(), "message of 3 bytes, expected 2");
            let mut got = [0u8; 3];
            b.recv(&mut got).unwrap();
            assert_eq!(got, [2u8; 3]);
            assert!(!b.try_recv(&mut got).unwrap());
            drop(a);
            assert_eq!(
                b.recv(&mut got).unwrap_err().kind(),
                io::ErrorKind::UnexpectedEof
            );
            assert!(b.send(&got).is_err());
            assert!(matches!(mech.in_processes(), Support::No(_)));
            assert_eq!(mech.in_threads(), Support::Yes);
        }
    }
}
