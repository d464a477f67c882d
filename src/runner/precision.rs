//! `--precision`: after a case's first batch of repetitions, the runner
//! computes the bootstrap 95% interval of its headline's median and, while
//! that is wider than asked and no cap is reached, runs the case again (a
//! further batch, warm-up included: a new batch starts new sides) and
//! merges it in (`merge/`). Every scenario gets this without knowing of
//! it; one whose headline has no per-repetition values is one-shot and
//! keeps its single batch.

use super::merge::merge;
use crate::model::{CaseResult, Precision, Status};
use crate::plan::precision::{Goal, ONE_BATCH_STOP, SUITE_STOP, TIME_CAP};
use crate::plan::Plan;
use crate::stats::bootstrap::{median_half_width_pct, median_interval};
use std::time::{Duration, Instant};

/// What the runner knows of a case when its first batch is done.
pub(crate) struct Batches {
    pub(crate) goal: Goal,
    /// Repetitions per batch (the planned ones).
    pub(crate) repeat: u64,
    /// False with `--explain` or `--profile`, whose figures cover one batch.
    pub(crate) batchable: bool,
    /// When the first batch started, and how long it took.
    pub(crate) started: Instant,
    pub(crate) first: Duration,
}

/// The goal for a case whose first batch is `out`: the run's, or, in a
/// suite that decides claims and without `--precision`, the precision the
/// claims that read the case need (`claims::required_precision`).
pub(crate) fn goal_for(plan: &Plan, out: &CaseResult) -> Option<Goal> {
    let goal = plan.precision?;
    if goal.fixed != Some(SUITE_STOP) || !plan.claims_precision {
        return Some(goal);
    }
    let Some(needed) = crate::claims::required_precision(out) else {
        return Some(goal);
    };
    Some(Goal {
        pct: needed * 100.0,
        fixed: None,
        asked: false,
    })
}

/// Runs further batches through `again` until the goal or a cap is
/// reached, merging each into `out`, and records the outcome.
pub(crate) fn refine(b: &Batches, out: &mut CaseResult, mut again: impl FnMut() -> CaseResult) {
    let (mut batches, mut last) = (1u64, b.first);
    loop {
        let Some(reps) = headline_reps(out) else {
            return;
        };
        let half = median_half_width_pct(&reps);
        if half.is_some_and(|h| h <= b.goal.pct) {
            break;
        }
        if let Some(reason) = stop_reason(b, reps.len() as u64, last) {
            out.precision = precision(out, b.goal, batches, Some(reason));
            return;
        }
        let t = Instant::now();
        let next = again();
        last = t.elapsed();
        if next.status != Status::Ok {
            out.status = next.status;
            out.reason = Some(format!(
                "batch {}: {}",
                batches + 1,
                next.reason.as_deref().unwrap_or("no reason recorded")
            ));
            return;
        }
        if let Err(e) = merge(out, next, batches) {
            out.status = Status::Failed;
            out.reason = Some(format!("merging batch {}: {e:#}", batches + 1));
            return;
        }
        batches += 1;
    }
    out.precision = precision(out, b.goal, batches, None);
}

/// Why no further batch may run, if one may not.
fn stop_reason(b: &Batches, reps: u64, last: Duration) -> Option<String> {
    let cap = b.goal.rep_cap(b.repeat);
    if let Some(why) = b.goal.fixed {
        return Some(why.into());
    }
    if !b.batchable {
        return Some(ONE_BATCH_STOP.into());
    }
    if reps + b.repeat > cap {
        return Some(format!("repetition cap {cap}"));
    }
    if b.started.elapsed() + last > TIME_CAP {
        return Some(format!("time cap {} s", TIME_CAP.as_secs()));
    }
    crate::exec::cleanup::cancelled().then(|| "interrupted".into())
}

/// The headline's per-repetition values, when it has any.
fn headline_reps(out: &CaseResult) -> Option<Vec<f64>> {
    let (_, m) = out.headline_metric()?;
    (!m.reps.is_empty()).then(|| m.reps.clone())
}

