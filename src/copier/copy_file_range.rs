//! `copy-file-range`: copy_file_range(2), file to file inside the kernel
//! (a reflink or server-side copy where the filesystem offers one). It
//! writes only to regular files.

use super::{copy_in_calls, Copier, CopyOpts, CopyStats, SinkKind, Support};
use rustix::fd::BorrowedFd;
use std::fs::File;
use std::io;

pub(crate) struct CopyFileRange;

impl Copier for CopyFileRange {
    fn name(&self) -> &'static str {
        "copy-file-range"
    }
    fn about(&self) -> &'static str {
        "copy_file_range(2), file to file only"
    }
    fn applies_to(&self, sink: SinkKind) -> Support {
        match sink {
            SinkKind::File => Support::Yes,
            other => Support::No(format!(
                "copy_file_range writes only to a regular file, not to a {}",
                match other {
                    SinkKind::Socket => "socket",
                    SinkKind::Pipe => "pipe",
                    _ => "character device",
                }
            )),
        }
    }

    fn copy(
        &self,
        file: &File,
        len: u64,
        out: BorrowedFd,
        _opts: &CopyOpts,
    ) -> io::Result<CopyStats> {
        let mut offset = 0u64;
        copy_in_calls("copy_file_range", len, |want| {
            Ok(rustix::fs::copy_file_range(
                file,
                Some(&mut offset),
                out,
                None,
                want,
            )?)
        })
    }
}
