//! Shared number formatting for every text a person reads (table, markdown,
//! html, compare, verdicts, claims): one place decides how a nanosecond
//! count, a byte rate, a size or a ratio reads, so every format agrees.
//! Machine formats (JSON, CSV) keep the raw numbers and do not use this
//! module.

use crate::model::Metric;

mod untrusted;
pub use untrusted::{printable, printable_text};
pub(crate) use untrusted::{shown, shown_run, STORED_WIDTH};

/// Decimal (SI) prefixes from 10^3 upward, paired with their factor.
const SI_UP: [(&str, f64); 4] = [("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)];

/// Time scales for a value in nanoseconds.
const TIME_NS: [(&str, f64); 4] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];

/// Binary prefixes of a size, as parameters are written (`4k` is 4096).
const BINARY: [(&str, u64); 4] = [
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];

/// Units that count things, as (plural, singular): a whole count prints
/// exactly and agrees in number (`1 call`, `12 calls`).
const COUNTS: [(&str, &str); 6] = [
    ("calls", "call"),
    ("observations", "observation"),
    ("pages", "page"),
    ("processes", "process"),
    ("fds", "fd"),
    ("csw", "csw"),
];

/// Readable text for `value` in `unit`, with three significant digits:
/// `812 ns`, `2.64 ms` (also from `us` or `ms`), `1.23 GB/s`, `456 k/s`,
/// `1 call`. Units this function does not know fall back to three
/// significant digits followed by the unit.
pub(crate) fn human(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return join(&value.to_string(), unit);
    }
    if let Some(text) = count(value, unit) {
        return text;
    }
    let (divisor, name) = scale(value, unit);
    join(&sig3(round_sig(value / divisor, 3)), &name)
}

/// The spread after a value, in the value's scale: `4.70-4.90` after
/// `4.82 us`, `0.990-1.02` after `1.00 s`.
pub(crate) fn human_range(value: f64, lo: f64, hi: f64, unit: &str) -> String {
    let (divisor, _) = scale(value, unit);
    let end = |x: f64| sig3(round_sig(x / divisor, 3));
    format!("{}-{}", end(lo), end(hi))
}

/// What to divide a value in `unit` by, and the unit to show it in: the
/// largest time unit or decimal prefix that keeps it at or above 1 once
/// rounded (999.6 ns reads `1.00 us`); `unit` itself for other units.
fn scale(value: f64, unit: &str) -> (f64, String) {
    if let Some(ns) = time_factor(unit) {
        let (name, factor) = pick_scale(round_sig(value * ns, 3), &TIME_NS);
        return (factor / ns, name.to_string());
    }
    let suffix = match unit {
        "bytes/s" | "B/s" => "B/s",
        "1/s" => "/s",
        _ => return (1.0, unit.to_string()),
    };
    let mut scales = vec![("", 1.0)];
    scales.extend(SI_UP);
    let (prefix, factor) = pick_scale(round_sig(value, 3), &scales);
    (factor, format!("{prefix}{suffix}"))
}

/// Nanoseconds per one `unit`, for the time units.
fn time_factor(unit: &str) -> Option<f64> {
    let factor = match unit {
        "s" => 1e9,
        _ => TIME_NS.iter().find(|(name, _)| *name == unit)?.1,
    };
    Some(factor)
}

/// A count in one of the `COUNTS` units: exact when whole.
fn count(value: f64, unit: &str) -> Option<String> {
    let (plural, singular) = COUNTS.iter().find(|(plural, _)| *plural == unit)?;
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return Some(counted(value as i64, singular, plural));
    }
    Some(join(&sig3(round_sig(value, 3)), plural))
}

/// `1 run`, `0 runs`, `2 runs`: `noun` with an `s` unless there is one.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    counted(n as i64, noun, &format!("{noun}s"))
}

/// `n` with the singular or plural noun given.
fn counted(n: i64, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// A count as a person types it on the command line: `640`, `100k`,
/// `10M` (iolab's parameters take these suffixes); a fraction as it is.
pub(crate) fn typed_count(value: f64) -> String {
    let whole = value.fract() == 0.0 && value.abs() < 1e18;
    match value.abs() as u64 {
        _ if !whole => format!("{value}"),
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", value / 1e6),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}k", value / 1e3),
        _ => format!("{}", value as i64),
    }
}

