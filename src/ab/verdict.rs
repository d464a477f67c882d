//! What a paired ratio says, decided by an equivalence band: the two cases
//! are about the same when the ratio's whole interval (`stats::paired`:
//! at a level that keeps every look honest) lies inside
//! `1 ± band`, one is faster when the interval lies wholly beyond an edge,
//! and nothing is said while the interval straddles an edge: then the
//! verdict names what would decide it.

use crate::stats::paired::PairedRatio;

/// The verdict on B against A.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Said {
    /// The interval lies inside the band.
    Same,
    /// Case `winner` (0: A, 1: B) is faster by `by` (at least 1).
    Faster { winner: usize, by: f64 },
    /// The interval straddles the band's `edge`.
    Undecided { edge: f64 },
}

/// The band's edges for a ratio: `1 / (1 + band)` and `1 + band`, so that
/// B/A and A/B read alike.
pub(crate) fn edges(band: f64) -> (f64, f64) {
    (1.0 / (1.0 + band), 1.0 + band)
}

/// The verdict the paired ratio B/A gives, `higher_is_better` saying
/// whether a larger headline is the faster (a rate) or the slower (a time).
pub(crate) fn judge(p: &PairedRatio, band: f64, higher_is_better: bool) -> Said {
    let (low, high) = edges(band);
    let b_is_larger = match (p.lo > high, p.hi < low) {
        (true, _) => true,
        (_, true) => false,
        _ if p.lo >= low && p.hi <= high => return Said::Same,
        _ => {
            let edge = if p.lo < low { low } else { high };
            return Said::Undecided { edge };
        }
    };
    let winner = usize::from(b_is_larger == higher_is_better);
    let by = if b_is_larger {
        p.median
    } else {
        1.0 / p.median
    };
    Said::Faster { winner, by }
}

/// What would decide an undecided comparison, in words.
pub(crate) fn to_decide(p: &PairedRatio, edge: f64) -> String {
    let half = (p.hi - p.lo) / 2.0 / p.median;
    let apart = (p.median - edge).abs() / p.median;
    match apart > half / 4.0 {
        true => format!(
            "the interval (±{:.1}%) reaches the band's edge {}: more rounds (--max-rounds, \
             --time-cap) would narrow it",
            half * 100.0,
            crate::format::ratio(edge)
        ),
        false => format!(
            "the ratio lies on the band's edge {}: the difference is about the band's size, \
             so more rounds decide it only slowly; a --band that says what matters to you \
             would",
            crate::format::ratio(edge)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paired(median: f64, lo: f64, hi: f64) -> PairedRatio {
        PairedRatio {
            per_round: vec![median; 10],
            median,
            lo,
            hi,
        }
    }

    #[test]
    fn inside_the_band_is_the_same_beyond_it_one_is_faster() {
        assert_eq!(judge(&paired(1.0, 0.97, 1.03), 0.05, false), Said::Same);
        // B takes 1.2x A's time: A is faster.
        let slower_b = judge(&paired(1.2, 1.15, 1.25), 0.05, false);
        assert_eq!(slower_b, Said::Faster { winner: 0, by: 1.2 });
        // B moves 1.2x A's bytes per second: B is faster.
        let faster_b = judge(&paired(1.2, 1.15, 1.25), 0.05, true);
        assert_eq!(faster_b, Said::Faster { winner: 1, by: 1.2 });
        let Said::Faster { winner: 1, by } = judge(&paired(0.8, 0.78, 0.82), 0.05, false) else {
            panic!("B takes 0.8x A's time: B is faster");
        };
        assert!((by - 1.25).abs() < 1e-9);
    }

    #[test]
    fn an_a_a_comparison_under_drift_reads_about_the_same() {
        // One case against itself over 40 rounds: the host 2x slower for
        // the middle 20, each measurement off by up to ±3%.
        let host = |i: usize| if (10..30).contains(&i) { 2.0 } else { 1.0 };
        let jitter = |i: usize, k: usize| 1.0 + 0.03 * (((i * 13 + k * 7) % 11) as f64 / 5.0 - 1.0);
        let a: Vec<f64> = (0..40).map(|i| 20e3 * host(i) * jitter(i, 0)).collect();
        let b: Vec<f64> = (0..40).map(|i| 20e3 * host(i) * jitter(i, 1)).collect();
        let p = crate::stats::paired::ratio(&a, &b).unwrap();
        assert_eq!(judge(&p, 0.05, false), Said::Same, "{p:?}");
    }

    #[test]
    fn an_interval_straddling_an_edge_is_undecided_and_says_what_would_decide() {
        let p = paired(1.04, 1.0, 1.08);
        let Said::Undecided { edge } = judge(&p, 0.05, false) else {
            panic!("straddles 1.05");
        };
        assert_eq!(edge, 1.05);
        assert!(
            to_decide(&p, edge).contains("more rounds"),
            "{}",
            to_decide(&p, edge)
        );
        let on_edge = paired(1.05, 1.0, 1.1);
        assert!(to_decide(&on_edge, 1.05).contains("about the band's size"));
    }
}
