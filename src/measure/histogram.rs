//! Per-operation latencies in an HdrHistogram (1 ns to 100 s, 3 significant
//! digits), summarised as count, mean, p50, p90, p99, p99.9 and max, and
//! serialised as V2 for the store and for crossing a process boundary.

use crate::model::{LatencyKind, LatencySummary};
use anyhow::Context;
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use hdrhistogram::Histogram;

const HIGHEST_NS: u64 = 100_000_000_000;

pub struct Latencies {
    hist: Histogram<u64>,
}

impl Default for Latencies {
    fn default() -> Self {
        Self::new()
    }
}

impl Latencies {
    pub fn new() -> Self {
        let hist = Histogram::new_with_bounds(1, HIGHEST_NS, 3).expect("static bounds are valid");
        Latencies { hist }
    }

    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        self.hist.saturating_record(ns.max(1));
    }

    /// The HdrHistogram itself, for a format that writes one whole
    /// (`report::hdr`).
    pub(crate) fn hdr(&self) -> &Histogram<u64> {
        &self.hist
    }

    pub(crate) fn count(&self) -> u64 {
        self.hist.len()
    }

    pub(crate) fn merge(&mut self, other: &Latencies) {
        self.hist.add(&other.hist).expect("same bounds");
    }

    pub fn summary(&self, kind: LatencyKind) -> LatencySummary {
        let h = &self.hist;
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

    pub fn to_v2(&self) -> Vec<u8> {
        let mut out = Vec::new();
        V2Serializer::new()
            .serialize(&self.hist, &mut out)
            .expect("writing to a Vec cannot fail");
        out
    }

    /// A V2 blob read back; one larger than iolab's own (more counts
    /// than 1 ns to 100 s at 3 digits take) was not written by iolab and
    /// is refused, so a reader's work stays bounded.
    pub(crate) fn from_v2(bytes: &[u8]) -> anyhow::Result<Latencies> {
        let hist: Histogram<u64> = Deserializer::new()
            .deserialize(&mut &bytes[..])
            .context("reading an HdrHistogram V2 blob")?;
        if hist.distinct_values() > Latencies::new().hist.distinct_values() {
            anyhow::bail!("larger than iolab's own (1 ns to 100 s, 3 significant digits)");
        }
        Ok(Latencies { hist })
    }

    /// The value at each quantile, for percentile plots.
    pub(crate) fn quantiles(&self, qs: &[f64]) -> Vec<u64> {
        qs.iter().map(|q| self.hist.value_at_quantile(*q)).collect()
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

    #[test]
    fn garbage_blob_is_an_error() {
        assert!(Latencies::from_v2(b"not a histogram").is_err());
    }
}
