//! The harness every way of running a case goes through: one batch of a
//! case (its scenario's run, profile and counters, the physical bounds
//! that fail an impossible figure), the noise guard's grade of what ran,
//! and the run in its private temp dir with its signal handlers. A plan's cases
//! one after another (`mod.rs`) and interleaved rounds (`rounds.rs`) both
//! call it; it calls neither.

use super::{plausible, stale};
use crate::error::Interrupted;
use crate::exec::cleanup;
use crate::measure::kcounters::{Snapshot, SYSFS_CPUS};
use crate::measure::noise;
use crate::measure::pin::Placement;
use crate::model::{CaseResult, Status};
use crate::scenario::common::explain;
use crate::scenario::{CaseCtx, CaseSpec, Unsupported};
use std::path::Path;
use std::time::Duration;

/// How long one case may run before its sides are stopped.
pub(super) const CASE_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs `body` in the run's private temp dir, with the signal handlers
/// installed and a killed run's leftovers swept first; everything is
/// removed after it, and a signal that stopped it is the error.
pub(super) fn in_private_dir<T>(
    body: impl FnOnce(&Path) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    cleanup::install()?;
    stale::sweep();
    // An unusable TMPDIR is the caller's setting to fix, as a bad option is.
    let tmp = crate::sys::owner::private_temp_dir().map_err(|e| {
        crate::error::UsageError::new(format!(
            "cannot make a private temp dir in {}: {e}: set TMPDIR to a writable directory",
            std::env::temp_dir().display()
        ))
    })?;
    cleanup::track_dir(tmp.path().to_path_buf());
    crate::sys::sysv_msg::note_in(Some(tmp.path()));
    let outcome = body(tmp.path());
    crate::sys::sysv_msg::note_in(None);
    cleanup::untrack_dir(tmp.path());
    drop(tmp);
    if let Some(signal) = cleanup::cancelled_by() {
        return Err(Interrupted(signal).into());
    }
    outcome
}

/// One batch of the case's repetitions: the scenario's run, with its
/// profile and `--explain` counters when asked.
pub(super) fn run_batch(case: &CaseSpec, ctx: &CaseCtx, profile: bool) -> CaseResult {
    let mut out = CaseResult::new(case.scenario.name(), &case.name(), case.params_json());
    let session = profile.then(crate::measure::profile::start);
    let counters = ctx.explain.then(|| Snapshot::take(Path::new(SYSFS_CPUS)));
    let ran = case.scenario.run(case, ctx, &mut out);
    out.profile = session.map(|s| s.finish());
    if let (Some(before), Some(e)) = (counters, out.explain.as_mut()) {
        let after = Snapshot::take(Path::new(SYSFS_CPUS));
        let cpus: Vec<usize> = out.sides.iter().flat_map(|s| s.cpus.clone()).collect();
        explain::add_cpu_counters(e, &before, &after, &cpus);
    }
    if let Err(err) = ran {
        match err.downcast_ref::<Unsupported>() {
            Some(why) => mark(&mut out, Status::Unsupported, why.0.clone()),
            None => mark(&mut out, Status::Failed, format!("{err:#}")),
        }
    }
    if let Some(why) = impossible(case, &out, ctx.fault) {
        if let Some(v) = out.verified.as_mut() {
            v.ok = false;
        }
        mark(&mut out, Status::Failed, why);
    }
    out
}

/// Why an ok result's figures cannot be true on this machine, if they
/// cannot (`plausible`).
fn impossible(
    case: &CaseSpec,
    out: &CaseResult,
    fault: Option<crate::scenario::Fault>,
) -> Option<String> {
    if out.status != Status::Ok || !case.scenario.bound_by_physics() {
        return None;
    }
    let mut cpus: Vec<usize> = out.sides.iter().flat_map(|s| s.cpus.clone()).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let reach = plausible::Reach {
        cpus: match cpus.len() {
            0 => crate::measure::pin::allowed_cpus().len(),
            n => n,
        },
        calls_per_send: case.mech.is_none_or(|m| m.calls_per_send()),
    };
    plausible::beyond_doubt(out, fault, reach)
}

pub(super) fn failed(case: &CaseSpec, reason: String) -> CaseResult {
    let mut out = CaseResult::new(case.scenario.name(), &case.name(), case.params_json());
    mark(&mut out, Status::Failed, reason);
    out
}

/// The noise guard's grade of a finished case: what changed since `before`
/// on the CPUs its sides ran on (every allowed CPU when it has no sides).
pub(super) fn judge_noise(
    case: &CaseSpec,
    out: &CaseResult,
    before: &noise::Reading,
    fastest_canary: crate::measure::canary::Fastest,
) -> crate::model::Noise {
    let after = noise::Reading::take(Path::new(SYSFS_CPUS));
    let allowed = crate::measure::pin::allowed_cpus();
    let mut sides: Vec<Vec<usize>> = out.sides.iter().map(|s| s.cpus.clone()).collect();
    if sides.iter().all(Vec::is_empty) {
        sides = vec![allowed.clone()];
    }
    noise::judge(&noise::Seen {
        before,
        after: &after,
        sides_cpus: &sides,
        pinned: case.placement.is_some_and(|p| p != Placement::Unpinned),
        online: allowed.len(),
        hz: rustix::param::clock_ticks_per_second(),
        fastest_canary,
    })
}

pub(super) fn mark(out: &mut CaseResult, status: Status, reason: String) {
    out.status = status;
    out.reason = Some(reason);
}
