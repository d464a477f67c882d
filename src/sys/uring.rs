//! Moving a file's bytes to a descriptor through an io_uring: per chunk, a
//! read of the file linked to a write of the same buffer, submitted and
//! awaited with one `io_uring_enter`. Short writes (a socket or pipe that
//! took part of the chunk) are finished with further writes through the ring.

use io_uring::{opcode, squeue, types, IoUring};
use rustix::fd::{AsRawFd, BorrowedFd};
use std::fs::File;
use std::io;

const READ: u64 = 1;
const WRITE: u64 = 2;
/// io_uring's "use the file position" offset, also right for streams.
const CURRENT_POS: u64 = u64::MAX;

/// Bytes moved and system calls made.
pub(crate) struct Moved {
    pub(crate) bytes: u64,
    pub(crate) syscalls: u64,
}

/// Copies `len` bytes of `file` (from offset 0) to `out`, `buf` at a time.
pub(crate) fn copy(file: &File, len: u64, out: BorrowedFd, buf: usize) -> io::Result<Moved> {
    let mut ring = IoUring::new(4)?;
    let mut buffer = crate::mem::zeroed(buf.max(1), "the io_uring buffer")?;
    let mut moved = Moved {
        bytes: 0,
        syscalls: 1,
    };
    let result = copy_with(&mut ring, &mut buffer, file, len, out, &mut moved);
    if result.is_err() {
        // An error may leave an operation in flight that still points into
        // the buffer: never free it.
        std::mem::forget(buffer);
    }
    result.map(|()| moved)
}

fn copy_with(
    ring: &mut IoUring,
    buffer: &mut [u8],
    file: &File,
    len: u64,
    out: BorrowedFd,
    moved: &mut Moved,
) -> io::Result<()> {
    while moved.bytes < len {
        let want = (len - moved.bytes).min(buffer.len() as u64) as u32;
        let read = opcode::Read::new(types::Fd(file.as_raw_fd()), buffer.as_mut_ptr(), want)
            .offset(moved.bytes)
            .build()
            .flags(squeue::Flags::IO_LINK)
            .user_data(READ);
        let write = opcode::Write::new(types::Fd(out.as_raw_fd()), buffer.as_ptr(), want)
            .offset(CURRENT_POS)
            .build()
            .user_data(WRITE);
        // SAFETY: `buffer` stays alive and untouched until both operations
        // have completed (`await_both` waits for them), or is leaked by the
        // caller if waiting fails.
        unsafe { ring.submission().push_multiple(&[read, write]) }
            .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        let (r, w) = await_both(ring, moved)?;
        check(r, want, "read")?;
        let w = check_write(w)?;
        if w < want {
            write_rest(ring, &buffer[w as usize..want as usize], out, moved)?;
        }
        moved.bytes += u64::from(want);
    }
    Ok(())
}

/// Submits and waits for the read and the write; their results.
fn await_both(ring: &mut IoUring, moved: &mut Moved) -> io::Result<(i32, i32)> {
    let (mut r, mut w) = (None, None);
    while r.is_none() || w.is_none() {
        let pending = 2 - usize::from(r.is_some()) - usize::from(w.is_some());
        submit_wait(ring, pending, moved)?;
        for cqe in ring.completion() {
            match cqe.user_data() {
                READ => r = Some(cqe.result()),
                _ => w = Some(cqe.result()),
            }
        }
    }
    Ok((r.unwrap_or(0), w.unwrap_or(0)))
}

fn submit_wait(ring: &mut IoUring, n: usize, moved: &mut Moved) -> io::Result<()> {
    loop {
        moved.syscalls += 1;
        match ring.submit_and_wait(n) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other.map(drop),
        }
    }
}

fn check(result: i32, want: u32, what: &str) -> io::Result<()> {
    if result < 0 {
        return Err(io::Error::from_raw_os_error(-result));
    }
    if result as u32 != want {
        return Err(io::Error::other(format!(
            "io_uring {what} moved {result} of {want} bytes"
        )));
    }
    Ok(())
}

fn check_write(result: i32) -> io::Result<u32> {
    if result < 0 {
        return Err(io::Error::from_raw_os_error(-result));
    }
    Ok(result as u32)
}

/// Writes what a short write left, through the ring.
fn write_rest(
    ring: &mut IoUring,
    mut rest: &[u8],
    out: BorrowedFd,
    moved: &mut Moved,
) -> io::Result<()> {
    while !rest.is_empty() {
        let write =
            opcode::Write::new(types::Fd(out.as_raw_fd()), rest.as_ptr(), rest.len() as u32)
                .offset(CURRENT_POS)
                .build()
                .user_data(WRITE);
        // SAFETY: `rest` borrows the caller's buffer, which outlives the
        // wait below (or is leaked if waiting fails).
        unsafe { ring.submission().push(&write) }
            .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        submit_wait(ring, 1, moved)?;
        let n = ring.completion().next().map_or(0, |c| c.result());
        let n = check_write(n)? as usize;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                "io_uring write took 0 bytes",
            ));
        }
        rest = &rest[n..];
    }
    Ok(())
}
