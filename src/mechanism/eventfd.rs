//! `eventfd`: a notification channel, one eventfd per direction. The 8-byte
//! counter is the message; the kernel adds up writes until a read resets it.

use super::fdio::CounterEndpoint;
use super::{BoxEndpoint, Caps, Mechanism, Values};
use rustix::event::{eventfd, EventfdFlags};
use std::io;
use std::path::Path;

pub(crate) struct EventFd;

impl Mechanism for EventFd {
    fn name(&self) -> &'static str {
        "eventfd"
    }
    fn about(&self) -> &'static str {
        "eventfd counters, one per direction (the 8-byte counter is the message)"
    }
    fn caps(&self) -> Caps {
        Caps::COUNTER
    }
    fn max_message(&self) -> usize {
        8
    }
    fn connect(&self, _dir: &Path, _values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let a_to_b = eventfd(0, EventfdFlags::CLOEXEC)?;
        let b_to_a = eventfd(0, EventfdFlags::CLOEXEC)?;
        Ok((
            Box::new(CounterEndpoint {
                rx: b_to_a.try_clone()?,
                tx: a_to_b.try_clone()?,
            }),
            Box::new(CounterEndpoint {
                rx: a_to_b,
                tx: b_to_a,
            }),
        ))
    }
}
