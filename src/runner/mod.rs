//! Runs a plan: one case after another in a private 0700 temp dir, each
//! case's sides as threads or processes, progress reported to an observer,
//! everything cleaned up after each case, on error and on Ctrl-C.

mod interleaved;
mod merge;
mod plausible;
mod precision;
pub(crate) mod progress;
pub(crate) mod repeat;
pub(crate) mod rounds;
pub(crate) mod sizing;
pub(crate) mod stale;
mod summary;

pub(crate) use plausible::seen as bounds_seen;
pub(crate) use summary::annotate_limits;

use crate::error::Interrupted;
use crate::exec::cleanup;
use crate::format::case_label;
use crate::measure::kcounters::{Snapshot, SYSFS_CPUS};
use crate::measure::noise;
use crate::measure::pin::Placement;
use crate::model::{CaseResult, Status};
use crate::plan::Plan;
use crate::scenario::common::explain;
use crate::scenario::{self, CaseCtx, CaseSpec, Unsupported};
use anyhow::Context;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long one case may run before its sides are stopped.
const CASE_TIMEOUT: Duration = Duration::from_secs(300);

/// Told about progress; the progress bar and quiet mode implement it.
pub(crate) trait Observer {
    /// `work`: the expected work of all cases, in `progress::weight` units.
    fn start(&self, work: u64);
    fn case_started(&self, name: &str);
    /// `weight`: this case's share of the work.
    fn case_finished(&self, result: &CaseResult, weight: u64);
    /// The plan's last case of `scenario` finished; `results`: every
    /// result so far, with the limit ratios that the run's `limits`
    /// results measured so far allow.
    fn scenario_finished(&self, _scenario: &str, _results: &[CaseResult]) {}
    fn finish(&self);
}

pub(crate) fn run(plan: &Plan, observer: &dyn Observer) -> anyhow::Result<Vec<CaseResult>> {
    plausible::start_run();
    in_private_dir(|tmp| {
        let results = run_cases(plan, tmp, observer);
        observer.finish();
        results
    })
}

