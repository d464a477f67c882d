//! `splice`: file to a pipe, pipe to the output, both in the kernel; the
//! pipe's capacity (64 KiB by default) bounds each step.

use super::{stalled, Copier, CopyOpts, CopyStats};
use rustix::fd::BorrowedFd;
use rustix::pipe::{pipe_with, splice, PipeFlags, SpliceFlags};
use std::fs::File;
use std::io;

pub(crate) struct Splice;

const PIPE_BYTES: usize = 64 * 1024;

impl Copier for Splice {
    fn name(&self) -> &'static str {
        "splice"
    }
    fn about(&self) -> &'static str {
        "splice(2) the file into a pipe and the pipe into the output"
    }

    fn copy(
        &self,
        file: &File,
        len: u64,
        out: BorrowedFd,
        _opts: &CopyOpts,
    ) -> io::Result<CopyStats> {
        let (rx, tx) = pipe_with(PipeFlags::CLOEXEC)?;
        let mut stats = CopyStats {
            bytes: 0,
            syscalls: 1,
        };
        let mut offset = 0u64;
        while stats.bytes < len {
            let want = (len - stats.bytes).min(PIPE_BYTES as u64) as usize;
            stats.syscalls += 1;
            let mut in_pipe = splice(file, Some(&mut offset), &tx, None, want, SpliceFlags::MOVE)?;
            if in_pipe == 0 {
                return Err(stalled("splice from the file", stats.bytes, len));
            }
            while in_pipe > 0 {
                stats.syscalls += 1;
                let n = splice(&rx, None, out, None, in_pipe, SpliceFlags::MOVE)?;
                if n == 0 {
                    return Err(stalled("splice to the output", stats.bytes, len));
                }
                in_pipe -= n;
                stats.bytes += n as u64;
            }
        }
        Ok(stats)
    }
}
