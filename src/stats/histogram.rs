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

/// Values a timing loop records one per operation, taken into the
/// histogram `PENDING` at a time: the loop pays one store into a small
/// buffer, where a histogram update after every context switch loads its
/// counters cold (11-12% of a same-CPU round trip's user time went to it).
pub(crate) struct Pending {
    hist: Latencies,
    values: Vec<u64>,
}

/// How many values wait; 2 KiB, warm in the first-level cache.
const PENDING: usize = 256;

impl Pending {
    pub(crate) fn new() -> Self {
        Pending {
            hist: Latencies::new(),
            values: Vec::with_capacity(PENDING),
        }
    }

    #[inline(always)]
    pub(crate) fn record(&mut self, ns: u64) {
        if self.values.len() == PENDING {
            self.flush();
        }
        self.values.push(ns);
    }

    /// Takes the waiting values into the histogram: at a point the loop
    /// does not time, or when the buffer is full.
    pub(crate) fn flush(&mut self) {
        for ns in self.values.drain(..) {
            self.hist.record(ns);
        }
    }

    pub(crate) fn into_latencies(mut self) -> Latencies {
        self.flush();
        self.hist
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_values_all_reach_the_histogram() {
        let mut pending = Pending::new();
        for ns in 1..=(3 * PENDING as u64 + 7) {
            pending.record(ns);
            if ns == 100 {
                pending.flush();
            }
        }
        let hist = pending.into_latencies();
        assert_eq!(hist.count(), 3 * PENDING as u64 + 7);
        assert_eq!(hist.hdr().max(), 3 * PENDING as u64 + 7);
        assert_eq!(hist.hdr().min(), 1);
    }

    #[test]
    fn garbage_blob_is_an_error() {
        assert!(Latencies::from_v2(b"not a histogram").is_err());
    }
}
