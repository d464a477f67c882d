//! Where `devnull` copies to, and how each sink proves what it got:
//! /dev/null keeps nothing (only the copier's count is left to check), a
//! file is hashed after the copy, and a pipe is drained by a forked reader
//! process that counts and hashes every byte.

use crate::copier::{CopyStats, SinkKind};
use crate::exec::cleanup;
use crate::scenario::common::testfile::{Digest, TestFile};
use crate::sys::fork::{exit_child, fork, Forked};
use anyhow::Context;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::pipe::{pipe_with, PipeFlags};
use std::fs::File;
use std::io::Read;
use std::path::Path;

pub const SINKS: &[&str] = &["dev-null", "pipe", "file"];

pub fn kind(sink: &str) -> SinkKind {
    match sink {
        "pipe" => SinkKind::Pipe,
        "file" => SinkKind::File,
        _ => SinkKind::CharDevice,
    }
}

/// What arrived, as far as the sink can tell.
pub struct Arrived {
    pub stats: CopyStats,
    /// Why the sink's content is not the file's, if it is not.
    pub mismatch: Option<String>,
}

type CopyFn<'a> = &'a dyn Fn(BorrowedFd) -> std::io::Result<CopyStats>;

/// Runs `copy` into `sink` and checks what arrived.
pub fn copy_into(sink: &str, dir: &Path, file: &TestFile, copy: CopyFn) -> anyhow::Result<Arrived> {
    match sink {
        "pipe" => into_pipe(file, copy),
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

/// Copies into a pipe whose read end a forked process drains; it reports
/// the byte count and hash over a second pipe.
fn into_pipe(file: &TestFile, copy: CopyFn) -> anyhow::Result<Arrived> {
    let (rx, tx) = pipe_with(PipeFlags::CLOEXEC)?;
    let (report_rx, report_tx) = pipe_with(PipeFlags::CLOEXEC)?;
    let pid = match fork().context("forking the pipe reader")? {
        Forked::Child => {
            drop((tx, report_rx));
            drain(rx, report_tx)
        }
        Forked::Parent(pid) => pid,
    };
    cleanup::track_child(pid);
    drop((rx, report_tx));
    let copied = copy(tx.as_fd());
    drop(tx);
    let mut report = [0u8; 16];
    let read = crate::mechanism::read_exact_fd(&report_rx, &mut report);
    reap(pid);
    let stats = copied?;
    read.context("the pipe reader ended without a report")?;
    let bytes = u64::from_le_bytes(report[..8].try_into()?);
    let hash = u64::from_le_bytes(report[8..].try_into()?);
    let mismatch = if bytes != file.len {
        Some(format!("the pipe reader got {bytes} of {} bytes", file.len))
    } else {
        (hash != file.hash).then(|| "the pipe reader's hash differs from the file's".to_string())
    };
    Ok(Arrived { stats, mismatch })
}

/// The reader process: hashes the pipe to EOF, reports, exits.
fn drain(rx: OwnedFd, report: OwnedFd) -> ! {
    let mut digest = Digest::default();
    let ok = hash_reader(File::from(rx), &mut digest).is_ok();
    let mut msg = [0u8; 16];
    msg[..8].copy_from_slice(&digest.bytes.to_le_bytes());
    msg[8..].copy_from_slice(&digest.hash().to_le_bytes());
    let sent = ok && crate::mechanism::write_all_fd(&report, &msg).is_ok();
    exit_child(if sent { 0 } else { 1 })
}

fn reap(pid: i32) {
    if let Some(p) = rustix::process::Pid::from_raw(pid) {
        if let Ok(None) = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::NOHANG) {
            cleanup::kill_child(pid);
            let _ = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::empty());
        }
    }
    cleanup::untrack_child(pid);
}
