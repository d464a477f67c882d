//! Copiers: the ways to move a file's bytes to a descriptor (a socket, a
//! pipe, a file, /dev/null). Each lives in its own file behind `trait
//! Copier`; `ALL` lists them. Each counts the system calls it makes, so a
//! scenario can say what moving the file cost besides time.

mod copy_file_range;
mod io_uring;
mod mmap_write;
mod read_write;
mod sendfile;
mod splice;

pub(crate) use crate::mechanism::Support;
use rustix::fd::BorrowedFd;
use std::fs::File;
use std::io;

/// What the bytes are written to; some copiers only reach some sinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SinkKind {
    Socket,
    Pipe,
    File,
    CharDevice,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct CopyOpts {
    /// Bytes per read/write for the copiers that use a buffer.
    pub(crate) buf: usize,
}

/// What one copy did: bytes moved and system calls made to move them
/// (setup calls such as mmap or pipe2 included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopyStats {
    pub(crate) bytes: u64,
    pub(crate) syscalls: u64,
}

pub(crate) trait Copier: Sync {
    /// The CLI name, kebab-case.
    fn name(&self) -> &'static str;
    /// One line for `iolab list`.
    fn about(&self) -> &'static str;
    /// Whether this machine can run it at all.
    fn support(&self) -> Support {
        Support::Yes
    }
    /// Whether it can write to `sink`, and why not.
    fn applies_to(&self, _sink: SinkKind) -> Support {
        Support::Yes
    }
    /// True when `CopyOpts::buf` changes what it does.
    fn uses_buf(&self) -> bool {
        false
    }
    /// Writes the first `len` bytes of `file` (from offset 0) to `out`.
    fn copy(
        &self,
        file: &File,
        len: u64,
        out: BorrowedFd,
        opts: &CopyOpts,
    ) -> io::Result<CopyStats>;
}

pub(crate) static ALL: &[&dyn Copier] = &[
    &read_write::ReadWrite,
    &mmap_write::MmapWrite,
    &sendfile::SendFile,
    &splice::Splice,
    &copy_file_range::CopyFileRange,
    &io_uring::IoUring,
];

/// The copiers' names, in `ALL`'s order.
pub(crate) fn names() -> Vec<&'static str> {
    ALL.iter().map(|c| c.name()).collect()
}

pub(crate) fn find(name: &str) -> Option<&'static dyn Copier> {
    ALL.iter().copied().find(|c| c.name() == name)
}

/// Whether `copier` can run here and write to `sink`: the first reason not.
pub(crate) fn usable(copier: &dyn Copier, sink: SinkKind) -> Result<(), String> {
    for support in [copier.support(), copier.applies_to(sink)] {
        if let Support::No(why) = support {
            return Err(why);
        }
    }
    Ok(())
}

/// Writes all of `data` to `out`, counting the calls.
pub fn write_all(out: BorrowedFd, mut data: &[u8], stats: &mut CopyStats) -> io::Result<()> {
    while !data.is_empty() {
        stats.syscalls += 1;
        let n = rustix::io::write(out, data)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                "write took 0 bytes",
            ));
        }
        data = &data[n..];
        stats.bytes += n as u64;
    }
    Ok(())
}

/// Calls `call(want)` until `len` bytes have moved, one system call each;
/// `call` gets the bytes still to move and returns how many it moved.
pub(crate) fn copy_in_calls(
    what: &str,
    len: u64,
    mut call: impl FnMut(usize) -> io::Result<usize>,
) -> io::Result<CopyStats> {
    let mut stats = CopyStats::default();
    while stats.bytes < len {
        stats.syscalls += 1;
        let n = call((len - stats.bytes).min(usize::MAX as u64) as usize)?;
        if n == 0 {
            return Err(stalled(what, stats.bytes, len));
        }
        stats.bytes += n as u64;
    }
    Ok(stats)
}

/// The error of a copier that made no progress before `len` was reached.
pub(crate) fn stalled(what: &str, done: u64, len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("{what} stopped after {done} of {len} bytes"),
    )
}

#[cfg(test)]
mod tests;
