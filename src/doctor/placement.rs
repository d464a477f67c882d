//! Placement tried on the program itself (`--try-placement N`, with
//! `-- CMD` only): the command run again N times with all its processes on
//! one CPU and N times on the CPUs it may use, as the scheduler places it,
//! in interleaved pairs (each pair's order alternating), each run timed
//! from start to exit with its output discarded. A placement is advised
//! only when it was faster in every pair (by luck alone: 1 chance in 2^N);
//! otherwise none is. Without this, doctor's placement options are a
//! micro-benchmark that did not model the program, and say so.

use crate::measure::pin::allowed_cpus;
use rustix::thread::{sched_setaffinity, CpuSet};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the command's re-runs showed.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct PlacementTrial {
    pub(crate) pairs: usize,
    /// Wall time of each run (s): all on one CPU, and as scheduled.
    pub(crate) one_cpu_s: Vec<f64>,
    pub(crate) as_scheduled_s: Vec<f64>,
    /// The median of as-scheduled over one-CPU per pair: above 1, one CPU
    /// was faster by that much.
    pub(crate) one_cpu_faster: f64,
    /// `one-cpu` or `as-scheduled` when it was faster in every pair.
    pub(crate) advised: Option<String>,
}

/// Runs `command` `pairs` times each way, each run stopped after `limit`.
pub(crate) fn try_placement(
    command: &[String],
    pairs: usize,
    limit: Duration,
) -> anyhow::Result<PlacementTrial> {
    let cpus = allowed_cpus();
    anyhow::ensure!(
        cpus.len() >= 2,
        "placement needs two CPUs, this process may only use {cpus:?}"
    );
    let (mut one, mut spread) = (Vec::new(), Vec::new());
    for pair in 0..pairs {
        if crate::cancel::cancelled() {
            anyhow::bail!("interrupted");
        }
        let run = |pinned: bool| run_once(command, pinned.then_some(cpus[0]), &cpus, limit);
        if pair % 2 == 0 {
            one.push(run(true)?);
            spread.push(run(false)?);
        } else {
            spread.push(run(false)?);
            one.push(run(true)?);
        }
    }
    let mut ratios: Vec<f64> = spread.iter().zip(&one).map(|(s, o)| s / o).collect();
    let advised = if ratios.iter().all(|r| *r > 1.0) {
        Some("one-cpu".to_string())
    } else if ratios.iter().all(|r| *r < 1.0) {
        Some("as-scheduled".to_string())
    } else {
        None
    };
    Ok(PlacementTrial {
        pairs,
        one_cpu_faster: crate::stats::estimators::median(&mut ratios),
        one_cpu_s: one,
        as_scheduled_s: spread,
        advised,
    })
}

/// One run of `command` on `cpu` (None: on all of `cpus`): its wall time.
/// The child takes this thread's affinity at fork; it is put back after.
fn run_once(
    command: &[String],
    cpu: Option<usize>,
    cpus: &[usize],
    limit: Duration,
) -> anyhow::Result<f64> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| anyhow::anyhow!("no command"))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    crate::sys::spawn::die_with_parent(&mut cmd);
    set_cpus(cpu.as_ref().map_or(cpus, std::slice::from_ref))?;
    let started = Instant::now();
    let spawned = cmd.spawn();
    set_cpus(cpus)?;
    let mut child = spawned?;
    crate::exec::cleanup::track_child(child.id() as i32);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() > limit || crate::cancel::cancelled() {
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = started.elapsed().as_secs_f64();
    // As a subreaper, doctor is the parent of whatever the run left.
    let me = std::process::id() as i32;
    for pid in super::procs::with_descendants(me)
        .into_iter()
        .filter(|p| *p != me)
    {
        crate::exec::cleanup::kill_child(pid);
    }
    let _ = child.wait();
    while let Ok(Some(_)) = rustix::process::waitpid(None, rustix::process::WaitOptions::NOHANG) {}
    crate::exec::cleanup::untrack_child(child.id() as i32);
    match status {
        Some(_) => Ok(took),
        None => anyhow::bail!(
            "a re-run took longer than {} and was stopped",
            crate::format::human(limit.as_secs_f64(), "s")
        ),
    }
}

fn set_cpus(cpus: &[usize]) -> std::io::Result<()> {
    let mut set = CpuSet::new();
    for &c in cpus {
        set.set(c);
    }
    sched_setaffinity(None, &set)?;
    Ok(())
}
