//! Runs a plan: one case after another in a private 0700 temp dir, each
//! case's sides as threads or processes, progress reported to an observer,
//! everything cleaned up after each case, on error and on Ctrl-C. The
//! comparisons' cases run as interleaved rounds (`interleaved.rs`,
//! `rounds.rs`); every batch goes through `harness.rs`.

mod harness;
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
pub(crate) use progress::Observer;
pub(crate) use summary::annotate_limits;

use crate::exec::cleanup;
use crate::format::case_label;
use crate::measure::kcounters::SYSFS_CPUS;
use crate::measure::noise;
use crate::model::{CaseResult, Status};
use crate::plan::Plan;
use crate::scenario::{self, CaseCtx, CaseSpec};
use anyhow::Context;
use harness::{failed, in_private_dir, judge_noise, mark, run_batch, CASE_TIMEOUT};
use std::path::Path;
use std::time::Instant;

pub(crate) fn run(plan: &Plan, observer: &dyn Observer) -> anyhow::Result<Vec<CaseResult>> {
    plausible::start_run();
    in_private_dir(|tmp| {
        let results = run_cases(plan, tmp, observer);
        observer.finish();
        results
    })
}

fn run_cases(plan: &Plan, tmp: &Path, observer: &dyn Observer) -> anyhow::Result<Vec<CaseResult>> {
    observer.start(plan.cases.iter().map(progress::weight).sum());
    let round_groups = interleaved::round_groups(plan);
    let mut ahead: Vec<Option<CaseResult>> = plan.cases.iter().map(|_| None).collect();
    let mut results = Ordered::default();
    for (index, case) in plan.cases.iter().enumerate() {
        if cleanup::cancelled() {
            break;
        }
        let group = round_groups.iter().find(|g| g.cases.contains(&index));
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

#[cfg(test)]
mod tests {
    use super::Observer;
    use crate::model::CaseResult;
    use std::cell::RefCell;

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
