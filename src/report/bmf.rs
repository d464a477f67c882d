//! Bencher Metric Format JSON (`--bmf FILE`), what `bencher run --adapter
//! json` reads: `{benchmark: {measure: {value, lower_value, upper_value}}}`.
//! One benchmark per ok result, named `scenario/case`; its one measure is
//! the headline metric, named as iolab names it (`rtt_ns`, in its unit), with
//! the bounds of the 95% interval of its median when the run has it (not
//! with `--precision off`, where Bencher takes the value alone).

use super::Reporter;
use crate::model::{CaseResult, Metric, Run, Status};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

pub(crate) struct BmfReporter;

/// One measure's figures, as BMF names them.
#[derive(Debug, Serialize)]
struct Figures {
    value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    lower_value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    upper_value: Option<f64>,
}

impl Reporter for BmfReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        let mut benchmarks: BTreeMap<String, BTreeMap<String, Figures>> = BTreeMap::new();
        for (result, metric, m) in headlines(run) {
            let [lower_value, upper_value] = match interval(result, metric) {
                Some([lo, hi]) => [Some(lo), Some(hi)],
                None => [None, None],
            };
            let figures = Figures {
                value: m.value,
                lower_value,
                upper_value,
            };
            benchmarks
                .entry(benchmark_name(result))
                .or_default()
                .insert(metric.to_string(), figures);
        }
        // Whole before written, so a reader that closed early (`| head`)
        // is the plain broken pipe `main` ends quietly.
        let text = serde_json::to_string_pretty(&benchmarks)?;
        writeln!(out, "{text}")?;
        Ok(())
    }

    fn nothing_to_write(&self, run: &Run) -> Option<String> {
        match headlines(run).next() {
            Some(_) => None,
            None => Some("the run has no ok result with a headline".into()),
        }
    }
}

/// Every ok result's headline metric: the figures the benchmark formats carry.
pub(super) fn headlines(run: &Run) -> impl Iterator<Item = (&CaseResult, &str, &Metric)> {
    run.results
        .iter()
        .filter(|r| r.status == Status::Ok)
        .filter_map(|r| r.headline_metric().map(|(name, m)| (r, name, m)))
        .filter(|(_, _, m)| m.value.is_finite())
}

/// `pingpong/pipe/same-cpu/processes/1B`.
pub(super) fn benchmark_name(result: &CaseResult) -> String {
    format!("{}/{}", result.scenario, result.case)
}

/// The 95% interval of `metric`'s median, when the result has it.
pub(super) fn interval(result: &CaseResult, metric: &str) -> Option<[f64; 2]> {
    let p = result.precision.as_ref().filter(|p| p.metric == metric)?;
    p.ci.iter().all(|v| v.is_finite()).then_some(p.ci)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn render(run: &Run) -> serde_json::Value {
        let mut buf = Vec::new();
        BmfReporter.write(run, &mut buf).unwrap();
        serde_json::from_slice(&buf).unwrap()
    }

    #[test]
    fn one_benchmark_per_ok_headline_with_its_interval() {
        let mut run = fixtures::run();
        run.results[0].precision = Some(fixtures::rtt_precision());
        let bmf = render(&run);
        let benchmarks = bmf.as_object().unwrap();
        assert_eq!(benchmarks.len(), 2, "{bmf:#}");
        let ok = &bmf[format!("pingpong/{}", fixtures::OK_CASE)]["rtt_ns"];
        assert_eq!(
            *ok,
            serde_json::json!({"value": 5210.0, "lower_value": 5100.0, "upper_value": 5300.0})
        );
        // Without an interval, the value alone.
        let stream = &bmf[format!("stream/{}", fixtures::STREAM_CASE)];
        let measure = stream.as_object().unwrap().values().next().unwrap();
        assert_eq!(measure.as_object().unwrap().len(), 1, "{measure}");
        assert!(measure["value"].is_f64());
    }
}
