//! E6-read-evicts-cache: does reading a file larger than the cache evict
//! other files? Inside a memory cgroup of its own (a limit makes the
//! cache small), a forked child writes file A and reads it twice, then
//! streams file B, four times the limit, through read(); mincore counts
//! A's pages in the page cache before and after B. The kernel's reclaim
//! does not always choose alike (here one run in six evicted A where the
//! others kept it), so this is done TRIALS times with new files and the
//! counts recorded are the trials' medians, each trial's beside them. The
//! cgroup and the files are removed whatever happens.

use super::memcg::MemCgroup;
use super::Probing;
use crate::exec::side::{self, Spec};
use crate::exec::Mode;
use crate::format::binary_size;
use crate::scenario::common::testfile::Mount;
use crate::scenario::Unsupported;
use crate::sys::mmap::resident_pages;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;
/// The cgroup's memory limit: the cache A and B compete for.
pub(crate) const LIMIT: u64 = 64 * MIB;
pub(crate) const A_LEN: u64 = 16 * MIB;
pub(crate) const B_LEN: u64 = 4 * LIMIT;
/// The longest the reads in the cgroup may take (a second or so here).
const DEADLINE: Duration = Duration::from_secs(60);
/// Trials of A then B, each with new files; an odd number, for a median.
pub(crate) const TRIALS: usize = 5;

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
    let mut trials = Vec::with_capacity(TRIALS);
    for _ in 0..TRIALS {
        let files = Files(vec![p.dir.join("evict-a"), p.dir.join("evict-b")]);
        trials.push(in_child(&cg, &files.0[0], &files.0[1])?);
    }
    let peak_call = format!("read {} after the child exited", cg.peak_file);
    match cg.peak() {
        Ok(v) => {
            let answer = format!("{} at most", binary_size(v as f64, 1));
            p.measured("cgroup_peak", peak_call, answer, v as f64, "bytes");
        }
        Err(e) => p.refused("cgroup_peak", peak_call, &e),
    }
    record(p, &trials);
    Ok(())
}

/// Pages of A resident before and after B, of B after, and of A in all.
#[derive(Serialize, Deserialize)]
struct Seen {
    before: u64,
    after: u64,
    b_after: u64,
    pages: u64,
}

/// Each trial's count of A after B, then the trials' medians.
fn record(p: &mut Probing, trials: &[Seen]) {
    for (at, trial) in trials.iter().enumerate() {
        p.measured(
            "a_resident_after_trial",
            format!(
                "trial {} of {TRIALS}: mincore on A after streaming B",
                at + 1
            ),
            format!("{} of {} pages resident", trial.after, trial.pages),
            trial.after as f64,
            "pages",
        );
    }
    let median = |of: fn(&Seen) -> u64| {
        let mut each: Vec<u64> = trials.iter().map(of).collect();
        each.sort_unstable();
        each[each.len() / 2]
    };
    let seen = Seen {
        before: median(|s| s.before),
        after: median(|s| s.after),
        b_after: median(|s| s.b_after),
        pages: median(|s| s.pages),
    };
    let call = |when: &str| {
        format!(
            "mincore on A ({}, written and read twice) {when} streaming B ({}, sparse) through read() in the cgroup; median of {TRIALS} trials",
            binary_size(A_LEN as f64, 0),
            binary_size(B_LEN as f64, 0)
        )
    };
    let pages = seen.pages;
    let seen = &seen;
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

/// Runs the reads in a process side moved into `cg`.
fn in_child(cg: &MemCgroup, a: &Path, b: &Path) -> anyhow::Result<Seen> {
    let procs = cg.dir.join("cgroup.procs");
    let (a, b) = (a.to_path_buf(), b.to_path_buf());
    let spec = Spec::new("reader in the cgroup", Mode::Processes);
    let side = side::start(spec, move |_| child(&procs, &a, &b))?;
    side.finish(Instant::now() + DEADLINE)
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
