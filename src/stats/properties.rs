//! The statistics checked as properties, in the style of criterion's
//! `stats` tests: intervals against distributions whose median is known,
//! drawn from fixed seeds and counted (how often an interval misses, how
//! often identical cases would be called different), and the estimators'
//! invariants over arbitrary values (proptest).

use super::estimators::median;
use super::looks::{self, median_interval, rank_below};
use super::paired;
use super::xorshift::XorShift;
use proptest::prelude::*;

/// Samples drawn per sample size.
const SAMPLES: usize = 10_000;
/// The rounds of the seeds suites at most (`runner::interleaved`): the
/// last look of an A/A comparison that never stops early.
const LAST_ROUND: usize = 500;
/// A/A comparisons run through every look.
const COMPARISONS: usize = 2_000;

/// An exponential draw of rate 1: skewed, its median ln 2.
fn exponential(rng: &mut XorShift) -> f64 {
    -rng.unit().ln()
}

/// A lognormal draw (mu 0, sigma 1): heavy right tail, its median 1.
fn lognormal(rng: &mut XorShift) -> f64 {
    rng.normal().exp()
}

/// The rounds at which the rounds may stop early: 9, 14, 21, ... 365.
fn look_rounds() -> Vec<usize> {
    (1..=LAST_ROUND).filter(|&n| looks::is_look(n)).collect()
}

/// Of `SAMPLES` samples of `n` exponential draws, how many give an
/// `interval` that misses the true median.
fn misses(n: usize, seed: u64, interval: impl Fn(&[f64]) -> (f64, f64)) -> usize {
    let mut rng = XorShift::new(seed);
    let truth = std::f64::consts::LN_2;
    let mut missed = 0;
    for _ in 0..SAMPLES {
        let sample: Vec<f64> = (0..n).map(|_| exponential(&mut rng)).collect();
        let (lo, hi) = interval(&sample);
        missed += usize::from(truth < lo || hi < truth);
    }
    missed
}

#[test]
fn the_order_statistics_interval_covers_a_skewed_median_at_every_look() {
    for n in look_rounds() {
        let missed = misses(n, 0x5EED + n as u64, |s| median_interval(s).unwrap());
        println!("n={n}: {missed} of {SAMPLES} intervals miss the median");
        assert!(
            missed <= SAMPLES / 100,
            "{n} values: {missed} of {SAMPLES} 99.5% intervals miss the median"
        );
    }
}

#[test]
fn an_interval_one_rank_narrower_misses_too_often_so_the_count_bites() {
    // 9 values: the 2nd lowest to 2nd highest cover the median with
    // 1 - 2 * 10/512 = 96.1%, not 99%.
    let narrower = |s: &[f64]| {
        let mut sorted = s.to_vec();
        sorted.sort_by(f64::total_cmp);
        (sorted[1], sorted[s.len() - 2])
    };
    let missed = misses(9, 0x5EED, narrower);
    println!("n=9, one rank in: {missed} of {SAMPLES} miss");
    assert!(missed > SAMPLES / 100, "{missed}");
}

/// Of `COMPARISONS` A/A comparisons (both cases the same lognormal, the
/// host drifting alike for both within a round), how many would stop
/// with identical cases called different: at some round that `looks_at`,
/// the `interval` of the paired ratio (of rounds A, B) excludes 1.
fn false_stops(looks_at: &[usize], interval: impl Fn(&[f64], &[f64]) -> (f64, f64)) -> usize {
    let mut rng = XorShift::new(0xA_A);
    let mut stopped = 0;
    for _ in 0..COMPARISONS {
        let mut a = Vec::with_capacity(LAST_ROUND);
        let mut b = Vec::with_capacity(LAST_ROUND);
        for round in 0..LAST_ROUND {
            let host = if round % 50 < 25 { 1.0 } else { 1.7 };
            a.push(host * lognormal(&mut rng));
            b.push(host * lognormal(&mut rng));
        }
        let misleads = |&n: &usize| {
            let (lo, hi) = interval(&a[..n], &b[..n]);
            lo > 1.0 || hi < 1.0
        };
        stopped += usize::from(looks_at.iter().any(misleads));
    }
    stopped
}

#[test]
fn the_looks_call_identical_cases_different_less_than_one_time_in_twenty() {
    let mut at = look_rounds();
    at.push(LAST_ROUND);
    assert_eq!(at.len(), looks::LOOKS);
    let code = |a: &[f64], b: &[f64]| {
        let p = paired::ratio(a, b).unwrap();
        (p.lo, p.hi)
    };
    let stopped = false_stops(&at, code);
    println!("{stopped} of {COMPARISONS} A/A comparisons stop on a difference");
    assert!(stopped * 20 < COMPARISONS, "{stopped} of {COMPARISONS}");
    // The same looks at 95% each: the peeking the schedule guards against.
    let at_95 = |a: &[f64], b: &[f64]| {
        let mut ratios = paired::per_round(a, b);
        ratios.sort_by(f64::total_cmp);
        let k = rank_below(ratios.len(), 0.025);
        (ratios[k], ratios[ratios.len() - 1 - k])
    };
    let peeking = false_stops(&at, at_95);
    println!("at 95% per look: {peeking} of {COMPARISONS}");
    assert!(peeking * 20 > COMPARISONS, "{peeking} of {COMPARISONS}");
}

/// Values a run could hold: positive, finite, not all alike in scale.
fn values(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(1e-3..1e6f64, len)
}

proptest! {
    #[test]
    fn the_median_lies_between_the_extremes_whatever_the_order(
        mut xs in values(1..200), k in 0usize..200
    ) {
        let m = median(&mut xs.clone());
        let lowest = xs.iter().cloned().fold(f64::MAX, f64::min);
        let highest = xs.iter().cloned().fold(0.0, f64::max);
        prop_assert!(lowest <= m && m <= highest);
        let len = xs.len();
        xs.rotate_left(k % len);
        prop_assert_eq!(median(&mut xs), m);
    }

    #[test]
    fn the_interval_holds_the_median_and_scales_with_the_values(
        xs in values(looks::FIRST_LOOK..400), scale in 1e-3..1e3f64
    ) {
        let (lo, hi) = median_interval(&xs).unwrap();
        let m = median(&mut xs.clone());
        prop_assert!(lo <= m && m <= hi);
        let scaled: Vec<f64> = xs.iter().map(|x| x * scale).collect();
        prop_assert_eq!(median_interval(&scaled), Some((lo * scale, hi * scale)));
    }

    #[test]
    fn a_drift_both_cases_share_leaves_the_paired_ratio(
        a in values(looks::FIRST_LOOK..100), host in values(100..101), cost in 0.5..2.0f64
    ) {
        let b: Vec<f64> = a.iter().map(|x| x * cost).collect();
        let drifted = |v: &[f64]| -> Vec<f64> {
            v.iter().zip(&host).map(|(x, h)| x * h).collect()
        };
        let calm = paired::ratio(&a, &b).unwrap();
        let moved = paired::ratio(&drifted(&a), &drifted(&b)).unwrap();
        prop_assert!((calm.median - moved.median).abs() <= 1e-9 * calm.median);
        prop_assert!((calm.median - cost).abs() <= 1e-9 * cost);
    }
}
