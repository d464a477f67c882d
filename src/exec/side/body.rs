//! What runs on the side, wherever it runs: pin, run the body with its
//! start barrier, account for what the body cost, and send the report
//! down the status pipe.

use super::{Outcome, Ready, Report};
use crate::error::Unsupported;
use crate::measure::pin::pin_current;
use crate::sys::rusage::{usage, Who};
use anyhow::Context;
use rustix::io::Errno;
use serde::Serialize;

/// Runs `body` on the calling thread (or process, as `who` says) pinned
/// to `cpu`, and returns the report to send.
pub(super) fn run<R, F>(cpu: Option<usize>, who: Who, ready: &Ready, body: F) -> Vec<u8>
where
    R: Serialize,
    F: FnOnce(&Ready) -> anyhow::Result<R>,
{
    let result = pin_current(cpu).with_context(|| format!("pinning to CPU {cpu:?}"));
    let before = usage(who).unwrap_or_default();
    let result = result.and_then(|()| catch_panic(|| body(ready)));
    let usage = usage(who).unwrap_or_default().since(before);
    let outcome = match result {
        Ok(value) => Outcome::Done(value),
        Err(e) => match e.downcast_ref::<Unsupported>() {
            Some(why) => Outcome::Unsupported(why.0.clone()),
            None => Outcome::Failed(format!("{e:#}")),
        },
    };
    serde_json::to_vec(&Report { outcome, usage }).unwrap_or_default()
}

/// A panic must not unwind out of a side (out of a forked child, into the
/// parent's code).
pub(super) fn catch_panic<R>(f: impl FnOnce() -> anyhow::Result<R>) -> anyhow::Result<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(anyhow::anyhow!("the side panicked")))
}

/// Writes the whole report; a signal that interrupts the write does not
/// cut it short.
pub(super) fn send(ready: &Ready, mut bytes: &[u8]) -> Result<(), Errno> {
    while !bytes.is_empty() {
        match rustix::io::write(&ready.0, bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(Errno::INTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
