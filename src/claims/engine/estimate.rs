//! A figure with its 95% interval: what every rule reduces its results to
//! before it weighs them against the claim's boundaries.

/// A figure and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Estimate {
    pub(crate) value: f64,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
}

impl Estimate {
    /// The interval as relative half-width, e.g. 0.06 for ±6%.
    pub(crate) fn relative(&self) -> f64 {
        relative(self.value, self.lo, self.hi)
    }
}

/// Half the interval `lo..hi` relative to `value`.
pub(crate) fn relative(value: f64, lo: f64, hi: f64) -> f64 {
    if value == 0.0 {
        return 0.0;
    }
    ((hi - lo) / 2.0 / value).abs()
}
