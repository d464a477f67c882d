//! Run-to-run drift: how far a figure moved between this host's runs. A
//! run's repetitions agree with each other while the host stays in one
//! phase, so the interval they give cannot show that the next run, in
//! another phase, measures 20% more. That is why a claim weighs two cases
//! by their ratio within interleaved rounds of one run; the drift is shown
//! beside a figure as context ("runs ±12% over 6 runs"), never weighed.

/// Runs a drift is read over at least, this one included.
pub(crate) const MIN_RUNS: usize = 3;

/// The expected range of n samples of a normal distribution in standard
/// deviations (Tippett's d2), for n = 2 to 11: the range of a few runs'
/// figures says how far they scatter only once divided by it.
const RANGE_IN_SIGMAS: [f64; 10] = [
    1.128, 1.693, 2.059, 2.326, 2.534, 2.704, 2.847, 2.970, 3.078, 3.173,
];

/// Standard deviations either side of a 95% interval.
const Z95: f64 = 1.96;

/// How far a figure moved across runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Drift {
    /// The 95% half-width of the runs' scatter, relative: the spread of
    /// their figures' logarithms estimated from their range (`RANGE_IN_SIGMAS`),
    /// times 1.96. Three runs spanning 1.21x give ±25%.
    pub(crate) relative: f64,
    /// The runs it was read over, this one included.
    pub(crate) runs: usize,
}

impl Drift {
    /// The drift of a figure that is `now` in this run and `past` in the
    /// earlier ones; None over fewer than `MIN_RUNS` positive figures.
    pub(crate) fn over(now: f64, past: &[f64]) -> Option<Drift> {
        let all: Vec<f64> = std::iter::once(now)
            .chain(past.iter().copied())
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        if all.len() < MIN_RUNS {
            return None;
        }
        let max = all.iter().copied().fold(f64::MIN, f64::max);
        let min = all.iter().copied().fold(f64::MAX, f64::min);
        let n = all.len().min(RANGE_IN_SIGMAS.len() + 1);
        let sigma = (max / min).ln() / RANGE_IN_SIGMAS[n - 2];
        Some(Drift {
            relative: (Z95 * sigma).exp() - 1.0,
            runs: all.len(),
        })
    }

    /// "±12% over 6 runs".
    pub(crate) fn text(&self) -> String {
        format!(
            "{} over {} runs",
            super::numbers::plus_minus(self.relative),
            self.runs
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_is_the_95_percent_scatter_the_runs_range_implies_and_needs_three() {
        assert_eq!(Drift::over(100.0, &[121.0]), None);
        assert_eq!(Drift::over(100.0, &[121.0, 0.0, f64::NAN]), None);
        // ln(1.21) / 1.693 = 0.1126 sigmas; e^(1.96 * 0.1126) = 1.247.
        let d = Drift::over(110.0, &[121.0, 100.0]).unwrap();
        assert!((d.relative - 0.2468).abs() < 1e-3, "{d:?}");
        assert_eq!((d.runs, d.text()), (3, "±25% over 3 runs".to_string()));
        // Eleven runs over the same span scatter less than three do.
        let many = [
            100.0, 121.0, 110.0, 105.0, 115.0, 108.0, 112.0, 103.0, 118.0, 111.0,
        ];
        let d11 = Drift::over(110.0, &many).unwrap();
        assert!(d11.relative < d.relative && d11.runs == 11, "{d11:?}");
    }
}