/// Runs `body` in the run's private temp dir, with the signal handlers
/// installed and a killed run's leftovers swept first; everything is
/// removed after it, and a signal that stopped it is the error.
fn in_private_dir<T>(body: impl FnOnce(&Path) -> anyhow::Result<T>) -> anyhow::Result<T> {
    cleanup::install()?;
    stale::sweep();
    // An unusable TMPDIR is the caller's setting to fix, as a bad option is.
    let tmp = private_temp_dir().map_err(|e| {
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

/// `$TMPDIR/iolab-<pid>-XXXXXX`, readable by this user only: FIFOs and
/// test files of the cases live inside it. The PID tells a later run
/// whether it is stale (`stale::sweep`).
pub(crate) fn private_temp_dir() -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(&stale::own_prefix())
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
}

fn run_cases(plan: &Plan, tmp: &Path, observer: &dyn Observer) -> anyhow::Result<Vec<CaseResult>> {
    observer.start(plan.cases.iter().map(progress::weight).sum());
    let groups = interleaved::groups(plan);
    let mut ahead: Vec<Option<CaseResult>> = plan.cases.iter().map(|_| None).collect();
    let mut results = Ordered::default();
    for (index, case) in plan.cases.iter().enumerate() {
        if cleanup::cancelled() {
            break;
        }
        let group = groups.iter().find(|g| g.cases.contains(&index));
        let waits = group.is_some_and(|g| interleaved::runs_at(plan, g) > index);
        if waits && ahead[index].is_none() {
            continue;
        }
        crate::measure::host::between_cases();
        let name = format!("{}: {}", case.scenario.name(), case_label(&case.name()));
        let result = match (ahead[index].take(), group, plan.interleave) {
            (Some(done), _, _) => {
                observer.case_started(&name);
                done
            }
            (None, Some(group), Some(how)) => {
                let more = group.cases.len() - 1;
                observer.case_started(&format!("{name} and {more} more, in interleaved rounds"));
                let outs = interleaved::run_group(plan, &how, group, &results.list, tmp);
                for (&i, out) in group.cases.iter().zip(outs) {
                    ahead[i] = Some(out);
                }
                for &i in group.cases.iter().filter(|&&i| i < index) {
                    let waited = ahead[i].take().context("a group's rounds lost a case")?;
                    observer.case_finished(&waited, progress::weight(&plan.cases[i]));
                    results.insert(i, waited);
                }
                ahead[index]
                    .take()
                    .context("a group's rounds lost a case")?
            }
            _ => {
                observer.case_started(&name);
                run_alone(plan, index, tmp)?
            }
        };
        observer.case_finished(&result, progress::weight(case));
        results.insert(index, result);
        let scenario = case.scenario.name();
        let last = !plan.cases[index + 1..]
            .iter()
            .any(|c| c.scenario.name() == scenario);
        if last && !cleanup::cancelled() {
            annotate_limits(&mut results.list);
            observer.scenario_finished(scenario, &results.list);
        }
    }
    Ok(results.list)
}

/// The results so far in the plan's order, though a group's rounds finish
/// cases planned before the one they ran at.
#[derive(Default)]
struct Ordered {
    list: Vec<CaseResult>,
    /// The plan's index of each result in `list`.
    planned: Vec<usize>,
}

impl Ordered {
    fn insert(&mut self, index: usize, result: CaseResult) {
        let at = self.planned.partition_point(|&i| i < index);
        self.planned.insert(at, index);
        self.list.insert(at, result);
    }
}

/// Case `index` of `plan` by itself, in a directory of its own in `tmp`.
fn run_alone(plan: &Plan, index: usize, tmp: &Path) -> anyhow::Result<CaseResult> {
    let dir = tmp.join(format!("case-{index}"));
    std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let ctx = CaseCtx {
        dir: &dir,
        fault: plan.fault,
        timeout: CASE_TIMEOUT,
        explain: plan.explain,
        offcpu_stacks: plan.explain && plan.profile,
    };
    let result = run_one(&plan.cases[index], &ctx, plan);
    std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    Ok(result)
}

fn run_one(case: &CaseSpec, ctx: &CaseCtx, plan: &Plan) -> CaseResult {
    if let Some(why) = &case.unsupported {
        let mut out = CaseResult::new(case.scenario.name(), &case.name(), case.params_json());
        mark(&mut out, Status::Unsupported, why.clone());
        return out;
    }
    let before = noise::Reading::take(Path::new(SYSFS_CPUS));
    let started = Instant::now();
    let mut out = run_batch(case, ctx, plan.profile);
    if let (Some(goal), Status::Ok) = (precision::goal_for(plan, &out), out.status) {
        let batches = precision::Batches {
            goal,
            repeat: case.repeat,
            batchable: !plan.explain && !plan.profile,
            started,
            first: started.elapsed(),
        };
        precision::refine(&batches, &mut out, || {
            let _ = std::fs::remove_dir_all(ctx.dir);
            match std::fs::create_dir(ctx.dir) {
                Ok(()) => run_batch(case, ctx, false),
                Err(e) => failed(case, format!("creating {}: {e}", ctx.dir.display())),
            }
        });
    }
    if out.status == Status::Ok {
        out.noise = Some(judge_noise(case, &out, &before, plan.fastest_canary));
    } else {
        out.metrics.clear();
        out.latency = None;
        out.explain = None;
        out.precision = None;
    }
    debug_assert_eq!(
        scenario::undeclared(&out),
        Vec::<String>::new(),
        "{}",
        out.case
    );
    out
}

/// One batch of the case's repetitions: the scenario's run, with its
/// profile and `--explain` counters when asked.
fn run_batch(case: &CaseSpec, ctx: &CaseCtx, profile: bool) -> CaseResult {
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

fn failed(case: &CaseSpec, reason: String) -> CaseResult {
    let mut out = CaseResult::new(case.scenario.name(), &case.name(), case.params_json());
    mark(&mut out, Status::Failed, reason);
    out
}

/// The noise guard's grade of a finished case: what changed since `before`
/// on the CPUs its sides ran on (every allowed CPU when it has no sides).
fn judge_noise(
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

fn mark(out: &mut CaseResult, status: Status, reason: String) {
    out.status = status;
    out.reason = Some(reason);
}

#[cfg(test)]
mod tests {
    use super::Observer;
    use crate::model::CaseResult;
    use std::cell::RefCell;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_temp_dir_is_private() {
        let dir = super::private_temp_dir().unwrap();
        let mode = std::fs::metadata(dir.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(dir
            .path()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with(&format!("iolab-{}-", std::process::id())));
    }

    /// Writes down what the runner told it, in order.
    #[derive(Default)]
    struct Recorder(RefCell<Vec<String>>);

    impl Observer for Recorder {
        fn start(&self, _work: u64) {}
        fn case_started(&self, name: &str) {
            self.0.borrow_mut().push(format!("case {name}"));
        }
        fn case_finished(&self, _result: &CaseResult, _weight: u64) {}
        fn scenario_finished(&self, scenario: &str, results: &[CaseResult]) {
            let mine: Vec<&CaseResult> =
                results.iter().filter(|r| r.scenario == scenario).collect();
            let limits: Vec<String> = mine
                .iter()
                .map(|r| {
                    r.limit_ratio
                        .as_ref()
                        .map_or("-".into(), |l| l.limit.clone())
                })
                .collect();
            let line = format!(
                "table {scenario}: {} of {}, limits {limits:?}",
                mine.len(),
                results.len()
            );
            self.0.borrow_mut().push(line);
        }
        fn finish(&self) {
            self.0.borrow_mut().push("finish".into());
        }
    }

    /// Each scenario's table is due right after its last case, before the
    /// next scenario starts, with the limit ratios of the `limits` run first.
    #[test]
    fn each_scenario_is_finished_before_the_next_starts() {
        use clap::Parser;
        let cli = crate::cli::Cli::try_parse_from([
            "iolab",
            "run",
            "limits",
            "pingpong",
            "--param",
            "probe=syscall",
            "--param",
            "count=2000",
            "--mech",
            "pipe,eventfd",
            "--placement",
            "same-cpu",
            "--mode",
            "threads",
            "--repeat",
            "1",
        ])
        .unwrap();
        let crate::cli::Command::Run(args) = cli.command else {
            panic!("not a run command");
        };
        let plan = crate::plan::build(&args).unwrap();
        let recorder = Recorder::default();
        let results = super::run(&plan, &recorder).unwrap();
        assert_eq!(results.len(), 3);
        let want = [
            "case limits: syscall",
            "table limits: 1 of 1, limits [\"-\"]",
            "case pingpong: pipe/same-cpu/threads/1 B",
            "case pingpong: eventfd/same-cpu/threads/8 B",
            "table pingpong: 2 of 3, limits [\"syscall_ns\", \"syscall_ns\"]",
            "finish",
        ];
        assert_eq!(*recorder.0.borrow(), want);
    }
}
