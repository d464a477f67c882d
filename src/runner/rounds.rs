//! Randomized interleaved rounds: the cases of one comparison run as many
//! short rounds, each round one batch of every case in a fresh order drawn
//! from a recorded seed, so a host that changes speed for a while touches
//! every case of the rounds it spans alike (Abedi and Brecht, ICPE 2017).
//! A round's cases never overlap in time; each keeps its placement. Each
//! case's batches merge into its result as `--precision`'s do, and the
//! result carries its headline and every metric per round
//! (`model::Rounds`), from which the comparison's paired figure is
//! computed. For contrast, the rounds
//! can also run as sequential blocks: every round of one case, then the
//! next.

use super::harness::{failed, in_private_dir, judge_noise, run_batch, CASE_TIMEOUT};
use super::merge::merge;
use super::sizing::{self, Piloted, Sizing};
use crate::exec::cleanup;
use crate::measure::kcounters::SYSFS_CPUS;
use crate::measure::noise;
use crate::model::{CaseResult, Rounds, Status};
use crate::plan::Plan;
use crate::scenario::{CaseCtx, CaseSpec};
use crate::stats::looks;
use std::path::Path;
use std::time::{Duration, Instant};

/// How the rounds of a comparison run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    /// Draws each round's order; recorded with the results.
    pub(crate) seed: u64,
    /// Rounds before a stop is considered (then at the looks of
    /// `stats::looks` only), and at most.
    pub(crate) min: usize,
    pub(crate) max: usize,
    /// No round starts that would likely end after this long (one round
    /// as long as the average so far would not fit).
    pub(crate) time_cap: Duration,
    /// False: every round of the first case, then of the next (the
    /// sequential method, for contrast), and no early stop.
    pub(crate) interleaved: bool,
    /// Batches sized by time (`sizing.rs`); None: as planned.
    pub(crate) sizing: Option<Sizing>,
    /// Rounds that run past the time cap (up to `FLOOR_STRETCH` times
    /// it), so a comparison has the pairs it needs to weigh on a slow host.
    pub(crate) floor: usize,
}

/// What the caller is told after each round, and asked whether the
/// rounds so far decide the comparison.
pub(crate) trait Watch {
    fn round_done(&self, done: usize, max: usize);
    /// Each case's result so far, with its rounds, in the order given;
    /// `spent`: the share of the time cap used.
    fn decided(&self, so_far: Vec<CaseResult>, spent: f64) -> bool;
}

/// Runs the plan's cases as rounds; the results in the plan's order.
pub(crate) fn run(
    plan: &Plan,
    schedule: &Schedule,
    watch: &dyn Watch,
) -> anyhow::Result<Vec<CaseResult>> {
    let cases: Vec<&CaseSpec> = plan.cases.iter().collect();
    super::plausible::start_run();
    in_private_dir(|tmp| Ok(run_in(plan, &cases, schedule, watch, tmp)))
}

/// One case's results so far.
struct Track {
    out: Option<CaseResult>,
    batches: u64,
    rounds: Rounds,
}

/// Runs `cases` (of `plan`, which gives the fault and the canary) as
/// rounds in `tmp`; the results in the order of `cases`.
pub(crate) fn run_in(
    plan: &Plan,
    cases: &[&CaseSpec],
    schedule: &Schedule,
    watch: &dyn Watch,
    tmp: &Path,
) -> Vec<CaseResult> {
    let before = noise::Reading::take(Path::new(SYSFS_CPUS));
    let mut tracks: Vec<Track> = cases
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
    let mut rng = crate::stats::xorshift::XorShift::new(schedule.seed);
    let started = Instant::now();
    let sized = match schedule.sizing {
        Some(how) => sized(cases, plan, how, tmp),
        None => cases.iter().map(|c| (*c).clone()).collect(),
    };
    for (track, case) in tracks.iter_mut().zip(&sized) {
        track.rounds.batch = schedule
            .sizing
            .map(|how| sizing::describe(case, how))
            .unwrap_or_default();
    }
    for (round, order) in orders(cases.len(), schedule, &mut rng).enumerate() {
        let cap = match round < schedule.floor.min(schedule.max) {
            true => schedule.time_cap * FLOOR_STRETCH,
            false => schedule.time_cap,
        };
        if cleanup::cancelled() || past_cap(started.elapsed(), round, cap) {
            break;
        }
        crate::measure::host::between_cases();
        for (position, &index) in order.iter().enumerate() {
            let batch = one_batch(
                &sized[index],
                plan,
                &tmp.join(format!("round-case-{index}")),
            );
            add(&mut tracks[index], batch, position);
        }
        if tracks.iter().any(|t| !is_ok(t)) {
            break;
        }
        watch.round_done(round + 1, schedule.max);
        let complete = tracks
            .iter()
            .all(|t| t.rounds.values.len() == tracks[0].rounds.values.len());
        let may_stop = schedule.interleaved
            && complete
            && round + 1 >= schedule.min
            && looks::is_look(round + 1);
        let spent = started.elapsed().as_secs_f64() / schedule.time_cap.as_secs_f64().max(1e-9);
        if may_stop && watch.decided(so_far(&tracks), spent) {
            break;
        }
    }
    finish(cases, tracks, &before, plan.fastest_canary)
}

