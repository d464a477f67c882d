//! github-action-benchmark's custom JSON (`--smaller-is-better FILE`,
//! `--bigger-is-better FILE`), what its `customSmallerIsBetter` and
//! `customBiggerIsBetter` tools read: `[{name, unit, value, range, extra}]`.
//! A file holds the headlines of one direction, as the action's tool says
//! which way is better: times in the first, rates in the second (a headline
//! whose unit has no better direction, a count, is in neither). `range` is
//! `± HALF` of the 95% interval of the median, when the run has it; `extra`
//! the interval, the noise grade and where the run was made.

use super::bmf::{benchmark_name, headlines, interval};
use super::Reporter;
use crate::compare::{direction, Direction};
use crate::model::{CaseResult, Metric, Run};
use serde::Serialize;
use std::io::Write;

/// The headlines going `direction`'s way better.
pub(crate) struct BenchmarkActionReporter {
    pub(crate) direction: Direction,
}

/// One entry of the action's custom JSON.
#[derive(Debug, Serialize)]
struct Entry {
    name: String,
    unit: String,
    value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<String>,
    extra: String,
}

impl Reporter for BenchmarkActionReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        let entries: Vec<Entry> = headlines(run)
            .filter(|(_, _, m)| direction(&m.unit) == self.direction)
            .map(|(result, metric, m)| entry(run, result, metric, m))
            .collect();
        let text = serde_json::to_string_pretty(&entries)?;
        writeln!(out, "{text}")?;
        Ok(())
    }
}

fn entry(run: &Run, result: &CaseResult, metric: &str, m: &Metric) -> Entry {
    let ci = interval(result, metric);
    let range = ci.map(|[lo, hi]| format!("± {}", round((hi - lo) / 2.0)));
    let mut extra = vec![format!("{metric}, the median of the repetitions")];
    if let Some([lo, hi]) = ci {
        extra.push(format!(
            "95% interval {}-{} {}",
            round(lo),
            round(hi),
            m.unit
        ));
    }
    if let Some(noise) = &result.noise {
        extra.push(format!("noise: {}", noise.label()));
    }
    let env = &run.environment;
    extra.push(format!(
        "run {} on {}, kernel {}",
        run.run_id, env.hostname, env.kernel
    ));
    Entry {
        name: benchmark_name(result),
        unit: m.unit.clone(),
        value: m.value,
        range,
        extra: extra.join("\n"),
    }
}

/// Four significant digits: what an interval's edge is known to.
fn round(value: f64) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let scale = 10f64.powi(3 - value.abs().log10().floor() as i32);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn render(direction: Direction) -> Vec<serde_json::Value> {
        let mut run = fixtures::run();
        run.results[0].precision = Some(fixtures::rtt_precision());
        let mut buf = Vec::new();
        BenchmarkActionReporter { direction }
            .write(&run, &mut buf)
            .unwrap();
        serde_json::from_slice(&buf).unwrap()
    }

    #[test]
    fn times_go_to_smaller_is_better_rates_to_bigger() {
        let smaller = render(Direction::LowerIsBetter);
        assert_eq!(smaller.len(), 1, "{smaller:?}");
        let e = &smaller[0];
        assert_eq!(e["name"], format!("pingpong/{}", fixtures::OK_CASE));
        assert_eq!(e["unit"], "ns");
        assert_eq!(e["value"], 5210.0);
        assert_eq!(e["range"], "± 100");
        let extra = e["extra"].as_str().unwrap();
        assert!(extra.contains("95% interval 5100-5300 ns"), "{extra}");
        let bigger = render(Direction::HigherIsBetter);
        assert_eq!(bigger.len(), 1, "{bigger:?}");
        assert_eq!(bigger[0]["unit"], "bytes/s");
        assert!(bigger[0].get("range").is_none(), "no interval, no range");
    }

    #[test]
    fn rounding_keeps_four_digits() {
        assert_eq!(round(123.456), 123.5);
        assert_eq!(round(0.00123456), 0.001235);
        assert_eq!(round(98765.0), 98770.0);
    }
}
