//! `io-uring`: a read and a write linked in one io_uring submission per
//! buffer of `buf` bytes; one system call per chunk instead of two.

use super::{Copier, CopyOpts, CopyStats, Support};
use rustix::fd::BorrowedFd;
use std::fs::File;
use std::io;

pub(crate) struct IoUring;

impl Copier for IoUring {
    fn name(&self) -> &'static str {
        "io-uring"
    }
    fn about(&self) -> &'static str {
        "linked read + write through an io_uring, `buf` bytes per pair"
    }
    fn support(&self) -> Support {
        let ring = crate::env::io_uring();
        if ring.available {
            Support::Yes
        } else {
            Support::No(format!("io_uring unavailable: {}", ring.detail))
        }
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
        let moved = crate::sys::uring::copy(file, len, out, opts.buf)?;
        Ok(CopyStats {
            bytes: moved.bytes,
            syscalls: moved.syscalls,
        })
    }
}
