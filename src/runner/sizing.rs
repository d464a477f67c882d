//! Rounds sized by time, not by count: a host's speed changes within a
//! second, so a round is fair to its cases only when it is short, and its
//! value is robust only when one preemption cannot dominate it. Each case
//! whose scenario names the parameter that sets one repetition's work
//! (`Scenario::batch_work`) is resized before the rounds so that a
//! repetition takes `per_rep`: a duration directly, a count from the cost
//! of a pilot batch (a sixteenth of the planned work, which also warms
//! the case up). A round's batch then runs `reps` such repetitions, and
//! its value is their median. A case is never made larger than planned,
//! nor smaller than `MIN_WORK` operations a repetition; a work parameter
//! the user fixed (`CaseSpec::work_fixed`) is kept. A scenario whose
//! repetition is one short operation that cannot be sized runs the
//! repetitions it names instead (`Scenario::round_reps`).

use crate::model::CaseResult;
use crate::params::{ParamKind, ParamSpec, Value};
use crate::scenario::CaseSpec;
use std::time::Duration;

/// How the batches of interleaved rounds are sized.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sizing {
    /// The time one repetition should take.
    pub(crate) per_rep: Duration,
    /// Repetitions per batch; their median is the round's value.
    pub(crate) reps: u64,
}

/// The batches of `iolab ab` and of the claims' rounds: three repetitions
/// of 10 ms, about 30 ms a case.
pub(crate) const DEFAULT: Sizing = Sizing {
    per_rep: Duration::from_millis(10),
    reps: 3,
};

/// A pilot does this share of the planned work.
const PILOT_SHARE: u64 = 16;

/// The least work a repetition keeps, whatever its cost.
const MIN_WORK: u64 = 64;

/// A pilot batch that ran: its case, how long it took and what it found.
pub(crate) struct Piloted<'a> {
    pub(crate) case: &'a CaseSpec,
    pub(crate) took: Duration,
    pub(crate) result: &'a CaseResult,
}

/// The smaller case a pilot runs, where resizing `case` needs one (its
/// work is a count or a byte size, not a duration).
pub(crate) fn pilot(case: &CaseSpec) -> Option<CaseSpec> {
    let spec = work_param(case).filter(|s| s.kind != ParamKind::Duration)?;
    let mut pilot = CaseSpec {
        repeat: 1,
        ..case.clone()
    };
    if let Some(planned) = spec.int(&case.values) {
        let less = (planned / PILOT_SHARE).max(MIN_WORK.min(planned));
        pilot.values.insert(spec.name, Value::Int(less));
    }
    Some(pilot)
}

/// The cases of one comparison resized so that a repetition of each
/// takes about `sizing.per_rep` (from its pilot where it needed one),
/// repeated `sizing.reps` times a batch. The cases of one scenario shrink
/// by one factor, so that a figure that is a total (poll-scale's seconds
/// for its requests) still compares between them: that of the one that
/// must shrink least, so that no repetition is shorter than `per_rep`
/// (poll-scale's cases over 0-10,240 idle connections differ 26x in cost:
/// shrunk as the slowest, the fastest ran 0.5 ms repetitions that the
/// scheduler's noise dominated).
pub(crate) fn resized(
    cases: &[&CaseSpec],
    pilots: &[Option<Piloted>],
    sizing: Sizing,
) -> Vec<CaseSpec> {
    let factors: Vec<Option<f64>> = cases
        .iter()
        .zip(pilots)
        .map(|(case, pilot)| factor(case, pilot.as_ref(), sizing))
        .collect();
    let common = |scenario: &str| {
        cases
            .iter()
            .zip(&factors)
            .filter(|(c, _)| c.scenario.name() == scenario)
            .filter_map(|(_, f)| *f)
            .fold(0.0, f64::max)
    };
    cases
        .iter()
        .zip(pilots)
        .zip(&factors)
        .map(|((case, pilot), f)| {
            let f = f.map(|_| common(case.scenario.name()));
            one(case, pilot.as_ref(), f, sizing)
        })
        .collect()
}

/// How much `case`'s planned work must shrink for a repetition to take
/// `sizing.per_rep` (at most 1), where its work is a number.
fn factor(case: &CaseSpec, pilot: Option<&Piloted>, sizing: Sizing) -> Option<f64> {
    let spec = work_param(case)?;
    let planned = spec.int(&case.values)? as f64;
    let per_rep = sizing.per_rep.as_secs_f64();
    let fits = match (spec.kind, pilot) {
        (ParamKind::Duration, _) => per_rep * 1e9,
        (_, Some(p)) => {
            let piloted = spec.int(&p.case.values)?.max(1) as f64;
            per_rep / (p.took.as_secs_f64() / piloted).max(1e-12)
        }
        (_, None) => return None,
    };
    Some((fits / planned).min(1.0))
}

