//! Where `event-bench`'s timed loops run: one forked child process with a
//! single thread, as libevent's bench.c is. The kernel's fdget() skips the
//! atomic reference count on a descriptor only while the process's
//! descriptor table is not shared, i.e. while it has one thread; poll and
//! select take that path for every descriptor on every call, so inside
//! iolab's own process (signal and progress threads) they were 1.3-1.4x
//! slower than bench.c. A fork has one thread and its own table. The
//! child creates the pairs, registers them, warms up, runs every
//! repetition and reports each loop's tally with its CPU counters.

use super::dispatch::{make_pairs, one_loop, Bench, Damage, Dispatch, Shape, Tally};
use crate::exec::procs;
use crate::poller::Poller;
use crate::scenario::common::fd_budget::raise_nofile;
use crate::sys::rusage::{usage, Usage, Who};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Everything one case's loops need.
pub(super) struct Plan<'a> {
    pub(crate) poller: &'a dyn Poller,
    /// "socketpair" or "pipe".
    pub(crate) pair: &'a str,
    pub(crate) shape: Shape,
    pub(crate) dispatch: Dispatch,
    pub(crate) stall: Duration,
    pub(crate) warmup: u64,
    pub(crate) reps: u64,
    /// Damage done in the first timed loop (`--fault`, or a test's).
    pub(crate) damage: Option<Damage>,
}

/// What the child sends back.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Report {
    /// The process the loops ran in, and its thread count after them.
    pub(crate) pid: u32,
    pub(crate) threads: usize,
    pub(crate) cpu: usize,
    /// CPU counters of the timed loops (warm-up excluded).
    pub(crate) used: Usage,
    /// Every timed loop, up to and including the first that failed to verify.
    pub(crate) loops: Vec<Tally>,
}

/// Runs `plan` in a forked single-threaded child; killed at `deadline`
/// or on Ctrl-C.
pub(super) fn run_forked(plan: &Plan, deadline: Instant) -> anyhow::Result<Report> {
    procs::spawn("dispatcher", None, |_| run_here(plan))?.finish(deadline)
}

/// The loops of `plan` in the calling process.
pub(super) fn run_here(plan: &Plan) -> anyhow::Result<Report> {
    raise_nofile()?;
    let pairs = make_pairs(plan.pair, plan.shape.fds)?;
    let b = Bench {
        poller: plan.poller,
        pairs: &pairs,
        shape: plan.shape,
        dispatch: plan.dispatch,
        stall: plan.stall,
    };
    for _ in 0..plan.warmup {
        one_loop(&b, None)?;
    }
    let before = usage(Who::Thread)?;
    let mut loops = Vec::new();
    for rep in 0..plan.reps {
        let tally = one_loop(&b, plan.damage.filter(|_| rep == 0))?;
        let failed = tally.mismatch.is_some();
        loops.push(tally);
        if failed {
            break;
        }
    }
    let used = usage(Who::Thread)?.since(before);
    Ok(Report {
        pid: std::process::id(),
        threads: threads()?,
        cpu: crate::measure::pin::current_cpu(),
        used,
        loops,
    })
}

/// Threads of the calling process.
pub(super) fn threads() -> std::io::Result<usize> {
    Ok(std::fs::read_dir("/proc/self/task")?.count())
}
