//! E3-pipe-16-pages: how much a pipe holds. A non-blocking pipe is filled
//! with PIPE_BUF-sized writes until EAGAIN, its size is read back with
//! F_GETPIPE_SZ, and F_SETPIPE_SZ is tried at its two ends: one byte (the
//! kernel rounds up to a page), `/proc/sys/fs/pipe-max-size`, and one byte
//! more (refused with EPERM unless the caller has CAP_SYS_RESOURCE).

use super::{read_number, Probing};
use anyhow::Context;
use rustix::io::Errno;
use rustix::pipe::{fcntl_getpipe_size, fcntl_setpipe_size, pipe_with, PipeFlags};

/// PIPE_BUF: a write of at most this many bytes is all or nothing, so the
/// fill stops exactly when the pipe is full.
const CHUNK: usize = 4096;
const MAX_SIZE_FILE: &str = "/proc/sys/fs/pipe-max-size";

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let page = rustix::param::page_size();
    p.measured(
        "page_size",
        "sysconf(_SC_PAGESIZE)",
        page.to_string(),
        page as f64,
        "bytes",
    );
    fill(p)?;
    set_sizes(p)
}

fn fill(p: &mut Probing) -> anyhow::Result<()> {
    let (r, w) = pipe_with(PipeFlags::NONBLOCK | PipeFlags::CLOEXEC).context("pipe2")?;
    let chunk = [0x5au8; CHUNK];
    let (mut bytes, mut writes) = (0usize, 0u64);
    loop {
        match rustix::io::write(&w, &chunk) {
            Ok(n) => (bytes, writes) = (bytes + n, writes + 1),
            Err(Errno::AGAIN) => break,
            Err(e) => return Err(e).context("write"),
        }
    }
    let answer = format!("{bytes} bytes in {writes} writes, then EAGAIN");
    let call = format!("write(pipe, {CHUNK} B) with O_NONBLOCK until EAGAIN");
    p.measured("fill_until_eagain", call, answer, bytes as f64, "bytes");
    let size = fcntl_getpipe_size(&w).context("F_GETPIPE_SZ")?;
    p.measured(
        "getpipe_sz",
        "fcntl(pipe, F_GETPIPE_SZ)",
        size.to_string(),
        size as f64,
        "bytes",
    );
    drop(r);
    Ok(())
}

fn set_sizes(p: &mut Probing) -> anyhow::Result<()> {
    let max = read_number(MAX_SIZE_FILE).with_context(|| format!("reading {MAX_SIZE_FILE}"))?;
    p.measured(
        "pipe_max_size",
        format!("read {MAX_SIZE_FILE}"),
        max.to_string(),
        max as f64,
        "bytes",
    );
    let root = rustix::process::geteuid().is_root();
    for (name, asked) in [
        ("setpipe_sz_min", 1),
        ("setpipe_sz_max", max),
        ("setpipe_sz_above_max", max + 1),
    ] {
        let (_r, w) = pipe_with(PipeFlags::CLOEXEC).context("pipe2")?;
        let who = if root { "euid 0" } else { "not root" };
        let call = format!("fcntl(new pipe, F_SETPIPE_SZ, {asked}) ({who})");
        match fcntl_setpipe_size(&w, asked as usize) {
            Ok(size) => p.measured(name, call, format!("{size}"), size as f64, "bytes"),
            Err(e) => p.refused(name, call, &e.into()),
        }
    }
    Ok(())
}
