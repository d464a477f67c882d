//! `sendfile`: the kernel moves the file's pages to the output without a
//! trip through user space (E4's method B; with `tcp=cork`, method C).

use super::{copy_in_calls, Copier, CopyOpts, CopyStats};
use rustix::fd::BorrowedFd;
use std::fs::File;
use std::io;

pub(crate) struct SendFile;

/// The most one sendfile(2) call moves (the kernel caps it there anyway).
const MAX_CHUNK: u64 = 0x7fff_f000;

impl Copier for SendFile {
    fn name(&self) -> &'static str {
        "sendfile"
    }
    fn about(&self) -> &'static str {
        "sendfile(2) of the whole file, repeated until all is sent"
    }

    fn copy(
        &self,
        file: &File,
        len: u64,
        out: BorrowedFd,
        _opts: &CopyOpts,
    ) -> io::Result<CopyStats> {
        let mut offset = 0u64;
        copy_in_calls("sendfile", len, |want| {
            Ok(rustix::fs::sendfile(
                out,
                file,
                Some(&mut offset),
                want.min(MAX_CHUNK as usize),
            )?)
        })
    }
}