fn precision(
    out: &CaseResult,
    goal: Goal,
    batches: u64,
    stopped_by: Option<String>,
) -> Option<Precision> {
    let (name, m) = out.headline_metric()?;
    let (lo, hi) = median_interval(&m.reps)?;
    let half_width_pct = median_half_width_pct(&m.reps)?;
    Some(Precision {
        metric: name.to_string(),
        target_pct: goal.pct,
        ci: [lo, hi],
        half_width_pct,
        reached: half_width_pct <= goal.pct,
        reps: m.reps.len() as u64,
        batches,
        stopped_by: (half_width_pct > goal.pct).then_some(stopped_by).flatten(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metric::metric;
    use std::collections::BTreeMap;

    fn result(reps: &[f64]) -> CaseResult {
        let mut r = CaseResult::new("s", "c", BTreeMap::new());
        r.metrics.insert("x_ns".into(), metric(reps.to_vec(), "ns"));
        r.headline = Some("x_ns".into());
        r
    }

    fn batches(pct: f64, more: bool) -> Batches {
        let fixed = (!more).then_some(crate::plan::precision::SUITE_STOP);
        Batches {
            goal: Goal {
                pct,
                fixed,
                asked: false,
            },
            repeat: 3,
            batchable: true,
            started: Instant::now(),
            first: Duration::ZERO,
        }
    }

    #[test]
    fn batches_run_until_the_interval_is_narrow_enough() {
        let mut out = result(&[100.0, 130.0, 70.0]);
        let mut calls = 0;
        refine(&batches(5.0, true), &mut out, || {
            calls += 1;
            result(&[100.0, 100.0, 100.0])
        });
        let p = out.precision.unwrap();
        assert!(p.reached, "{p:?}");
        assert_eq!((p.batches, p.reps), (calls + 1, 3 * (calls + 1)));
        assert!(p.half_width_pct <= 5.0 && p.stopped_by.is_none());
        assert!(calls >= 1);
    }

    #[test]
    fn an_unreachable_goal_stops_at_the_repetition_cap_and_says_so() {
        let mut out = result(&[100.0, 130.0, 70.0]);
        refine(&batches(0.01, true), &mut out, || {
            result(&[90.0, 120.0, 80.0])
        });
        let p = out.precision.unwrap();
        assert!(!p.reached);
        assert_eq!(p.reps, 12);
        assert_eq!(p.stopped_by.as_deref(), Some("repetition cap 12"));
        assert_eq!(out.metrics["x_ns"].reps.len(), 12);
    }

    #[test]
    fn no_batches_in_a_suite_or_with_explain_and_none_for_one_shot_headlines() {
        let mut out = result(&[100.0, 130.0, 70.0]);
        refine(&batches(2.0, false), &mut out, || unreachable!());
        let p = out.precision.unwrap();
        assert_eq!(p.batches, 1);
        assert_eq!(
            p.stopped_by.as_deref(),
            Some("a suite runs no further batch")
        );
        let mut explained = result(&[100.0, 130.0, 70.0]);
        let b = Batches {
            batchable: false,
            ..batches(2.0, true)
        };
        refine(&b, &mut explained, || unreachable!());
        let p = explained.precision.unwrap();
        assert_eq!(p.stopped_by.as_deref(), Some(ONE_BATCH_STOP));
        let mut one_shot = result(&[]);
        one_shot.metrics.get_mut("x_ns").unwrap().value = 5.0;
        refine(&batches(2.0, true), &mut one_shot, || unreachable!());
        assert!(one_shot.precision.is_none());
    }

    fn planned(args: &[&str]) -> Plan {
        crate::plan::of_args(args).unwrap()
    }

    #[test]
    fn a_suite_that_decides_claims_asks_each_case_for_its_claims_precision() {
        let params = [("poller", "poll"), ("transport", "tcp"), ("idle", "0")]
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)));
        let read = CaseResult::new("poll-scale", "poll", params.into_iter().collect());
        let unread = result(&[1.0]);
        let goal = |args: &[&str], r: &CaseResult| goal_for(&planned(args), r).unwrap();
        // E5-poll-faster-at-0 resolves a 5% difference: +-2.5% on each side.
        let seeds = goal(&["seeds"], &read);
        assert_eq!((seeds.pct, seeds.fixed), (2.5, None));
        assert_eq!(goal(&["seeds", "--quick"], &read).pct, 2.5);
        let unread_goal = goal(&["seeds"], &unread);
        assert_eq!(unread_goal.fixed, Some(SUITE_STOP));
        assert_eq!(goal(&["quick"], &read).fixed, Some(SUITE_STOP));
        let asked = goal(&["seeds", "--precision", "5%"], &read);
        assert_eq!((asked.pct, asked.fixed), (5.0, None));
        assert!(goal_for(&planned(&["seeds", "--precision", "off"]), &read).is_none());
    }

    #[test]
    fn a_failed_batch_fails_the_case() {
        let mut out = result(&[100.0, 130.0, 70.0]);
        refine(&batches(1.0, true), &mut out, || {
            let mut r = result(&[]);
            r.status = Status::Failed;
            r.reason = Some("message 5: payload differs".into());
            r
        });
        assert_eq!(out.status, Status::Failed);
        assert_eq!(
            out.reason.as_deref(),
            Some("batch 2: message 5: payload differs")
        );
    }
}
