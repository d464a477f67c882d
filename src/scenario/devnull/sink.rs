//! Where `devnull` copies to, and how each sink proves what it got:
//! /dev/null keeps nothing (only the copier's count is left to check), a
//! file is hashed after the copy, and a pipe is drained by a reader process
//! (a side started through the harness) that counts and hashes every byte.

use crate::copier::{CopyStats, SinkKind};
use crate::exec::side::{self, Ready, Spec};
use crate::exec::Mode;
use crate::scenario::common::testfile::{Digest, TestFile};
use anyhow::Context;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::pipe::{pipe_with, PipeFlags};
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

pub(crate) const SINKS: &[&str] = &["dev-null", "pipe", "file"];

pub(crate) fn kind(sink: &str) -> SinkKind {
    match sink {
        "pipe" => SinkKind::Pipe,
        "file" => SinkKind::File,
        _ => SinkKind::CharDevice,
    }
}

/// What arrived, as far as the sink can tell.
pub(crate) struct Arrived {
    pub(crate) stats: CopyStats,
    /// Why the sink's content is not the file's, if it is not.
    pub(crate) mismatch: Option<String>,
}

type CopyFn<'a> = &'a dyn Fn(BorrowedFd) -> std::io::Result<CopyStats>;

/// Runs `copy` into `sink` and checks what arrived.
/// A pipe's reader that has not ended `timeout` after it started is killed.
pub(crate) fn copy_into(
    sink: &str,
    dir: &Path,
    timeout: Duration,
    file: &TestFile,
    copy: CopyFn,
) -> anyhow::Result<Arrived> {
    match sink {
        "pipe" => into_pipe(file, copy, timeout),
        "file" => {
            let path = dir.join("copy");
            let out = File::create(&path)?;
            let stats = copy(out.as_fd())?;
            drop(out);
            let mut digest = Digest::default();
            hash_reader(File::open(&path)?, &mut digest)?;
            std::fs::remove_file(&path)?;
            Ok(Arrived {
                stats,
                mismatch: digest.mismatch(file.len, file.hash),
            })
        }
        _ => {
            let out = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
            let stats = copy(out.as_fd())?;
            let mismatch = (stats.bytes != file.len)
                .then(|| format!("the copier wrote {} of {} bytes", stats.bytes, file.len));
            Ok(Arrived { stats, mismatch })
        }
    }
}

fn hash_reader(mut r: impl Read, digest: &mut Digest) -> std::io::Result<()> {
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match r.read(&mut buf)? {
            0 => return Ok(()),
            n => digest.update(&buf[..n]),
        }
    }
}

/// Copies into a pipe whose read end a forked side drains; it reports
/// the byte count and hash.
fn into_pipe(file: &TestFile, copy: CopyFn, timeout: Duration) -> anyhow::Result<Arrived> {
    let (rx, tx) = pipe_with(PipeFlags::CLOEXEC)?;
    let mut tx = Some(tx);
    let spec = Spec::new("pipe reader", Mode::Processes);
    // The reader must not hold the write end, or it never sees the end.
    let reader = side::start_leaving(spec, move |_: &Ready| drain(rx), || drop(tx.take()))?;
    let tx = tx.context("the pipe's write end")?;
    let copied = copy(tx.as_fd());
    drop(tx);
    let got = reader.finish::<(u64, u64)>(Instant::now() + timeout);
    let stats = copied?;
    let (bytes, hash) = got.context("the pipe reader ended without a report")?;
    let mismatch = if bytes != file.len {
        Some(format!("the pipe reader got {bytes} of {} bytes", file.len))
    } else {
        (hash != file.hash).then(|| "the pipe reader's hash differs from the file's".to_string())
    };
    Ok(Arrived { stats, mismatch })
}

/// The reader: hashes the pipe to its end; reports bytes and hash.
fn drain(rx: OwnedFd) -> anyhow::Result<(u64, u64)> {
    let mut digest = Digest::default();
    hash_reader(File::from(rx), &mut digest)?;
    Ok((digest.bytes, digest.hash()))
}
