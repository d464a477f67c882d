//! Deciding while the rounds come in, without fooling oneself. A 95%
//! interval checked after every round and trusted the first time it
//! clears a boundary misleads far more often than one time in twenty:
//! every look is another chance for the noise to cross. So the rounds are
//! looked at on a fixed schedule (9 rounds, then half as many again each
//! time: 14, 21, 32, ...), at most `LOOKS` times counting the last, and
//! each look uses the median's interval at `1 - 5% / LOOKS`: the chance
//! that any look misleads stays under 5% (Bonferroni). The interval is the
//! distribution-free one from order statistics (the binomial sign-test
//! interval): it assumes nothing of the rounds' shape, heavy tails
//! included, where a bootstrap of a few rounds' median is too narrow.

/// The first look: the fewest rounds whose widest interval (their lowest
/// and highest value) has the confidence `LEVEL` asks.
pub(crate) const FIRST_LOOK: usize = 9;
/// Looks at most, the last one (the time cap's or the round limit's)
/// included.
pub(crate) const LOOKS: usize = 11;
/// The chance, over all looks, that an interval misses the true median.
const ERROR: f64 = 0.05;
/// The confidence of each look's interval.
pub(crate) const LEVEL: f64 = 1.0 - ERROR / LOOKS as f64;

/// Whether the rounds may stop early after `rounds` of them: the first
/// `LOOKS - 1` points of 9, 14, 21, 32, ... (each half again, rounded up).
pub(crate) fn is_look(rounds: usize) -> bool {
    std::iter::successors(Some(FIRST_LOOK), |n| Some(n + n.div_ceil(2)))
        .take(LOOKS - 1)
        .any(|n| n == rounds)
}

/// "99.5%": the level of the interval, for the figures' text.
pub(crate) fn level_text() -> String {
    format!("{:.1}%", LEVEL * 100.0)
}

/// The interval of the median of `values` at `LEVEL` from their order
/// statistics, or None with fewer than `FIRST_LOOK`: below that even
/// their lowest and highest value bound the median less surely than
/// `LEVEL` says (8 rounds: 99.2%, 2 rounds: 50%).
pub(crate) fn median_interval(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < FIRST_LOOK {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let k = rank_below(sorted.len(), (1.0 - LEVEL) / 2.0);
    Some((sorted[k], sorted[sorted.len() - 1 - k]))
}

/// The largest `k` such that at most `k` of `n` values fall below the
/// median with chance at most `tail` (the binomial distribution of n fair
/// coins, summed from its low end), or 0 when no `k` is that unlikely.
/// Then the `k`-th lowest and highest values (from 0) bound the median
/// with confidence `1 - 2 tail`.
pub(super) fn rank_below(n: usize, tail: f64) -> usize {
    let ln_half_n = n as f64 * std::f64::consts::LN_2;
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut below = 0.0;
    for i in 0..n / 2 {
        below += (ln_choose - ln_half_n).exp(); // now P(X <= i)
        if below > tail {
            return i.saturating_sub(1);
        }
        ln_choose += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    (n / 2).saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_looks_are_nine_then_half_again_ten_times() {
        let looks: Vec<usize> = (1..=1000).filter(|&n| is_look(n)).collect();
        assert_eq!(looks, [9, 14, 21, 32, 48, 72, 108, 162, 243, 365]);
        assert_eq!(level_text(), "99.5%");
    }

    #[test]
    fn the_interval_takes_the_order_statistics_the_binomial_allows() {
        // 9 values: P(all 9 on one side) = 2/512 = 0.4% <= 0.45%: the
        // extremes. 8 values (0.8%) cannot reach the level: no interval.
        let nine: Vec<f64> = (1..=9).map(f64::from).collect();
        assert_eq!(median_interval(&nine), Some((1.0, 9.0)));
        assert_eq!(median_interval(&nine[..8]), None);
        assert_eq!(median_interval(&nine[..2]), None);
        // 30 values: P(X <= 6) = 0.07% is within the tail of 0.23%,
        // P(X <= 7) = 0.26% is not: the 7th lowest and the 7th highest.
        let thirty: Vec<f64> = (1..=30).map(f64::from).collect();
        assert_eq!(median_interval(&thirty), Some((7.0, 24.0)));
        assert_eq!(median_interval(&[1.0]), None);
    }

    #[test]
    fn an_outlier_round_does_not_move_the_interval() {
        let mut rounds: Vec<f64> = (0..30).map(|i| 1.0 + f64::from(i) * 0.001).collect();
        let calm = median_interval(&rounds).unwrap();
        rounds[29] = 50.0;
        assert_eq!(median_interval(&rounds), Some(calm));
    }
}
