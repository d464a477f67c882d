//! A latency histogram summarised for the JSON contract: count, mean,
//! p50, p90, p99, p99.9 and max (`model::LatencySummary`). The histogram
//! is the pure `stats::histogram`; its summary names the model's types, so
//! it lives here, an inherent method of `Latencies` all the same.

use crate::model::{LatencyKind, LatencySummary};
use crate::stats::histogram::Latencies;

impl Latencies {
    /// The summary the JSON contract keeps of `kind` latencies.
    pub fn summary(&self, kind: LatencyKind) -> LatencySummary {
        let h = self.hdr();
        LatencySummary {
            kind,
            unit: "ns".to_string(),
            count: h.len(),
            mean: h.mean(),
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p99_9: h.value_at_quantile(0.999),
            max: h.max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_and_orders_percentiles() {
        let mut l = Latencies::new();
        for v in 1..=1000 {
            l.record(v * 10);
        }
        let s = l.summary(LatencyKind::RoundTrip);
        assert_eq!(s.count, 1000);
        assert!(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p99_9 && s.p99_9 <= s.max);
        assert_eq!(s.p50 / 100, 50);
        assert_eq!(s.max / 100, 100);
    }

    #[test]
    fn v2_round_trip_keeps_counts() {
        let mut l = Latencies::new();
        l.record(0);
        l.record(1234);
        let back = Latencies::from_v2(&l.to_v2()).unwrap();
        assert_eq!(back.count(), 2);
        assert_eq!(
            back.summary(LatencyKind::OneWay),
            l.summary(LatencyKind::OneWay)
        );
    }
}
