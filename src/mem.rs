//! Buffers of a size the user chose: allocated fallibly, so a size memory
//! cannot hold is an error naming the size, never an abort. Shared by the
//! scenarios' payloads and the copiers' buffers. And the address space a
//! run needs, checked before it starts anything.

use crate::error::UsageError;
use std::io;

/// The address space a run needs beyond iolab itself: its sides' stacks,
/// their histograms and buffers. A run whose heap allocation fails later
/// aborts, which no handler can turn into one line.
const RUN_HEADROOM: usize = 64 << 20;

/// Refuses, in one line, to start a run in an address space too tight for
/// `RUN_HEADROOM` (a low `ulimit -v`).
pub(crate) fn run_headroom() -> Result<(), UsageError> {
    reserve(RUN_HEADROOM, "a run's sides")
        .map(drop)
        .map_err(|e| {
            UsageError::new(format!(
                "{e}: the address space (ulimit -v) is too tight for a run; raise it"
            ))
        })
}

/// `len` zero bytes, or an error naming `len` when memory cannot hold them.
pub(crate) fn zeroed(len: usize, what: &str) -> io::Result<Vec<u8>> {
    let mut buf = reserve(len, what)?;
    buf.resize(len, 0);
    Ok(buf)
}

/// An empty vector with room for exactly `len` bytes.
pub(crate) fn reserve(len: usize, what: &str) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(len).map_err(|e| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("cannot allocate {len} bytes for {what}: {e}"),
        )
    })?;
    Ok(buf)
}
