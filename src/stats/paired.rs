//! The paired figure of two cases measured in interleaved rounds: the
//! ratio of their headlines within each round, then the median of those
//! ratios with its order-statistic interval over the rounds, at the level
//! that keeps every look of a decision taken while the rounds come in
//! honest (`looks.rs`). A host that slows
//! down for a while slows both cases of the rounds it spans alike, so
//! their ratio does not move, where two medians of cases measured minutes
//! apart would (Abedi and Brecht, ICPE 2017: randomized multiple
//! interleaved trials).

use super::estimators::median;
use super::looks::median_interval;

/// `b / a` per round, and its median with its interval over the rounds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PairedRatio {
    pub(crate) per_round: Vec<f64>,
    pub(crate) median: f64,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
}

impl PairedRatio {
    /// Half its interval's width relative to its median.
    pub(crate) fn relative(&self) -> f64 {
        (self.hi - self.lo) / 2.0 / self.median.abs().max(f64::MIN_POSITIVE)
    }
}

/// The paired ratio of two series of one value per round, or None with
/// fewer rounds both measured with a value above zero than its interval
/// needs (`looks::FIRST_LOOK`): then nothing is decided.
pub(crate) fn ratio(a: &[f64], b: &[f64]) -> Option<PairedRatio> {
    let per_round = per_round(a, b);
    let (lo, hi) = median_interval(&per_round)?;
    let median = median(&mut per_round.clone());
    Some(PairedRatio {
        per_round,
        median,
        lo: lo.min(median),
        hi: hi.max(median),
    })
}

/// `b / a` in each round where both were measured above zero.
pub(crate) fn per_round(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .filter(|(x, y)| **x > 0.0 && **y > 0.0)
        .map(|(x, y)| y / x)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` rounds of a case costing `cost`, the host 2x slower from the
    /// middle of the run on, with a small wobble that differs by round.
    fn drifting(n: usize, cost: f64) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let slow = if i >= n / 2 { 2.0 } else { 1.0 };
                let wobble = 1.0 + 0.01 * ((i * 7 % 5) as f64 - 2.0);
                cost * slow * wobble
            })
            .collect()
    }

    #[test]
    fn a_drift_that_slows_both_cases_of_a_round_does_not_move_the_ratio() {
        let (a, b) = (drifting(30, 100.0), drifting(30, 100.0));
        let p = ratio(&a, &b).unwrap();
        assert_eq!(p.median, 1.0);
        assert!(p.lo >= 0.99 && p.hi <= 1.01, "{p:?}");
        // B 10% dearer in every round: found, however the host drifts.
        let b: Vec<f64> = a.iter().map(|x| x * 1.1).collect();
        let p = ratio(&a, &b).unwrap();
        assert!((p.median - 1.1).abs() < 1e-9 && p.lo > 1.05, "{p:?}");
    }

    #[test]
    fn the_same_drift_between_sequential_blocks_makes_a_difference_of_nothing() {
        // All of A first, then all of B: A's rounds see the fast host,
        // B's the slow one.
        let host = drifting(60, 100.0);
        let (a, b) = host.split_at(30);
        let p = ratio(a, b).unwrap();
        assert!(
            p.lo > 1.05,
            "sequential blocks read identical cases as different: {p:?}"
        );
    }

    #[test]
    fn fewer_usable_rounds_than_the_interval_needs_give_no_figure() {
        assert_eq!(ratio(&[1.0], &[2.0]), None);
        assert_eq!(ratio(&[1.0; 8], &[2.0; 8]), None);
        let mut a = vec![1.0; 9];
        assert!(ratio(&a, &[2.0; 9]).is_some());
        a[0] = 0.0;
        assert_eq!(ratio(&a, &[2.0; 9]), None);
        assert_eq!(per_round(&a, &[2.0; 9]).len(), 8);
    }
}
