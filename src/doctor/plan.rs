//! `iolab doctor`'s command line checked before anything starts: the
//! process exists and is the user's, the durations make sense, the JSON
//! file can be written. A mistake is a `UsageError` (exit 2).

use super::watch::Duty;
use crate::cli::DoctorArgs;
use crate::error::{UsageError, UsageResult};
use crate::params::parse_duration_ns;
use std::os::unix::fs::MetadataExt;

/// What to watch and how, checked.
pub(crate) struct Plan {
    pub(crate) pid: Option<i32>,
    pub(crate) command: Vec<String>,
    pub(crate) for_ns: Option<u64>,
    pub(crate) duty: Duty,
    /// Busiest channels whose alternatives are measured, and the time each.
    pub(crate) alternatives: usize,
    pub(crate) alternatives_time: std::time::Duration,
    /// `--try-placement`: pairs of re-runs of the command (0: none).
    pub(crate) placement_pairs: usize,
    /// `--json`, made before the watch (`plan::outputs`).
    pub(crate) json: Option<crate::plan::outputs::Output>,
}

pub(crate) fn check(args: &DoctorArgs) -> UsageResult<Plan> {
    let json = Vec::from_iter(args.json.as_deref().map(|p| ("--json", p)));
    let mut outputs = crate::plan::outputs::prepare(&json)?;
    let json = match &args.json {
        Some(path) => Some(outputs.take_or_make("--json", path)?),
        None => None,
    };
    let pid = args.pid.as_deref().map(watchable_pid).transpose()?;
    if pid.is_none() && args.command.is_empty() {
        return Err(UsageError::new(
            "doctor needs a process: --pid PID, or a command to start after `--` (e.g. iolab doctor -- ./server)",
        ));
    }
    let for_ns = args
        .for_
        .as_deref()
        .map(|text| positive_duration("--for", text))
        .transpose()?;
    let on = positive_duration("--window", &args.window)?;
    let period = positive_duration("--period", &args.period)?;
    if on < 1_000_000 || on >= period {
        return Err(UsageError::new(format!(
            "--window {} with --period {}: the window must be at least 1ms and shorter than the period",
            args.window, args.period
        )));
    }
    let alternatives = args
        .alternatives
        .parse::<usize>()
        .ok()
        .filter(|n| *n <= 16)
        .ok_or_else(|| {
            UsageError::new(format!(
                "--alternatives {:?}: expected a number of channels from 0 to 16",
                args.alternatives
            ))
        })?;
    let alternatives_time = positive_duration("--alternatives-time", &args.alternatives_time)?;
    let placement_pairs = args
        .try_placement
        .parse::<usize>()
        .ok()
        .filter(|n| *n <= 20)
        .ok_or_else(|| {
            UsageError::new(format!(
                "--try-placement {:?}: expected a number of pairs from 0 to 20",
                args.try_placement
            ))
        })?;
    if placement_pairs > 0 && pid.is_some() {
        return Err(UsageError::new(
            "--try-placement runs the command again: it needs `-- CMD`, not --pid",
        ));
    }
    Ok(Plan {
        placement_pairs,
        json,
        alternatives,
        alternatives_time: std::time::Duration::from_nanos(alternatives_time),
        pid,
        command: args.command.clone(),
        for_ns,
        duty: Duty {
            on_ms: on / 1_000_000,
            period_ms: period / 1_000_000,
        },
    })
}

fn positive_duration(option: &str, text: &str) -> UsageResult<u64> {
    match parse_duration_ns(text) {
        Some(ns) if ns > 0 => Ok(ns),
        _ => Err(UsageError::new(format!(
            "{option} {text:?}: expected a duration above zero, e.g. 10s or 500ms"
        ))),
    }
}

/// A process id that names a live process the user may watch.
fn watchable_pid(text: &str) -> UsageResult<i32> {
    let pid: i32 = text.trim().parse().ok().filter(|p| *p > 0).ok_or_else(|| {
        UsageError::new(format!(
            "--pid {text:?}: expected a process id, a whole number above 0"
        ))
    })?;
    if super::procs::is_zombie(pid) {
        return Err(UsageError::new(format!(
            "--pid {pid}: the process has exited (a zombie its parent has not reaped): nothing to watch"
        )));
    }
    if !super::procs::is_process(pid) {
        return Err(UsageError::new(format!("--pid {pid}: no such process")));
    }
    let owner = std::fs::metadata(format!("/proc/{pid}"))
        .map(|m| m.uid())
        .map_err(|e| UsageError::new(format!("--pid {pid}: cannot read /proc/{pid}: {e}")))?;
    let me = rustix::process::geteuid().as_raw();
    if me != 0 && owner != me {
        return Err(UsageError::new(format!(
            "--pid {pid}: the process belongs to uid {owner}, not to you (uid {me}): doctor watches your own processes, or any as root"
        )));
    }
    Ok(pid)
}
