//! Each result's latency histogram as an HdrHistogram interval log
//! (`--hdr FILE`), the format HdrHistogram's own tools read
//! (HistogramLogAnalyzer, HistogramLogProcessor, `hdrhistogram`'s
//! `IntervalLogIterator`): written by the `hdrhistogram` crate, one
//! interval per result that has a histogram, tagged `SCENARIO/CASE`,
//! values in nanoseconds. A run keeps no time per case, so every interval
//! spans the whole run, from its start (the log's StartTime and BaseTime).

use super::Reporter;
use crate::model::{CaseResult, Run};
use crate::stats::histogram::Latencies;
use anyhow::Context;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use std::io::Write;
use std::time::{Duration, SystemTime};

pub(crate) struct HdrReporter;

impl Reporter for HdrReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        let start = time(&run.started_at).unwrap_or(SystemTime::UNIX_EPOCH);
        let end = run.finished_at.as_deref().and_then(time).unwrap_or(start);
        let span = end.duration_since(start).unwrap_or(Duration::ZERO);
        let env = &run.environment;
        let mut serializer = V2DeflateSerializer::new();
        let mut text = Vec::new();
        let mut log = IntervalLogWriterBuilder::new()
            .add_comment(&format!(
                "iolab {} run {} on {}, kernel {}: each case's latency histogram, values in ns, \
                 one interval per case tagged SCENARIO/CASE",
                run.iolab_version, run.run_id, env.hostname, env.kernel
            ))
            .with_start_time(start)
            .with_base_time(start)
            .begin_log_with(&mut text, &mut serializer)?;
        for (result, latencies) in histograms(run) {
            let tag = tag(result);
            log.write_histogram(latencies.hdr(), Duration::ZERO, span, Tag::new(&tag))
                .map_err(|e| anyhow::anyhow!("{e}"))
                .with_context(|| format!("writing the histogram of {tag}"))?;
        }
        out.write_all(&text)?;
        Ok(())
    }

    fn nothing_to_write(&self, run: &Run) -> Option<String> {
        match histograms(run).next() {
            Some(_) => None,
            None => Some(
                "no result of the run has a latency histogram (scenarios without \
                 per-operation latencies have none, and a run imported from --json keeps none)"
                    .into(),
            ),
        }
    }
}

/// Every result with a histogram that decodes, in the run's order.
fn histograms(run: &Run) -> impl Iterator<Item = (&CaseResult, Latencies)> {
    run.results
        .iter()
        .filter_map(|r| Some((r, Latencies::from_v2(r.histogram.as_deref()?).ok()?)))
}

/// `SCENARIO/CASE`, with what a tag may not hold (`,` and white space) as `_`.
fn tag(result: &CaseResult) -> String {
    format!("{}/{}", result.scenario, result.case)
        .chars()
        .map(|c| match c == ',' || c.is_whitespace() {
            true => '_',
            false => c,
        })
        .collect()
}

fn time(rfc3339: &str) -> Option<SystemTime> {
    humantime::parse_rfc3339_weak(rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use hdrhistogram::serialization::Deserializer;

    #[test]
    fn every_histogram_is_an_interval_tagged_with_its_case() {
        let mut run = fixtures::run();
        let mut latencies = Latencies::new();
        for ns in [1000, 2000, 3000, 4000] {
            latencies.record(ns);
        }
        run.results[0].histogram = Some(latencies.to_v2());
        run.results[0].case = "a b,c".into();
        assert_eq!(HdrReporter.nothing_to_write(&run), None);
        let mut out = Vec::new();
        HdrReporter.write(&run, &mut out).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.contains("#[StartTime: 1704067200.000"), "{text}");
        let intervals: Vec<_> = IntervalLogIterator::new(&out)
            .filter_map(|e| match e.unwrap() {
                LogEntry::Interval(i) => Some(i),
                _ => None,
            })
            .collect();
        let with_histograms = run.results.iter().filter(|r| r.histogram.is_some());
        assert_eq!(intervals.len(), with_histograms.count(), "{text}");
        let first = &intervals[0];
        assert_eq!(first.tag().unwrap().as_str(), "pingpong/a_b_c");
        assert_eq!(first.duration(), Duration::from_secs(60));
        use base64::Engine;
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(first.encoded_histogram())
            .unwrap();
        let back: hdrhistogram::Histogram<u64> =
            Deserializer::new().deserialize(&mut &decoded[..]).unwrap();
        assert_eq!(back.len(), 4);
        assert_eq!(
            back.value_at_quantile(0.5),
            latencies.hdr().value_at_quantile(0.5)
        );
    }

    #[test]
    fn a_run_without_histograms_gives_nothing_to_write() {
        let mut run = fixtures::run();
        run.results.iter_mut().for_each(|r| r.histogram = None);
        let why = HdrReporter.nothing_to_write(&run).unwrap();
        assert!(
            why.contains("no result of the run has a latency histogram"),
            "{why}"
        );
    }
}
