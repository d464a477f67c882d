//! One chart axis: what it shows, whether it is log-scaled, where its ticks
//! go and how they read. Log scales are applied here (values are drawn as
//! log10 on a plain axis with decade ticks), so every chart kind shares one
//! drawing path and one tick logic.

use crate::format::human;

/// How tick values read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Labels {
    /// A value in a unit `human()` knows (`ns`, `bytes/s`, ...).
    Unit(String),
    /// A byte count with binary prefixes: 64 B, 4 KiB.
    Bytes,
    /// A percentile on the "nines" scale, x = -log10(1 - q): p50, p99.9.
    Nines,
    /// Category names at 0, 1, 2, ...
    Names(Vec<String>),
}

#[derive(Debug, Clone)]
pub(crate) struct Axis {
    pub(crate) desc: String,
    pub(crate) log: bool,
    pub(crate) labels: Labels,
    /// Ticks at exactly these data values instead of computed ones.
    pub(crate) fixed: Option<Vec<f64>>,
}

/// Log scale when the positive data spans more than this factor.
const LOG_SPAN: f64 = 30.0;

impl Axis {
    pub(crate) fn new(desc: impl Into<String>, labels: Labels) -> Axis {
        Axis {
            desc: desc.into(),
            log: false,
            labels,
            fixed: None,
        }
    }

    /// Log-scaled when `values` are positive and span decades; the
    /// description then says so.
    pub(crate) fn auto_log(mut self, values: impl IntoIterator<Item = f64>) -> Axis {
        let (lo, hi) = bounds(values);
        if lo > 0.0 && hi / lo > LOG_SPAN {
            self.log = true;
            self.desc.push_str(", log scale");
        }
        self
    }

    /// A data value in plot coordinates; `None` where the scale cannot show it.
    pub(crate) fn to_plot(&self, v: f64) -> Option<f64> {
        match (self.log, v) {
            (_, v) if !v.is_finite() => None,
            (true, v) if v <= 0.0 => None,
            (true, v) => Some(v.log10()),
            (false, v) => Some(v),
        }
    }

    /// The plotted range for `values` (plot coordinates), padded a little;
    /// a linear axis of non-negative values starts at 0.
    pub(crate) fn range(&self, values: impl IntoIterator<Item = f64>) -> (f64, f64) {
        let (lo, hi) = bounds(values.into_iter().filter_map(|v| self.to_plot(v)));
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
        let lo = if !self.log && lo >= 0.0 { 0.0 } else { lo };
        let pad = if hi > lo { (hi - lo) * 0.05 } else { 0.5 };
        let lo = if !self.log && lo == 0.0 {
            0.0
        } else {
            lo - pad
        };
        (lo, hi + pad)
    }

    /// Tick positions (plot coordinates) inside `lo..hi`.
    pub(crate) fn ticks(&self, lo: f64, hi: f64) -> Vec<f64> {
        let all = match &self.fixed {
            Some(values) => values.iter().filter_map(|v| self.to_plot(*v)).collect(),
            None if self.log => log_ticks(lo, hi),
            None => linear_ticks(lo, hi),
        };
        all.into_iter().filter(|t| *t >= lo && *t <= hi).collect()
    }

    /// The text of the tick at plot coordinate `p`.
    pub(crate) fn label(&self, p: f64) -> String {
        let v = if self.log { 10f64.powf(p) } else { p };
        if v == 0.0 && !matches!(self.labels, Labels::Names(_) | Labels::Nines) {
            return "0".into();
        }
        match &self.labels {
            Labels::Unit(unit) => compact(&human(v, unit)),
            Labels::Bytes => crate::format::binary_size(v, 2),
            Labels::Nines => nines(v),
            Labels::Names(names) => names
                .get(v.round().max(0.0) as usize)
                .cloned()
                .unwrap_or_default(),
        }
    }
}

/// (min, max) of the finite values; (inf, -inf) when there are none.
pub(crate) fn bounds(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
}

/// Decades, with 2x and 5x in between when fewer than three decades show.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let decades = (lo.floor() as i32)..=(hi.ceil() as i32);
    let fine = hi - lo < 3.0;
    let steps: &[f64] = if fine { &[1.0, 2.0, 5.0] } else { &[1.0] };
    decades
        .flat_map(|d| steps.iter().map(move |s| d as f64 + s.log10()))
        .collect()
}

/// About six ticks at a 1, 2 or 5 times a power of ten step.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    round_ticks(lo, hi, 6.0)
}

/// Ticks over `lo..hi` at the smallest step of 1, 2 or 5 times a power
/// of ten that makes at most about `steps` steps.
pub(crate) fn round_ticks(lo: f64, hi: f64, steps: f64) -> Vec<f64> {
    let raw = (hi - lo) / steps;
    if !raw.is_finite() || raw <= 0.0 {
        return vec![lo];
    }
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// `1.00 us` -> `1 us`, `2.50 GB/s` -> `2.5 GB/s`: ticks need no padding zeros.
fn compact(text: &str) -> String {
    let (number, unit) = text.split_once(' ').unwrap_or((text, ""));
    let number = if number.contains('.') {
        number.trim_end_matches('0').trim_end_matches('.')
    } else {
        number
    };
    format!("{number} {unit}").trim_end().to_string()
}

/// x = -log10(1 - q) back to a percentile name: 1 -> p90, 3 -> p99.9.
fn nines(x: f64) -> String {
    let pct = (1.0 - 10f64.powf(-x)) * 100.0;
    let text = format!("{pct:.2}");
    format!("p{}", text.trim_end_matches('0').trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_read_short() {
        let time = Axis::new("t", Labels::Unit("ns".into()));
        assert_eq!(time.label(1000.0), "1 us");
        assert_eq!(time.label(2500.0), "2.5 us");
        assert_eq!(time.label(0.0), "0");
        let log = Axis::new("t", Labels::Unit("ns".into())).auto_log([10.0, 1e6]);
        assert!(log.log && log.desc.ends_with("log scale"));
        assert_eq!(log.label(3.0), "1 us");
        let size = Axis::new("size", Labels::Bytes);
        assert_eq!(size.label(64.0), "64 B");
        assert_eq!(size.label(65536.0), "64 KiB");
        let q = Axis::new("q", Labels::Nines);
        assert_eq!(q.label(0.0), "p0");
        assert_eq!(q.label(2.0f64.log10()), "p50");
        assert_eq!(q.label(3.0), "p99.9");
    }

    #[test]
    fn ticks_are_round_and_inside() {
        assert_eq!(linear_ticks(0.0, 10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let log = Axis::new("t", Labels::Bytes).auto_log([64.0, 65536.0]);
        let (lo, hi) = log.range([64.0, 65536.0]);
        let ticks = log.ticks(lo, hi);
        assert!(ticks.contains(&2.0) && ticks.contains(&4.0), "{ticks:?}");
        assert!(ticks.iter().all(|t| *t >= lo && *t <= hi));
    }

    #[test]
    fn log_axis_drops_what_it_cannot_show() {
        let log = Axis::new("t", Labels::Bytes).auto_log([1.0, 1e4]);
        assert_eq!(log.to_plot(0.0), None);
        assert_eq!(log.to_plot(f64::NAN), None);
        let flat = Axis::new("t", Labels::Bytes).auto_log([0.0, 1e4]);
        assert!(!flat.log);
    }
}
