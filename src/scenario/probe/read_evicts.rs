//! E6-read-evicts-cache: does reading a file larger than the cache evict
//! other files? Inside a memory cgroup of its own (a limit makes the
//! cache small), a forked child writes file A and reads it twice, then
//! streams file B, four times the limit, through read(); mincore counts
//! A's pages in the page cache before and after B. The cgroup and both
//! files are removed whatever happens.

use super::memcg::MemCgroup;
use super::Probing;
use crate::format::binary_size;
use crate::scenario::common::testfile::Mount;
use crate::scenario::Unsupported;
use crate::sys::fork::{exit_child, fork, Forked};
use crate::sys::mmap::resident_pages;
use anyhow::Context;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;
/// The cgroup's memory limit: the cache A and B compete for.
pub(crate) const LIMIT: u64 = 64 * MIB;
pub(crate) const A_LEN: u64 = 16 * MIB;
pub(crate) const B_LEN: u64 = 4 * LIMIT;

/// Removes the files it names when dropped.
struct Files(Vec<PathBuf>);

impl Drop for Files {
    fn drop(&mut self) {
        for f in &self.0 {
            let _ = std::fs::remove_file(f);
        }
    }
}

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let mount = Mount::of(p.dir);
    if mount.fs_type == "tmpfs" || mount.fs_type == "ramfs" {
        let why = format!(
            "the case directory is on {} ({}), whose pages are not a cache to evict",
            mount.fs_type, mount.point
        );
        return Err(Unsupported(why).into());
    }
    let name = format!("iolab-probe-{}", std::process::id());
    let cg = MemCgroup::create(&name, LIMIT)?;
    p.saw(
        "cgroup",
        format!(
            "mkdir {}; write {} to {}",
            cg.dir.display(),
            LIMIT,
            cg.limit_file
        ),
        format!(
            "{} memory cgroup limited to {}",
            cg.version,
            binary_size(LIMIT as f64, 0)
        ),
    );
    let files = Files(vec![p.dir.join("evict-a"), p.dir.join("evict-b")]);
    let seen = in_child(&cg, &files.0[0], &files.0[1])?;
    let peak_call = format!("read {} after the child exited", cg.peak_file);
    match cg.peak() {
        Ok(v) => {
            let answer = format!("{} at most", binary_size(v as f64, 1));
            p.measured("cgroup_peak", peak_call, answer, v as f64, "bytes");
        }
        Err(e) => p.refused("cgroup_peak", peak_call, &e),
    }
    record(p, &seen);
    Ok(())
}

/// Pages of A resident before and after B, of B after, and of A in all.
struct Seen {
    before: u64,
    after: u64,
    b_after: u64,
    pages: u64,
}

fn record(p: &mut Probing, seen: &Seen) {
    let call = |when: &str| {
        format!(
            "mincore on A ({}, written and read twice) {when} streaming B ({}, sparse) through read() in the cgroup",
            binary_size(A_LEN as f64, 0),
            binary_size(B_LEN as f64, 0)
        )
    };
    let pages = seen.pages;
    let answer = |n: u64| format!("{n} of {pages} pages resident");
    p.measured(
        "a_pages",
        call("before"),
        answer(pages),
        pages as f64,
        "pages",
    );
    let (before, after) = (seen.before, seen.after);
    p.measured(
        "a_resident_before",
        call("before"),
        answer(before),
        before as f64,
        "pages",
    );
    p.measured(
        "a_resident_after",
        call("after"),
        answer(after),
        after as f64,
        "pages",
    );
    let b_pages = B_LEN / (A_LEN / pages.max(1));
    p.measured(
        "b_resident_after",
        "mincore on B after streaming it",
        format!("{} of {b_pages} pages resident", seen.b_after),
        seen.b_after as f64,
        "pages",
    );
}

/// Runs the reads in a forked child moved into `cg`; returns A's resident
/// pages before and after B, and its page count.
fn in_child(cg: &MemCgroup, a: &Path, b: &Path) -> anyhow::Result<Seen> {
    let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).context("pipe2")?;
    let procs = cg.dir.join("cgroup.procs");
    match fork().context("fork")? {
        Forked::Child => {
            drop(r);
            let line = match child(&procs, a, b) {
                Ok(s) => format!("ok {} {} {} {}", s.before, s.after, s.b_after, s.pages),
                Err(e) => format!("error {e:#}"),
            };
            let _ = File::from(w).write_all(line.as_bytes());
            exit_child(0)
        }
        Forked::Parent(pid) => {
            drop(w);
            let mut text = String::new();
            let read = File::from(r).read_to_string(&mut text);
            let pid = rustix::process::Pid::from_raw(pid).context("child pid")?;
            rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty())
                .context("waitpid")?;
            read.context("reading the child's answer")?;
            parse(&text)
        }
    }
}

fn parse(text: &str) -> anyhow::Result<Seen> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["ok", w, x, y, z] => Ok(Seen {
            before: w.parse()?,
            after: x.parse()?,
            b_after: y.parse()?,
            pages: z.parse()?,
        }),
        ["error", ..] => anyhow::bail!("in the cgroup: {}", &text[6..]),
        _ => anyhow::bail!("the child in the cgroup answered {text:?}"),
    }
}

/// In the child: joins the cgroup, caches A, streams B.
fn child(procs: &Path, a: &Path, b: &Path) -> anyhow::Result<Seen> {
    std::fs::write(procs, "0").with_context(|| format!("writing 0 to {}", procs.display()))?;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(a)
        .context("creating A")?;
    let chunk = vec![0x5au8; MIB as usize];
    for _ in 0..A_LEN / MIB {
        file.write_all(&chunk).context("writing A")?;
    }
    file.sync_all().context("fsync A")?;
    stream(a)?;
    stream(a)?;
    let (before, pages) = resident_pages(&file, A_LEN).context("mincore on A")?;
    let big = File::create_new(b).context("creating B")?;
    big.set_len(B_LEN).context("extending B")?;
    stream(b)?;
    let (after, _) = resident_pages(&file, A_LEN).context("mincore on A")?;
    let (b_after, _) = resident_pages(&File::open(b)?, B_LEN).context("mincore on B")?;
    Ok(Seen {
        before,
        after,
        b_after,
        pages,
    })
}

/// Reads `path` to its end in 1 MiB reads.
fn stream(path: &Path) -> anyhow::Result<u64> {
    let mut f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut buf = vec![0u8; MIB as usize];
    let mut total = 0;
    loop {
        match f.read(&mut buf).context("read")? {
            0 => return Ok(total),
            n => total += n as u64,
        }
    }
}