/// `cases` resized so that their batches take about the time `how` asks,
/// each case that needs one measured by a pilot batch first (in `tmp`).
fn sized(cases: &[&CaseSpec], plan: &Plan, how: Sizing, tmp: &Path) -> Vec<CaseSpec> {
    let pilots: Vec<Option<CaseSpec>> = cases.iter().map(|c| sizing::pilot(c)).collect();
    let ran: Vec<Option<(Duration, CaseResult)>> = pilots
        .iter()
        .enumerate()
        .map(|(i, pilot)| {
            let pilot = pilot.as_ref().filter(|_| !cleanup::cancelled())?;
            let started = Instant::now();
            let out = one_batch(pilot, plan, &tmp.join(format!("pilot-case-{i}")));
            (out.status == Status::Ok).then(|| (started.elapsed(), out))
        })
        .collect();
    let piloted: Vec<Option<Piloted>> = pilots
        .iter()
        .zip(&ran)
        .map(|(pilot, ran)| {
            let (took, result) = ran.as_ref()?;
            Some(Piloted {
                case: pilot.as_ref()?,
                took: *took,
                result,
            })
        })
        .collect();
    sizing::resized(cases, &piloted, how)
}

/// Whether a round started now, `elapsed` into the rounds after `done` of
/// them, would likely end past `cap`: one round as long as the rounds so
/// far on average would not fit.
fn past_cap(elapsed: Duration, done: usize, cap: Duration) -> bool {
    let mean_round = elapsed.checked_div(done.max(1) as u32).unwrap_or_default();
    elapsed + mean_round > cap
}

/// How far past the time cap the floor's rounds may run.
const FLOOR_STRETCH: u32 = 3;

/// Each case's result so far, with its rounds.
fn so_far(tracks: &[Track]) -> Vec<CaseResult> {
    tracks
        .iter()
        .filter_map(|t| {
            let mut r = t.out.clone()?;
            r.rounds = Some(t.rounds.clone());
            Some(r)
        })
        .collect()
}

/// Each round's order: a fresh shuffle of the cases, or, sequentially,
/// every round of case 0, then of case 1, ...
fn orders<'a>(
    cases: usize,
    schedule: &'a Schedule,
    rng: &'a mut crate::stats::xorshift::XorShift,
) -> Box<dyn Iterator<Item = Vec<usize>> + 'a> {
    match schedule.interleaved {
        true => Box::new((0..schedule.max).map(move |_| rng.shuffled(cases))),
        false => Box::new((0..cases).flat_map(|c| std::iter::repeat_n(vec![c], schedule.max))),
    }
}

/// One batch of `case` in a directory of its own, removed after it.
fn one_batch(case: &CaseSpec, plan: &Plan, dir: &Path) -> CaseResult {
    if let Err(e) = std::fs::create_dir(dir) {
        return failed(case, format!("creating {}: {e}", dir.display()));
    }
    let ctx = CaseCtx {
        dir,
        fault: plan.fault,
        timeout: CASE_TIMEOUT,
        explain: case.explain,
        offcpu_stacks: false,
    };
    let batch = run_batch(case, &ctx, false);
    let _ = std::fs::remove_dir_all(dir);
    batch
}

fn is_ok(t: &Track) -> bool {
    t.out.as_ref().is_none_or(|o| o.status == Status::Ok)
}

/// Merges `batch` into the case's result and records its figures.
fn add(t: &mut Track, batch: CaseResult, position: usize) {
    let headline = crate::scenario::find(&batch.scenario).and_then(|s| s.round_value(&batch));
    if batch.status == Status::Ok {
        for (name, m) in &batch.metrics {
            t.rounds
                .metrics
                .entry(name.clone())
                .or_default()
                .push(m.value);
        }
    }
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

/// Each case's result with its rounds and noise grade, named and with
/// the parameters as planned; a case that is not ok keeps no figures.
fn finish(
    cases: &[&CaseSpec],
    tracks: Vec<Track>,
    before: &noise::Reading,
    fastest_canary: crate::measure::canary::Fastest,
) -> Vec<CaseResult> {
    cases
        .iter()
        .zip(tracks)
        .map(|(case, t)| {
            let mut out = t.out.unwrap_or_else(|| failed(case, "no round ran".into()));
            // As planned: how each batch was sized is the rounds' `batch`.
            out.case = case.name();
            out.params = case.params_json();
            if out.status == Status::Ok {
                out.noise = Some(judge_noise(case, &out, before, fastest_canary));
                out.rounds = Some(t.rounds);
            } else {
                out.metrics.clear();
                out.latency = None;
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::past_cap;
    use std::time::Duration;

    #[test]
    fn no_round_starts_that_would_end_past_the_cap() {
        let cap = Duration::from_secs(10);
        let after = |ms: u64, done: usize| past_cap(Duration::from_millis(ms), done, cap);
        // 4 rounds of 2 s: a fifth fits from 8 s, not from 8.5 s.
        assert!(!after(8_000, 4));
        assert!(after(8_500, 4));
        // 3 rounds of 3.9 s: a fourth would end at 15.6 s.
        assert!(after(11_700, 3));
        // Short rounds run up to the cap.
        assert!(!after(9_900, 99));
        assert!(after(10_000, 100));
    }
}
