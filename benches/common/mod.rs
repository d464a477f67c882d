//! What the whole-command benches share: how many pairs to run (the first
//! numeric argument, `cargo bench --bench NAME -- PAIRS`) and the median of
//! what they measured.

/// The pairs asked for on the command line, else `default`.
pub fn pairs(default: usize) -> usize {
    std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(default)
}

/// The median of `values` (sorted in place): the mean of the middle two
/// of an even count.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    (values[(n - 1) / 2] + values[n / 2]) / 2.0
}
