//! Per-operation latencies in an HdrHistogram (1 ns to 100 s, 3 significant
//! digits), their quantiles, and serialised as V2 for the store and for
//! crossing a process boundary. Their summary in the JSON contract
//! (count, mean, p50, p90, p99, p99.9 and max) is `measure::latency`'s.

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
    /// (`report::hdr`), and for its summary (`measure::latency`).
    pub(crate) fn hdr(&self) -> &Histogram<u64> {
        &self.hist
    }

    pub(crate) fn count(&self) -> u64 {
        self.hist.len()
    }

    pub(crate) fn merge(&mut self, other: &Latencies) {
        self.hist.add(&other.hist).expect("same bounds");
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
    fn garbage_blob_is_an_error() {
        assert!(Latencies::from_v2(b"not a histogram").is_err());
    }
}
