//! Randomized interleaved rounds: the cases of one comparison run as many
//! short rounds, each round one batch of every case in a fresh order drawn
//! from a recorded seed, so a host that changes speed for a while touches
//! every case of the rounds it spans alike (Abedi and Brecht, ICPE 2017).
//! A round's cases never overlap in time; each keeps its placement. Each
//! case's batches merge into its result as `--precision`'s do, and the
//! result carries its headline per round (`model::Rounds`), from which
//! the comparison's paired figure is computed. For contrast, the rounds
//! can also run as sequential blocks: every round of one case, then the
//! next.

use super::merge::merge;
use super::{in_private_dir, judge_noise, run_batch};
use crate::exec::cleanup;
use crate::measure::kcounters::SYSFS_CPUS;
use crate::measure::noise;
use crate::model::{CaseResult, Rounds, Status};
use crate::plan::Plan;
use crate::scenario::{CaseCtx, CaseSpec};
use std::path::Path;
use std::time::{Duration, Instant};

/// How the rounds of a comparison run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    /// Draws each round's order; recorded with the results.
    pub(crate) seed: u64,
    /// Rounds before a stop is considered, and at most.
    pub(crate) min: usize,
    pub(crate) max: usize,
    /// No round starts once the rounds have run this long.
    pub(crate) time_cap: Duration,
    /// False: every round of the first case, then of the next (the
    /// sequential method, for contrast), and no early stop.
    pub(crate) interleaved: bool,
}

/// What the caller is told after each round, and asked whether the
/// rounds so far decide the comparison.
pub(crate) trait Watch {
    fn round_done(&self, done: usize, max: usize);
    /// The headline of each case per round so far (one series per case).
    fn decided(&self, series: &[Vec<f64>]) -> bool;
}

/// Runs the plan's cases as rounds; the results in the plan's order.
pub(crate) fn run(
    plan: &Plan,
    schedule: &Schedule,
    watch: &dyn Watch,
) -> anyhow::Result<Vec<CaseResult>> {
    in_private_dir(|tmp| Ok(run_in(plan, schedule, watch, tmp)))
}

/// One case's results so far.
struct Track {
    out: Option<CaseResult>,
    batches: u64,
    rounds: Rounds,
}

fn run_in(plan: &Plan, schedule: &Schedule, watch: &dyn Watch, tmp: &Path) -> Vec<CaseResult> {
    let before = noise::Reading::take(Path::new(SYSFS_CPUS));
    let mut tracks: Vec<Track> = plan
        .cases
        .iter()
        .map(|_| Track {
            out: None,
            batches: 0,
            rounds: Rounds {
                seed: schedule.seed,
                interleaved: schedule.interleaved,
                ..Rounds::default()
            },
        })
        .collect();
    let mut rng = crate::measure::bootstrap::XorShift::new(schedule.seed);
    let started = Instant::now();
    for (round, order) in orders(plan.cases.len(), schedule, &mut rng).enumerate() {
        if cleanup::cancelled() || started.elapsed() >= schedule.time_cap {
            break;
        }
        for (position, &index) in order.iter().enumerate() {
            let batch = one_batch(&plan.cases[index], plan, &tmp.join(format!("case-{index}")));
            add(&mut tracks[index], batch, position);
        }
        if tracks.iter().any(|t| !is_ok(t)) {
            break;
        }
        watch.round_done(round + 1, schedule.max);
        let series: Vec<Vec<f64>> = tracks.iter().map(|t| t.rounds.values.clone()).collect();
        let complete = series.iter().all(|s| s.len() == series[0].len());
        if schedule.interleaved && complete && round + 1 >= schedule.min && watch.decided(&series) {
            break;
        }
    }
    finish(plan, tracks, &before)
}

/// Each round's order: a fresh shuffle of the cases, or, sequentially,
/// every round of case 0, then of case 1, ...
fn orders<'a>(
    cases: usize,
    schedule: &'a Schedule,
    rng: &'a mut crate::measure::bootstrap::XorShift,
) -> Box<dyn Iterator<Item = Vec<usize>> + 'a> {
    match schedule.interleaved {
        true => Box::new((0..schedule.max).map(move |_| rng.shuffled(cases))),
        false => Box::new((0..cases).flat_map(|c| std::iter::repeat_n(vec![c], schedule.max))),
    }
}

/// One batch of `case` in a directory of its own, removed after it.
fn one_batch(case: &CaseSpec, plan: &Plan, dir: &Path) -> CaseResult {
    if let Err(e) = std::fs::create_dir(dir) {
        return super::failed(case, format!("creating {}: {e}", dir.display()));
    }
    let ctx = CaseCtx {
        dir,
        fault: plan.fault,
        timeout: super::CASE_TIMEOUT,
        explain: false,
        offcpu_stacks: false,
    };
    let batch = run_batch(case, &ctx, false);
    let _ = std::fs::remove_dir_all(dir);
    batch
}

fn is_ok(t: &Track) -> bool {
    t.out.as_ref().is_none_or(|o| o.status == Status::Ok)
}

/// Merges `batch` into the case's result and records its headline.
fn add(t: &mut Track, batch: CaseResult, position: usize) {
    let headline = batch.headline_metric().map(|(_, m)| m.value);
    match (&mut t.out, batch.status) {
        (None, _) => t.out = Some(batch),
        (Some(out), Status::Ok) => {
            if let Err(e) = merge(out, batch, t.batches) {
                out.status = Status::Failed;
                out.reason = Some(format!("merging round {}: {e:#}", t.batches + 1));
            }
        }
        (Some(out), status) => {
            out.status = status;
            out.reason = batch
                .reason
                .map(|r| format!("round {}: {r}", t.batches + 1));
        }
    }
    t.batches += 1;
    if let Some(value) = headline {
        t.rounds.values.push(value);
        t.rounds.positions.push(position);
    }
}

/// Each case's result with its rounds and noise grade; a case that is not
/// ok keeps no figures.
fn finish(plan: &Plan, tracks: Vec<Track>, before: &noise::Reading) -> Vec<CaseResult> {
    plan.cases
        .iter()
        .zip(tracks)
        .map(|(case, t)| {
            let mut out = t
                .out
                .unwrap_or_else(|| super::failed(case, "no round ran".into()));
            if out.status == Status::Ok {
                out.noise = Some(judge_noise(case, &out, before, plan.fastest_canary));
                out.rounds = Some(t.rounds);
            } else {
                out.metrics.clear();
                out.latency = None;
            }
            out
        })
        .collect()
}
