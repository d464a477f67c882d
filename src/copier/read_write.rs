//! `read-write`: read a buffer from the file, write it out; the classic
//! loop, whose buffer size is the parameter `buf`.

use super::{stalled, write_all, Copier, CopyOpts, CopyStats};
use rustix::fd::BorrowedFd;
use std::fs::File;
use std::io;

pub(crate) struct ReadWrite;

impl Copier for ReadWrite {
    fn name(&self) -> &'static str {
        "read-write"
    }
    fn about(&self) -> &'static str {
        "read(2) into a buffer of `buf` bytes, write(2) it out"
    }
    fn uses_buf(&self) -> bool {
        true
    }

    fn copy(
        &self,
        file: &File,
        len: u64,
        out: BorrowedFd,
        opts: &CopyOpts,
    ) -> io::Result<CopyStats> {
        let mut buf = crate::mem::zeroed(opts.buf.max(1), "the read-write buffer")?;
        let mut stats = CopyStats::default();
        while stats.bytes < len {
            let want = (len - stats.bytes).min(buf.len() as u64) as usize;
            stats.syscalls += 1;
            let n = rustix::io::pread(file, &mut buf[..want], stats.bytes)?;
            if n == 0 {
                return Err(stalled("read", stats.bytes, len));
            }
            write_all(out, &buf[..n], &mut stats)?;
        }
        Ok(stats)
    }
}
