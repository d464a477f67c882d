//! github-action-benchmark's custom JSON (`--smaller-is-better FILE`,
//! `--bigger-is-better FILE`), what its `customSmallerIsBetter` and
//! `customBiggerIsBetter` tools read: `[{name, unit, value, range, extra}]`.
//! A file holds the headlines of one direction, as the action's tool says
//! which way is better: times in the first, rates in the second (a headline
//! whose unit has no better direction, a count, is in neither). `range` is
//! `± HALF` of the 95% interval of the median, when the run has it; `extra`
//! the interval, the noise grade and where the run was made. A run with no
//! headline going the file's way is refused (the action fails on an empty
//! list), naming the headlines it has and the option that takes them.

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

    fn nothing_to_write(&self, run: &Run) -> Option<String> {
        let mut others: Vec<String> = Vec::new();
        for (result, metric, m) in headlines(run) {
            if direction(&m.unit) == self.direction {
                return None;
            }
            let other = format!(
                "{} {metric} ({})",
                result.scenario,
                what(direction(&m.unit))
            );
            if !others.contains(&other) {
                others.push(other);
            }
        }
        if others.is_empty() {
            return Some("the run has no ok result with a headline".into());
        }
        let wanted = what(self.direction);
        let option = match self.direction {
            Direction::LowerIsBetter => "--bigger-is-better",
            _ => "--smaller-is-better",
        };
        Some(format!(
            "no ok result's headline is {wanted}, the run's are {}: those go to {option} \
             (a count to neither)",
            others.join(", ")
        ))
    }
}

/// A direction in words.
fn what(direction: Direction) -> &'static str {
    match direction {
        Direction::LowerIsBetter => "a time, smaller is better",
        Direction::HigherIsBetter => "a rate, bigger is better",
        Direction::Unknown => "a count",
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
    use crate::model::Status;
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
    fn a_file_with_no_headline_its_way_is_refused_naming_the_other_option() {
        let mut run = fixtures::run();
        run.results.retain(|r| r.scenario == "pingpong");
        let bigger = BenchmarkActionReporter {
            direction: Direction::HigherIsBetter,
        };
        let why = bigger.nothing_to_write(&run).unwrap();
        assert!(why.contains("pingpong rtt_ns (a time"), "{why}");
        assert!(why.contains("--smaller-is-better"), "{why}");
        let smaller = BenchmarkActionReporter {
            direction: Direction::LowerIsBetter,
        };
        assert_eq!(smaller.nothing_to_write(&run), None);
        run.results
            .iter_mut()
            .for_each(|r| r.status = Status::Failed);
        let none = smaller.nothing_to_write(&run).unwrap();
        assert!(none.contains("no ok result"), "{none}");
    }

    #[test]
    fn rounding_keeps_four_digits() {
        assert_eq!(round(123.456), 123.5);
        assert_eq!(round(0.00123456), 0.001235);
        assert_eq!(round(98765.0), 98770.0);
    }
}
