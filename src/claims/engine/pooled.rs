//! A figure judged over this host's runs, not this run alone. The host
//! shifts between phases for minutes at a time, so two runs in a row can
//! put the same figure 20% apart while each run's repetitions agree with
//! each other: a verdict on one run's figure flips with the phase. Where
//! the store holds the figure from earlier runs of this host and kernel
//! (`CaseResult::past`), the claims weigh the median of the runs' figures
//! (two cases' ratio taken run by run, so a phase that slows both cancels)
//! with a 95% interval from how far the runs scatter: runs in a row then
//! share most of what they are judged on, and a verdict changes only when
//! the host does.

use super::drift::Drift;
use super::estimate::Estimate;
use crate::measure::stats::median;

/// Runs a figure is judged over at least, this one included; with fewer,
/// a figure is this run's alone.
pub(crate) const MIN_RUNS: usize = super::drift::MIN_RUNS;

/// One run's figure of a value: `run` is None for this run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunFigure {
    pub(crate) run: Option<String>,
    pub(crate) value: f64,
}

/// The median of `figures` with a 95% interval: the runs' scatter as
/// their drift reads it (`drift.rs`, from their range) over the square
/// root of the runs, which narrows smoothly as runs accumulate where a
/// bootstrap over three to six runs jumps between their extremes; no
/// narrower than this run's relative half-width `within` shrunk alike (so
/// a few runs that agree by chance do not claim more than their
/// repetitions measured). None under `MIN_RUNS` positive figures.
pub(crate) fn estimate(figures: &[f64], within: f64) -> Option<Estimate> {
    let mut all: Vec<f64> = figures
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let drift = Drift::over(*all.first()?, all.get(1..)?)?;
    let root = (all.len() as f64).sqrt();
    let value = median(&mut all);
    let spread = (1.0 + drift.relative).powf(1.0 / root);
    let floor = within.abs() / root * value;
    Some(Estimate {
        value,
        lo: (value / spread).min(value - floor),
        hi: (value * spread).max(value + floor),
    })
}

/// `a / b` in every run that measured both, this run first.
pub(crate) fn ratios(a: &[RunFigure], b: &[RunFigure]) -> Vec<f64> {
    a.iter()
        .filter_map(|x| {
            let y = b.iter().find(|y| y.run == x.run)?;
            (y.value != 0.0).then(|| x.value / y.value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(run: Option<&str>, value: f64) -> RunFigure {
        RunFigure {
            run: run.map(str::to_string),
            value,
        }
    }

    #[test]
    fn three_runs_give_their_median_and_its_interval_fewer_give_none() {
        assert_eq!(estimate(&[1.0, 1.2], 0.01), None);
        assert_eq!(estimate(&[1.0, 1.2, f64::NAN], 0.01), None);
        // ln(1.2) over d2(3) = 1.693 is 0.108; its 95%, 1.96 x 0.108,
        // over the root of 3 runs: e^0.122 = 1.130 either side of 1.1.
        let e = estimate(&[1.0, 1.2, 1.1], 0.0).unwrap();
        assert_eq!(e.value, 1.1);
        assert!(
            (e.lo - 0.9738).abs() < 1e-3 && (e.hi - 1.2426).abs() < 1e-3,
            "{e:?}"
        );
        // One more run within their range narrows it.
        let four = estimate(&[1.0, 1.2, 1.1, 1.1], 0.0).unwrap();
        assert!(four.lo > e.lo && four.hi < e.hi, "{four:?} vs {e:?}");
    }

    #[test]
    fn runs_that_agree_by_chance_keep_this_runs_precision_over_their_root() {
        // Four identical figures, this run's repetitions ±10%: ±5%.
        let e = estimate(&[2.0; 4], 0.1).unwrap();
        assert!(
            (e.lo - 1.9).abs() < 1e-12 && (e.hi - 2.1).abs() < 1e-12,
            "{e:?}"
        );
    }

    #[test]
    fn a_ratio_is_taken_run_by_run_over_the_runs_both_measured() {
        let a = [
            figure(None, 10.0),
            figure(Some("r1"), 20.0),
            figure(Some("r2"), 30.0),
        ];
        let b = [
            figure(Some("r2"), 15.0),
            figure(None, 5.0),
            figure(Some("r3"), 1.0),
        ];
        assert_eq!(ratios(&a, &b), [2.0, 2.0]);
        assert!(ratios(&a, &[figure(Some("r1"), 0.0)]).is_empty());
    }
}
