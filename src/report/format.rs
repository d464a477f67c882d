//! Shared number formatting for the human-facing formats (table, later
//! markdown and html): one place decides how a nanosecond count or a byte
//! rate reads, so every format agrees. Machine formats (JSON, CSV) keep the
//! raw numbers and do not use this module.

use crate::model::Metric;

/// Decimal (SI) prefixes from 10^3 upward, paired with their factor.
const SI_UP: [(&str, f64); 4] = [("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)];

/// Time scales for a value in nanoseconds.
const TIME_NS: [(&str, f64); 4] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];

/// Readable text for `value` in `unit`, with three significant digits:
/// `812 ns`, `12.3 us`, `1.23 GB/s`, `456 k/s`. Units this function does
/// not know fall back to three significant digits followed by the unit.
pub fn human(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return join(&value.to_string(), unit);
    }
    let value = round_sig3(value);
    match unit {
        "ns" => scaled_time(value),
        "s" => scaled_time(value * 1e9),
        "bytes/s" | "B/s" => scaled_si(value, "B/s"),
        "1/s" => scaled_si(value, "/s"),
        _ => join(&sig3(value), unit),
    }
}

/// The spread of a metric's repetitions as `±x%`: half the min-max range
/// relative to the median. `None` without min/max or with a zero median.
pub fn spread(metric: &Metric) -> Option<String> {
    let (min, max) = (metric.min?, metric.max?);
    if metric.value == 0.0 || !metric.value.is_finite() {
        return None;
    }
    let pct = (max - min).abs() / 2.0 / metric.value.abs() * 100.0;
    Some(if pct < 1.0 {
        format!("±{pct:.1}%")
    } else {
        format!("±{pct:.0}%")
    })
}

/// A nanosecond value in the largest time unit that keeps it at or above 1.
fn scaled_time(ns: f64) -> String {
    let (name, factor) = pick_scale(ns, &TIME_NS);
    join(&sig3(round_sig3(ns / factor)), name)
}

/// A rate with a decimal prefix in front of `suffix` (`B/s` or `/s`).
fn scaled_si(value: f64, suffix: &str) -> String {
    let mut scales = vec![("", 1.0)];
    scales.extend(SI_UP);
    let (prefix, factor) = pick_scale(value, &scales);
    join(
        &sig3(round_sig3(value / factor)),
        &format!("{prefix}{suffix}"),
    )
}

/// The last scale whose factor is not above `|value|` (the first for tiny values).
fn pick_scale<'a>(value: f64, scales: &[(&'a str, f64)]) -> (&'a str, f64) {
    let abs = value.abs();
    scales
        .iter()
        .rev()
        .find(|(_, factor)| abs >= *factor)
        .copied()
        .unwrap_or(scales[0])
}

/// `value` rounded to three significant digits; done before picking a
/// scale so that 999.6 ns becomes `1.00 us`, not `1000 ns`.
fn round_sig3(value: f64) -> f64 {
    if value == 0.0 {
        return 0.0;
    }
    let step = 10f64.powi(value.abs().log10().floor() as i32 - 2);
    (value / step).round() * step
}

/// Print an already rounded value with as many decimals as three
/// significant digits need: `8.12`, `81.2`, `812`, `0.0812`, `8120`.
fn sig3(value: f64) -> String {
    let abs = value.abs();
    if abs == 0.0 || abs >= 100.0 {
        return format!("{value:.0}");
    }
    let decimals = (2 - abs.log10().floor() as i32).max(0) as usize;
    format!("{value:.decimals$}")
}

fn join(number: &str, unit: &str) -> String {
    if unit.is_empty() {
        number.to_string()
    } else {
        format!("{number} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_exact_strings() {
        let cases: &[(f64, &str, &str)] = &[
            (812.0, "ns", "812 ns"),
            (81.24, "ns", "81.2 ns"),
            (0.5, "ns", "0.500 ns"),
            (0.0, "ns", "0 ns"),
            (12_345.0, "ns", "12.3 us"),
            (4_561_000.0, "ns", "4.56 ms"),
            (1_199_999_999.0, "ns", "1.20 s"),
            (999.6, "ns", "1.00 us"),
            (999_499.0, "ns", "999 us"),
            (3_600e9, "ns", "3600 s"),
            (0.0012, "s", "1.20 ms"),
            (1.234e9, "bytes/s", "1.23 GB/s"),
            (456.2e6, "bytes/s", "456 MB/s"),
            (12_000.0, "bytes/s", "12.0 kB/s"),
            (999.0, "bytes/s", "999 B/s"),
            (2.5e12, "bytes/s", "2.50 TB/s"),
            (1.234e6, "1/s", "1.23 M/s"),
            (456_000.0, "1/s", "456 k/s"),
            (9.996e5, "1/s", "1.00 M/s"),
            (42.0, "1/s", "42.0 /s"),
            (0.1234, "x", "0.123 x"),
            (1234.4, "fds", "1230 fds"),
            (-12.34, "%", "-12.3 %"),
            (1.0, "", "1.00"),
            (f64::NAN, "ns", "NaN ns"),
        ];
        for (value, unit, want) in cases {
            assert_eq!(human(*value, unit), *want, "human({value}, {unit:?})");
        }
    }

    fn metric(value: f64, min: Option<f64>, max: Option<f64>) -> Metric {
        Metric {
            value,
            unit: "ns".into(),
            min,
            max,
            reps: Vec::new(),
        }
    }

    #[test]
    fn spread_is_half_range_over_median() {
        assert_eq!(
            spread(&metric(100.0, Some(97.0), Some(103.0))),
            Some("±3%".into())
        );
        assert_eq!(
            spread(&metric(1000.0, Some(996.0), Some(1004.0))),
            Some("±0.4%".into())
        );
        assert_eq!(spread(&metric(100.0, None, Some(103.0))), None);
        assert_eq!(spread(&metric(0.0, Some(0.0), Some(1.0))), None);
    }
}
