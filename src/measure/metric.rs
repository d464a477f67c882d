//! A metric from its repetitions: the headline is the median, the spread
//! is min..max, all kept so reports can draw error bars.

use crate::model::Metric;
use crate::stats::estimators::median;

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

#[cfg(test)]
mod tests {
    use super::*;

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
