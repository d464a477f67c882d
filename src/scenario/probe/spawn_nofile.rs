//! E2-spawn-vs-nofile: do the descriptors a child closes at spawn grow
//! with `ulimit -n`? `/bin/true` is started by fork and exec with a child
//! that closes every descriptor number below its soft RLIMIT_NOFILE before
//! exec: at a soft limit of 1024 and at the hard limit. The same at the
//! hard limit with one close_range(2) shows what the loop costs. Only the
//! child's limit is changed; iolab's stays as it was.

use super::{read_number, series, Probing};
use crate::measure::clock::now_ns;
use crate::scenario::Unsupported;
use crate::sys::close_fds::{run_closing, Closing};
use anyhow::Context;
use rustix::process::{getrlimit, Resource};
use std::path::Path;

const PROGRAM: &str = "/bin/true";

/// The usual default soft limit, the near end of the comparison.
pub(crate) const LOW: u64 = 1024;

/// Spawns timed per way of closing.
const SPAWNS: usize = 20;

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    if !Path::new(PROGRAM).exists() {
        return Err(Unsupported(format!("{PROGRAM} does not exist: nothing to spawn")).into());
    }
    let hard = hard_limit(p)?;
    let ways = [
        ("loop_at_1024", LOW, Closing::Loop),
        ("loop_at_hard", hard, Closing::Loop),
        ("close_range_at_hard", hard, Closing::Range),
    ];
    let mut samples = vec![Vec::with_capacity(SPAWNS); ways.len()];
    let mut failed: Vec<Option<std::io::Error>> = ways.iter().map(|_| None).collect();
    // Round-robin, so a burst of load on the machine touches every way alike.
    for _ in 0..SPAWNS {
        for (i, (_, limit, how)) in ways.iter().enumerate() {
            if failed[i].is_none() {
                match spawn(*limit, *how) {
                    Ok(ns) => samples[i].push(ns),
                    Err(e) => failed[i] = Some(e),
                }
            }
        }
    }
    for (i, (name, limit, how)) in ways.into_iter().enumerate() {
        let call = describe(limit, how);
        match &failed[i] {
            Some(e) => p.refused(name, call, e),
            None => series::record(p, name, &call, &samples[i]),
        }
    }
    Ok(())
}

fn describe(limit: u64, how: Closing) -> String {
    let closing = match how {
        Closing::Loop => format!("close(fd) for fd in 3..{limit}"),
        Closing::Range => "close_range(3, ~0U, 0)".to_string(),
    };
    format!("fork; setrlimit(RLIMIT_NOFILE, {limit}); {closing}; exec {PROGRAM}; wait")
}

/// The hard RLIMIT_NOFILE (recorded with the soft one), or why the
/// comparison cannot be made.
fn hard_limit(p: &mut Probing) -> anyhow::Result<u64> {
    let rl = getrlimit(Resource::Nofile);
    let shown = |v: Option<u64>| v.map_or("unlimited".to_string(), |v| v.to_string());
    let call = "getrlimit(RLIMIT_NOFILE)";
    let answer = format!("soft {}, hard {}", shown(rl.current), shown(rl.maximum));
    let hard = match rl.maximum {
        Some(hard) => hard,
        None => read_number("/proc/sys/fs/nr_open").context("reading fs.nr_open")?,
    };
    p.measured("nofile_hard", call, answer, hard as f64, "descriptors");
    if hard <= LOW {
        let why = format!("the hard RLIMIT_NOFILE is {hard}: no limit above {LOW} to compare with");
        return Err(Unsupported(why).into());
    }
    Ok(hard)
}

/// ns for one spawn of `PROGRAM`, closing as `how` says up to `limit`.
fn spawn(limit: u64, how: Closing) -> std::io::Result<f64> {
    let start = now_ns();
    let status = run_closing(Path::new(PROGRAM), limit, how)?;
    let ns = (now_ns() - start) as f64;
    match status.success() {
        true => Ok(ns),
        false => Err(std::io::Error::other(format!(
            "{PROGRAM} exited with {status}"
        ))),
    }
}