/// `case` with its work shrunk by `factor` (within `MIN_WORK`), or as its
/// scenario reads it off the pilot, and `sizing.reps` repetitions; a
/// case without a work parameter to size stays as it is.
fn one(case: &CaseSpec, pilot: Option<&Piloted>, factor: Option<f64>, sizing: Sizing) -> CaseSpec {
    let Some(spec) = work_param(case) else {
        let repeat = case.scenario.round_reps(case).unwrap_or(case.repeat);
        return CaseSpec {
            repeat,
            ..case.clone()
        };
    };
    let mut sized = CaseSpec {
        repeat: sizing.reps,
        ..case.clone()
    };
    let work = match (factor, spec.int(&case.values)) {
        (Some(f), Some(planned)) => {
            let floor = match spec.kind {
                ParamKind::Duration => 1,
                _ => MIN_WORK.min(planned),
            };
            Some(((planned as f64 * f).round() as u64).clamp(floor, planned))
        }
        _ => pilot.and_then(|p| case.scenario.work_from_pilot(p.result, sizing.per_rep)),
    };
    if let Some(work) = work {
        sized.values.insert(spec.name, Value::Int(work.max(1)));
    }
    sized
}

/// The parameter that sets one repetition's work in `case`, unless the
/// user fixed it.
fn work_param(case: &CaseSpec) -> Option<&'static ParamSpec> {
    case.scenario.batch_work().filter(|_| !case.work_fixed)
}

/// "count=812 a repetition, 3 repetitions a round (each sized to 10ms)".
/// Empty for a case whose batches keep their planned size.
pub(crate) fn describe(sized: &CaseSpec, sizing: Sizing) -> String {
    let Some((name, work)) =
        work_param(sized).and_then(|spec| Some((spec.name, sized.values.get(spec.name)?)))
    else {
        return match sized.scenario.round_reps(sized) {
            Some(reps) => format!("{reps} repetitions a round"),
            None => String::new(),
        };
    };
    format!(
        "{name}={work} a repetition, {} repetitions a round (each sized to {})",
        sizing.reps,
        humantime::format_duration(sizing.per_rep)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pingpong(mech: &str, count: u64) -> CaseSpec {
        let plan = crate::plan::of_args(&[
            "pingpong",
            &format!("--mech={mech}"),
            "--placement=same-cpu",
            "-p",
            &format!("count={count}"),
        ])
        .unwrap();
        plan.cases[0].clone()
    }

    const SIZING: Sizing = Sizing {
        per_rep: Duration::from_millis(10),
        reps: 3,
    };

    fn count(case: &CaseSpec) -> u64 {
        case.int(case.scenario.batch_work().unwrap())
    }

    fn sized_alone(case: &CaseSpec, took: Duration) -> CaseSpec {
        let pilot = pilot(case).unwrap();
        let result = CaseResult::new("pingpong", "x", Default::default());
        let piloted = Piloted {
            case: &pilot,
            took,
            result: &result,
        };
        resized(&[case], &[Some(piloted)], SIZING).remove(0)
    }

    #[test]
    fn a_count_is_scaled_from_its_pilot_within_its_floor_and_plan() {
        let case = pingpong("pipe", 10_000);
        let pilot = pilot(&case).unwrap();
        assert_eq!((count(&pilot), pilot.repeat), (625, 1));
        // 625 round trips in 25 ms: 40 us each, 250 fit in 10 ms.
        let sized = sized_alone(&case, Duration::from_millis(25));
        assert_eq!((count(&sized), sized.repeat), (250, 3));
        // Never larger than planned, never below the floor.
        assert_eq!(
            count(&sized_alone(&case, Duration::from_micros(10))),
            10_000
        );
        assert_eq!(count(&sized_alone(&case, Duration::from_secs(100))), 64);
        assert!(describe(&sized, SIZING).starts_with("count=250 a repetition, 3 repetitions"));
    }

    #[test]
    fn the_cases_of_one_scenario_shrink_by_one_factor() {
        let (a, b) = (pingpong("pipe", 10_000), pingpong("eventfd", 20_000));
        let (pa, pb) = (pilot(&a).unwrap(), pilot(&b).unwrap());
        let result = CaseResult::new("pingpong", "x", Default::default());
        let piloted = |case, ms| Piloted {
            case,
            took: Duration::from_millis(ms),
            result: &result,
        };
        // A fits 250 of its 10,000 (1/40), B 625 of its 20,000 (1/32):
        // both shrink by 1/32, so that neither repetition is under 10 ms.
        let pilots = [Some(piloted(&pa, 25)), Some(piloted(&pb, 20))];
        let sized = resized(&[&a, &b], &pilots, SIZING);
        assert_eq!((count(&sized[0]), count(&sized[1])), (313, 625));
    }

    #[test]
    fn a_fixed_work_parameter_is_kept_and_needs_no_pilot() {
        let mut case = pingpong("pipe", 2000);
        case.work_fixed = true;
        assert!(pilot(&case).is_none());
        let sized = resized(&[&case], &[None], SIZING).remove(0);
        assert_eq!((count(&sized), sized.repeat), (2000, case.repeat));
    }
}
