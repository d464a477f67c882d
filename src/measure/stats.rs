//! Statistics over repetitions: the headline is the median, the spread is
//! min..max, all kept so reports can draw error bars.

use crate::model::Metric;

/// Median of `values` (sorted in place); NaN for an empty slice.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// A metric whose value is the median of the per-repetition values.
pub fn metric(reps: Vec<f64>, unit: &str) -> Metric {
    let mut sorted = reps.clone();
    let value = median(&mut sorted);
    Metric {
        value,
        unit: unit.to_string(),
        min: sorted.first().copied(),
        max: sorted.last().copied(),
        reps,
    }
}

/// True when the two metrics' min..max ranges do not overlap: the
/// difference is larger than the spread of repetitions.
pub(crate) fn clearly_differs(a: &Metric, b: &Metric) -> bool {
    let (a_lo, a_hi) = (a.min.unwrap_or(a.value), a.max.unwrap_or(a.value));
    let (b_lo, b_hi) = (b.min.unwrap_or(b.value), b.max.unwrap_or(b.value));
    a_hi < b_lo || b_hi < a_lo
}

/// Jain's fairness index: (sum x)^2 / (n * sum x^2); 1 when all are equal.
pub(crate) fn jain(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let squares: f64 = xs.iter().map(|x| x * x).sum();
    if squares == 0.0 {
        return 1.0;
    }
    sum * sum / (xs.len() as f64 * squares)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_when_equal_and_one_over_n_when_one_takes_all() {
        assert_eq!(jain(&[5.0, 5.0, 5.0, 5.0]), 1.0);
        assert_eq!(jain(&[8.0, 0.0, 0.0, 0.0]), 0.25);
        assert!((jain(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn median_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn metric_keeps_reps_in_order_and_spread() {
        let m = metric(vec![5.0, 1.0, 3.0], "ns");
        assert_eq!(m.value, 3.0);
        assert_eq!(m.min, Some(1.0));
        assert_eq!(m.max, Some(5.0));
        assert_eq!(m.reps, vec![5.0, 1.0, 3.0]);
    }

    #[test]
    fn overlap_is_not_a_difference() {
        let a = metric(vec![1.0, 2.0, 3.0], "ns");
        let b = metric(vec![2.5, 4.0, 5.0], "ns");
        let c = metric(vec![4.0, 5.0, 6.0], "ns");
        assert!(!clearly_differs(&a, &b));
        assert!(clearly_differs(&a, &c));
    }
}
