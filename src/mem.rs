//! Buffers of a size the user chose: allocated fallibly, so a size memory
//! cannot hold is an error naming the size, never an abort. Shared by the
//! scenarios' payloads and the copiers' buffers.

use std::io;

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
