//! Percentile bootstraps over repetitions, with a fixed seed so the same
//! values always give the same answer: the 95% interval of one median
//! (`--precision`: is the headline known closely enough?) and of the ratio
//! of two medians (`iolab compare`'s significance test). The PRNG is a
//! xorshift64* (`xorshift.rs`).
//!
//! Past `RESAMPLED_UP_TO` values a resample costs more than it tells (a
//! million repetitions would take 2000 passes over a million values, for
//! every reader that shows the `±`): the median of a resample is then drawn
//! from its distribution instead. It is the value at a rank of the sorted
//! values, and that rank is normal around the middle with a standard
//! deviation of half the root of their count, the bootstrap's own limit.

use super::estimators::median;
use super::xorshift::XorShift;

/// Resamples per interval.
pub(crate) const RESAMPLES: usize = 2000;
/// The most values resampled one by one; more draw each resample's median
/// from its distribution (`MedianDraws`).
const RESAMPLED_UP_TO: usize = 10_000;
/// Fixed seed: comparisons are reproducible.
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;
/// The interval covers the central 95% of resampled ratios.
const COVERAGE: f64 = 0.95;

/// The 95% interval of median(b)/median(a), or None with fewer than two
/// repetitions on either side (no spread to judge by).
pub(crate) fn ratio_interval(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let mut rng = XorShift::new(SEED);
    let (mut da, mut db) = (MedianDraws::of(a), MedianDraws::of(b));
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let ratio = db.draw(&mut rng) / da.draw(&mut rng);
            ratio.is_finite().then_some(ratio)
        })
        .collect();
    central(&mut ratios)
}

/// The 95% interval of the median of `values`, or None with fewer than two.
pub(crate) fn median_interval(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 2 {
        return None;
    }
    let mut rng = XorShift::new(SEED);
    let mut draws = MedianDraws::of(values);
    let mut medians: Vec<f64> = (0..RESAMPLES)
        .map(|_| draws.draw(&mut rng))
        .filter(|m| m.is_finite())
        .collect();
    central(&mut medians)
}

/// The median of one resample of some values after another.
enum MedianDraws<'a> {
    /// Up to `RESAMPLED_UP_TO` values: each draw resamples them.
    Resampled { from: &'a [f64], sample: Vec<f64> },
    /// More: the values sorted, each draw the value at a rank drawn from
    /// the distribution of a resample's median's rank.
    Ranked { sorted: Vec<f64> },
}

impl<'a> MedianDraws<'a> {
    fn of(values: &'a [f64]) -> MedianDraws<'a> {
        if values.len() <= RESAMPLED_UP_TO {
            let sample = vec![0.0; values.len()];
            return MedianDraws::Resampled {
                from: values,
                sample,
            };
        }
        let mut sorted = values.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        MedianDraws::Ranked { sorted }
    }

    fn draw(&mut self, rng: &mut XorShift) -> f64 {
        match self {
            MedianDraws::Resampled { from, sample } => {
                rng.resample(from, sample);
                median(sample)
            }
            MedianDraws::Ranked { sorted } => {
                let n = sorted.len() as f64;
                let rank = (n - 1.0) / 2.0 + n.sqrt() / 2.0 * rng.normal();
                sorted[rank.round().clamp(0.0, n - 1.0) as usize]
            }
        }
    }
}

/// Half the median's 95% interval in percent of the median: the one
/// meaning of `±` in every output. None with fewer than two values or a
/// zero median.
pub(crate) fn median_half_width_pct(values: &[f64]) -> Option<f64> {
    let (lo, hi) = median_interval(values)?;
    let median = median(&mut values.to_vec());
    (median != 0.0 && median.is_finite()).then(|| (hi - lo) / 2.0 / median.abs() * 100.0)
}

/// The central `COVERAGE` of `draws`, or None when there are none.
fn central(draws: &mut [f64]) -> Option<(f64, f64)> {
    if draws.is_empty() {
        return None;
    }
    draws.sort_by(f64::total_cmp);
    let tail = (1.0 - COVERAGE) / 2.0;
    Some((quantile(draws, tail), quantile(draws, 1.0 - tail)))
}

/// The value at quantile `q` of sorted `values` (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let index = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past `RESAMPLED_UP_TO` values the interval comes from the median's
    /// rank: about the middle value plus or minus the root of the count
    /// (the sign test's interval), whatever order the values are in.
    #[test]
    fn many_values_give_the_interval_of_the_median_s_rank() {
        let n: u64 = 1_000_000;
        let values: Vec<f64> = (0..n).map(|i| ((i * 7919) % n) as f64).collect();
        let (lo, hi) = median_interval(&values).unwrap();
        let half = 0.98 * (n as f64).sqrt();
        let mid = n as f64 / 2.0;
        assert!((lo - (mid - half)).abs() < 0.1 * half, "{lo}");
        assert!((hi - (mid + half)).abs() < 0.1 * half, "{hi}");
        let shifted: Vec<f64> = values.iter().map(|v| v * 2.0).collect();
        let (rlo, rhi) = ratio_interval(&values, &shifted).unwrap();
        assert!(rlo < 2.0 && rhi > 2.0 && rhi - rlo < 0.02, "{rlo}..{rhi}");
    }

    #[test]
    fn clear_difference_excludes_one() {
        let a = [100.0, 101.0, 99.0, 100.5, 99.5];
        let b = [150.0, 151.0, 149.0, 152.0, 148.0];
        let (lo, hi) = ratio_interval(&a, &b).unwrap();
        assert!(lo > 1.4 && hi < 1.6, "{lo}..{hi}");
    }

    #[test]
    fn overlapping_spreads_include_one() {
        let a = [100.0, 110.0, 90.0, 105.0, 95.0];
        let b = [102.0, 92.0, 108.0, 97.0, 111.0];
        let (lo, hi) = ratio_interval(&a, &b).unwrap();
        assert!(lo < 1.0 && hi > 1.0, "{lo}..{hi}");
    }

    #[test]
    fn median_interval_holds_the_median_and_narrows_with_the_spread() {
        let wide = [95.0, 97.5, 100.0, 102.5, 105.0];
        let narrow = [99.8, 99.9, 100.0, 100.1, 100.2];
        let (wl, wh) = median_interval(&wide).unwrap();
        let (nl, nh) = median_interval(&narrow).unwrap();
        assert!(wl <= 100.0 && wh >= 100.0 && wl < wh, "{wl}..{wh}");
        assert!(nh - nl < (wh - wl) / 10.0, "{nl}..{nh} vs {wl}..{wh}");
        assert_eq!(median_interval(&[1.0]), None);
    }

    #[test]
    fn same_inputs_same_interval_and_too_few_reps_none() {
        let a = [1.0, 2.0, 3.0];
        let b = [2.0, 3.0, 4.0];
        assert_eq!(ratio_interval(&a, &b), ratio_interval(&a, &b));
        assert_eq!(ratio_interval(&[1.0], &b), None);
    }

    #[test]
    fn median_interval_brackets_the_median_and_narrows_with_agreement() {
        let wide = [90.0, 100.0, 110.0, 95.0, 105.0];
        let (lo, hi) = median_interval(&wide).unwrap();
        assert!(
            lo <= 100.0 && hi >= 100.0 && lo >= 90.0 && hi <= 110.0,
            "{lo}..{hi}"
        );
        let same = [100.0; 8];
        assert_eq!(median_interval(&same), Some((100.0, 100.0)));
        assert_eq!(median_interval(&[100.0]), None);
    }
}
