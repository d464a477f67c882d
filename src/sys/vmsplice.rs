//! vmsplice(2) into a pipe, safely: rustix's call is `unsafe` because the
//! pipe maps the caller's memory instead of copying it. Here the write end
//! is only ever a pipe's (made by `pipe`), and the memory is `Pages`, an
//! anonymous private mapping: unmapping it leaves the pages a pipe still
//! holds with the pipe, unchanged, until the reader takes them.

use rustix::fd::OwnedFd;
use rustix::mm::{mmap_anonymous, munmap, MapFlags, ProtFlags};
use rustix::pipe::{pipe_with, vmsplice, IoSliceRaw, PipeFlags, SpliceFlags};
use std::io;
use std::ops::Range;

/// A pipe's write end, made only by `pipe`.
pub(crate) struct PipeWriter(OwnedFd);

/// A pipe: its read end and its write end, close-on-exec.
pub(crate) fn pipe() -> io::Result<(OwnedFd, PipeWriter)> {
    let (rx, tx) = pipe_with(PipeFlags::CLOEXEC)?;
    Ok((rx, PipeWriter(tx)))
}

impl PipeWriter {
    pub(crate) fn fd(&self) -> &OwnedFd {
        &self.0
    }

    /// Maps `pages[range]` into the pipe (no SPLICE_F_GIFT); the bytes it
    /// took. The pipe refers to those pages until they are read: a byte
    /// changed before then arrives changed.
    pub(crate) fn splice(
        &self,
        pages: &Pages,
        range: Range<usize>,
        nonblock: bool,
    ) -> rustix::io::Result<usize> {
        let bytes = &pages.as_slice()[range];
        let flags = match nonblock {
            true => SpliceFlags::NONBLOCK,
            false => SpliceFlags::empty(),
        };
        // SAFETY: `self.0` is a pipe's write end (see `pipe`), so vmsplice
        // only reads `bytes`, which stay borrowed for the call; without
        // SPLICE_F_GIFT no alignment is required.
        unsafe { vmsplice(&self.0, &[IoSliceRaw::from_slice(bytes)], flags) }
    }
}

/// Anonymous private memory, zero-filled, for messages spliced into a pipe.
pub(crate) struct Pages {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: `Pages` owns its mapping alone; moving it to another thread
// moves that ownership, as for a `Vec`.
unsafe impl Send for Pages {}

impl Pages {
    pub(crate) fn new(len: usize) -> io::Result<Pages> {
        let prot = ProtFlags::READ | ProtFlags::WRITE;
        // SAFETY: a new anonymous mapping, overlapping no memory of ours.
        let ptr = unsafe { mmap_anonymous(std::ptr::null_mut(), len, prot, MapFlags::PRIVATE)? };
        Ok(Pages {
            ptr: ptr.cast(),
            len,
        })
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for the life of `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as `as_slice`, writable, and `&mut self` is the only borrow.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer borrowed; pages a
        // pipe still holds stay alive in the pipe.
        let _ = unsafe { munmap(self.ptr.cast(), self.len) };
    }
}