/// How widely a metric's repetitions spread: half their min-max range in
/// percent of the median (not a `±`, which is an interval); `None` without min/max or with a zero median.
pub(crate) fn spread_pct(metric: &Metric) -> Option<f64> {
    let (min, max) = (metric.min?, metric.max?);
    if metric.value == 0.0 || !metric.value.is_finite() {
        return None;
    }
    Some((max - min).abs() / 2.0 / metric.value.abs() * 100.0)
}

/// A ratio with two significant digits, as `0.0063x`, `0.85x`, `120x`;
/// between 0.1 and 10 with two decimals (`1.09x`, `3.24x`), so that a
/// ratio near 1 still shows how far from 1 it is.
pub(crate) fn ratio(ratio: f64) -> String {
    let cents = (ratio * 100.0).round() / 100.0;
    let two_decimals = |r: f64| (0.1..10.0).contains(&r.abs());
    if !ratio.is_finite() || ratio == 0.0 || two_decimals(ratio) && two_decimals(cents) {
        return format!("{cents:.2}x");
    }
    let rounded = round_sig(ratio, 2);
    if two_decimals(rounded) {
        return format!("{rounded:.2}x");
    }
    let decimals = (1 - magnitude(rounded)).max(0) as usize;
    format!("{rounded:.decimals$}x")
}

/// A byte count with the largest binary prefix that shows it exactly (at
/// most two decimals): `4 MiB`, `64 KiB`, `1.5 KiB`, `1 B`, `1500 B`.
pub(crate) fn size(bytes: u64) -> String {
    for (name, factor) in BINARY.iter().rev() {
        if bytes >= *factor && (u128::from(bytes) * 100) % u128::from(*factor) == 0 {
            let value = bytes as f64 / *factor as f64;
            let text = format!("{value:.2}");
            return join(text.trim_end_matches('0').trim_end_matches('.'), name);
        }
    }
    format!("{bytes} B")
}

/// `bytes` in the largest binary unit it reaches, rounded to `decimals`
/// with trailing zeros dropped: `64 MiB`, `1.5 MiB`, `512 KiB`, `100 B`.
pub(crate) fn binary_size(bytes: f64, decimals: usize) -> String {
    let (name, factor) = BINARY
        .iter()
        .rev()
        .find(|(_, factor)| bytes >= *factor as f64)
        .map_or(("B", 1.0), |(name, factor)| (*name, *factor as f64));
    let text = format!("{:.*}", decimals, bytes / factor);
    let text = match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.'),
        false => &text,
    };
    format!("{text} {name}")
}

/// A case name as a person reads it: a size segment (`4194304B`, as case
/// ids store it) becomes `4 MiB`; other segments stay as they are.
pub(crate) fn case_label(case: &str) -> String {
    case.split('/')
        .map(|part| match part.strip_suffix('B').map(str::parse::<u64>) {
            Some(Ok(bytes)) => size(bytes),
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
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

/// `value` rounded to `digits` significant digits; done before picking a
/// scale so that 999.6 ns becomes `1.00 us`, not `1000 ns`.
fn round_sig(value: f64, digits: i32) -> f64 {
    if value == 0.0 {
        return 0.0;
    }
    let step = 10f64.powi(magnitude(value) - digits + 1);
    (value / step).round() * step
}

/// The power of ten of the leading digit: 2 for 122.49, -3 for 0.0063.
fn magnitude(value: f64) -> i32 {
    value.abs().log10().floor() as i32
}

/// Print an already rounded value with as many decimals as three
/// significant digits need: `8.12`, `81.2`, `812`, `0.0812`, `8120`.
fn sig3(value: f64) -> String {
    let abs = value.abs();
    if abs == 0.0 || abs >= 100.0 {
        return format!("{value:.0}");
    }
    let decimals = (2 - magnitude(abs)).max(0) as usize;
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
mod tests;
