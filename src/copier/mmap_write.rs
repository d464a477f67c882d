//! `mmap-write`: map the file and write the mapping out in one call, as
//! Solaris `cat` did. Into /dev/null nothing ever touches the mapping, so
//! the file is never read: the cat-to-/dev/null lesson of E6.

use super::{write_all, Copier, CopyOpts, CopyStats};
use crate::sys::mmap::Mapping;
use rustix::fd::BorrowedFd;
use std::fs::File;
use std::io;

pub(crate) struct MmapWrite;

impl Copier for MmapWrite {
    fn name(&self) -> &'static str {
        "mmap-write"
    }
    fn about(&self) -> &'static str {
        "mmap(2) the file, write(2) the whole mapping"
    }

    fn copy(
        &self,
        file: &File,
        len: u64,
        out: BorrowedFd,
        _opts: &CopyOpts,
    ) -> io::Result<CopyStats> {
        let mut stats = CopyStats {
            bytes: 0,
            syscalls: 2,
        };
        if len == 0 {
            return Ok(CopyStats::default());
        }
        let map = Mapping::of(file, len as usize)?;
        write_all(out, map.as_slice(), &mut stats)?;
        Ok(stats)
    }
}
