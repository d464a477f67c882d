//! OpenMetrics text for Prometheus (`--openmetrics FILE`), the format
//! node_exporter's textfile collector reads from `*.prom` files, written
//! by prometheus-client's encoder (its escaping, numbers and `# EOF`); this
//! file says which families and samples a run makes, in a fixed order. Every
//! metric of every ok result is a gauge, one family per scenario and
//! metric, named in base units (`rtt_ns` of pingpong is
//! `iolab_pingpong_rtt_seconds`, in seconds); each sample is labelled with
//! its scenario, case, mechanism, placement, size, host and kernel. The
//! headline's 95% interval, the noise grade and whether the case failed are
//! series of their own, labelled alike. No sample carries a timestamp (the
//! textfile collector refuses them): Prometheus stamps them when it scrapes,
//! and node_exporter's `node_textfile_mtime_seconds` says when the file was
//! written. The run's id is left out: a label that changes every night
//! would make every night's figures new series.

use super::Reporter;
use crate::model::{CaseResult, Grade, Run, Status};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::collections::BTreeMap;
use std::io::Write;

/// The whole run as OpenMetrics text, ending in `# EOF`.
pub(crate) struct OpenMetricsReporter;

impl Reporter for OpenMetricsReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        out.write_all(render(run)?.as_bytes())?;
        Ok(())
    }
}

/// One label set: (name, value) pairs in order.
type Labels = Vec<(&'static str, String)>;

/// One gauge family: its help, its unit (the end of its name) and samples.
#[derive(Debug, Default)]
struct Family {
    help: String,
    unit: &'static str,
    samples: Vec<(Labels, f64)>,
}

/// Every family of a run by name, encoded in name order, each sample in
/// the order the run holds its results.
#[derive(Debug, Default)]
struct Families(BTreeMap<String, Family>);

impl Collector for Families {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for (name, family) in &self.0 {
            let stem = name
                .strip_suffix(&format!("_{}", family.unit))
                .filter(|_| !family.unit.is_empty());
            let unit = stem.map(|_| Unit::Other(family.unit.to_string()));
            let stem = stem.unwrap_or(name);
            let mut metric =
                encoder.encode_descriptor(stem, &family.help, unit.as_ref(), MetricType::Gauge)?;
            for (labels, value) in &family.samples {
                metric.encode_family(labels)?.encode_gauge(value)?;
            }
        }
        Ok(())
    }
}

/// A unit as OpenMetrics names it, and the factor into it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BaseUnit {
    /// The suffix of the family's name (`seconds`), empty for a count.
    pub(crate) suffix: &'static str,
    /// What a value in iolab's unit is divided by (1e9 for ns): a division
    /// keeps 5210 ns exactly 0.00000521 s, where a product would not.
    pub(crate) divisor: f64,
    /// The words of iolab's metric name that spell the unit (`ns`,
    /// `per s`), dropped before the suffix is added.
    spelled: &'static [&'static [&'static str]],
}

/// The base unit of an iolab unit: times in seconds, rates per second,
/// percentages as ratios; counts and indices stay as they are.
pub(crate) fn base_unit(unit: &str) -> BaseUnit {
    let (suffix, divisor, spelled): (_, _, &'static [&'static [&str]]) = match unit {
        "ns" => ("seconds", 1e9, &[&["ns"]]),
        "us" => ("seconds", 1e6, &[&["us"]]),
        "ms" => ("seconds", 1e3, &[&["ms"]]),
        "s" => ("seconds", 1.0, &[&["s"]]),
        "bytes/s" => (
            "bytes_per_second",
            1.0,
            &[&["bytes", "per", "s"], &["per", "s"]],
        ),
        "1/s" => ("per_second", 1.0, &[&["per", "s"]]),
        "%" => ("ratio", 100.0, &[&["pct"]]),
        "ratio" | "x" => ("ratio", 1.0, &[&["ratio"]]),
        _ => ("", 1.0, &[]),
    };
    BaseUnit {
        suffix,
        divisor,
        spelled,
    }
}

/// `iolab_<scenario>_<metric>` in base units: the words that spelled the
/// unit dropped, its base unit appended (`rtt_ns` -> `rtt_seconds`,
/// `msgs_per_s` -> `msgs_per_second`, `cpu_user_pct` -> `cpu_user_ratio`).
pub(crate) fn family_name(scenario: &str, metric: &str, unit: &BaseUnit) -> String {
    let mut words: Vec<&str> = metric.split('_').filter(|w| !w.is_empty()).collect();
    if let Some((at, len)) = unit.spelled.iter().find_map(|spelled| {
        let at = words.windows(spelled.len()).position(|w| w == *spelled)?;
        Some((at, spelled.len()))
    }) {
        words.drain(at..at + len);
    }
    let mut base = words.join("_");
    let has_suffix = base == unit.suffix || base.ends_with(&format!("_{}", unit.suffix));
    if !unit.suffix.is_empty() && !has_suffix {
        base = match base.is_empty() {
            true => unit.suffix.to_string(),
            false => format!("{base}_{}", unit.suffix),
        };
    }
    sanitize(&format!("iolab_{scenario}_{base}"))
}

/// The interval family beside a metric's: `..._rtt_interval_seconds`.
fn interval_name(family: &str, unit: &BaseUnit) -> String {
    match family.strip_suffix(&format!("_{}", unit.suffix)) {
        Some(stem) if !unit.suffix.is_empty() => format!("{stem}_interval_{}", unit.suffix),
        _ => format!("{family}_interval"),
    }
}

/// A metric name's characters: letters, digits and `_` (`pipe-atime`
/// becomes `pipe_atime`).
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| match c.is_ascii_alphanumeric() || c == '_' {
            true => c,
            false => '_',
        })
        .collect()
}

pub(crate) fn render(run: &Run) -> anyhow::Result<String> {
    let mut families = Families::default();
    for result in &run.results {
        if result.status == Status::Unsupported {
            continue;
        }
        let labels = case_labels(run, result);
        let failed = families.0.entry("iolab_case_failed".into()).or_default();
        failed.help = "1 when the case failed (its data did not arrive intact, or it could not \
                       finish), 0 when it is ok; unsupported cases are left out"
            .into();
        failed
            .samples
            .push((labels.clone(), f64::from(result.status == Status::Failed)));
        if result.status == Status::Ok {
            measured(result, &labels, &mut families.0);
        }
    }
    let mut registry = Registry::default();
    registry.register_collector(Box::new(families));
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry)?;
    Ok(text)
}

/// Every metric of an ok result, its headline's interval and its grade.
fn measured(result: &CaseResult, labels: &Labels, families: &mut BTreeMap<String, Family>) {
    let about = about_of(&result.scenario);
    for (metric, m) in &result.metrics {
        let unit = base_unit(&m.unit);
        let name = family_name(&result.scenario, metric, &unit);
        let family = families.entry(name.clone()).or_default();
        family.unit = unit.suffix;
        family.help = help(&result.scenario, metric, &m.unit, &unit, &about);
        let value = m.value / unit.divisor;
        if value.is_finite() {
            family.samples.push((labels.clone(), value));
        }
        let interval = result.precision.as_ref().filter(|p| &p.metric == metric);
        if let Some(p) = interval {
            let family = families.entry(interval_name(&name, &unit)).or_default();
            family.unit = unit.suffix;
            family.help = format!(
                "The 95% interval of {name}'s median (bootstrap over the repetitions): \
                 its low and high bound"
            );
            for (bound, value) in [("low", p.ci[0]), ("high", p.ci[1])] {
                let mut labels = labels.clone();
                labels.push(("bound", bound.to_string()));
                family.samples.push((labels, value / unit.divisor));
            }
        }
    }
    if let Some(noise) = &result.noise {
        let family = families.entry("iolab_noise_grade".into()).or_default();
        family.help = "The noise guard's grade of the case: 0 clean, 1 noisy, 2 disturbed".into();
        let grade = match noise.grade {
            Grade::Clean => 0.0,
            Grade::Noisy => 1.0,
            Grade::Disturbed => 2.0,
        };
        family.samples.push((labels.clone(), grade));
    }
}

/// What each metric of a scenario measures, by name.
fn about_of(scenario: &str) -> BTreeMap<&'static str, &'static str> {
    crate::scenario::find(scenario)
        .map(|s| s.metrics().iter().map(|m| (m.name, m.about)).collect())
        .unwrap_or_default()
}

fn help(
    scenario: &str,
    metric: &str,
    unit: &str,
    base: &BaseUnit,
    about: &BTreeMap<&str, &str>,
) -> String {
    let what = about.get(metric).copied().unwrap_or(metric);
    let what = what.trim_end_matches('.');
    let words = match base.suffix {
        "" => "",
        "per_second" => ", per second",
        "ratio" => ", as a ratio (1 is 100%)",
        "seconds" => ", in seconds",
        _ => ", in bytes per second",
    };
    let unit = match base.divisor != 1.0 {
        true => format!("{words} (iolab's {metric} in {unit})"),
        false => words.to_string(),
    };
    format!("{scenario}: {what}{unit}; the median of the repetitions")
}

/// The labels of a case: where and how it ran, on which host and kernel.
fn case_labels(run: &Run, r: &CaseResult) -> Labels {
    let param = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| r.param_str(k))
            .unwrap_or_else(|| "none".into())
    };
    vec![
        ("scenario", r.scenario.clone()),
        ("case", r.case.clone()),
        ("mechanism", param(&["mech", "copier", "poller"])),
        ("placement", param(&["placement"])),
        ("size", param(&["size"])),
        ("host", run.environment.hostname.clone()),
        ("kernel", run.environment.kernel.clone()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn name(scenario: &str, metric: &str, unit: &str) -> String {
        family_name(scenario, metric, &base_unit(unit))
    }

    #[test]
    fn names_are_in_base_units() {
        assert_eq!(
            name("pingpong", "rtt_ns", "ns"),
            "iolab_pingpong_rtt_seconds"
        );
        assert_eq!(
            name("stream", "bytes_per_s", "bytes/s"),
            "iolab_stream_bytes_per_second"
        );
        assert_eq!(
            name("limits", "memcpy_bytes_per_s", "bytes/s"),
            "iolab_limits_memcpy_bytes_per_second"
        );
        assert_eq!(
            name("stream", "msgs_per_s", "1/s"),
            "iolab_stream_msgs_per_second"
        );
        assert_eq!(
            name("port-ring", "csw_per_s_iolab", "1/s"),
            "iolab_port_ring_csw_iolab_per_second"
        );
        assert_eq!(
            name("port-ring", "cpu_user_pct", "%"),
            "iolab_port_ring_cpu_user_ratio"
        );
        assert_eq!(name("hackbench", "seconds", "s"), "iolab_hackbench_seconds");
        assert_eq!(
            name("file-transfer", "wall_s", "s"),
            "iolab_file_transfer_wall_seconds"
        );
        assert_eq!(
            name("pingpong", "csw_per_op", "csw"),
            "iolab_pingpong_csw_per_op"
        );
        let rtt = base_unit("ns");
        assert_eq!(
            interval_name("iolab_pingpong_rtt_seconds", &rtt),
            "iolab_pingpong_rtt_interval_seconds"
        );
    }

    /// What promtool's lint says of a name: no abbreviated unit as a word,
    /// no `_total` on a gauge, snake case; and two metrics of a scenario
    /// (or a metric and an interval) never share a family.
    #[test]
    fn every_metric_of_every_scenario_has_a_lint_clean_name_of_its_own() {
        const ABBREVIATIONS: [&str; 14] = [
            "s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "pb", "m", "h", "d",
        ];
        for scenario in crate::scenario::ALL {
            let mut seen = std::collections::BTreeSet::new();
            for m in scenario.metrics() {
                let unit = base_unit(m.unit);
                let name = family_name(scenario.name(), m.name, &unit);
                for word in name.split('_') {
                    assert!(!ABBREVIATIONS.contains(&word), "{name}: '{word}'");
                }
                assert!(!name.ends_with("_total"), "{name}");
                assert!(
                    name.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{name}"
                );
                assert!(
                    unit.suffix.is_empty() || name.ends_with(unit.suffix),
                    "{name}"
                );
                assert!(seen.insert(name.clone()), "{name} twice");
                assert!(
                    seen.insert(interval_name(&name, &unit)),
                    "{name}'s interval"
                );
            }
        }
    }

    #[test]
    fn a_run_renders_gauges_with_their_labels_and_ends_in_eof() {
        let mut run = fixtures::run();
        run.environment.hostname = "vm\"1".into();
        let ok = &mut run.results[0];
        ok.precision = Some(crate::model::Precision {
            metric: "rtt_ns".into(),
            target_pct: 2.0,
            ci: [5000.0, 5400.0],
            half_width_pct: 3.8,
            reached: false,
            reps: 5,
            batches: 1,
            stopped_by: None,
        });
        ok.noise = Some(crate::model::Noise::graded(Grade::Noisy, &["steal 3%"]));
        let text = render(&run).unwrap();
        assert!(text.ends_with("\n# EOF\n"), "{text}");
        let labels = format!(
            "scenario=\"pingpong\",case=\"{}\",mechanism=\"unix-stream\",\
             placement=\"cross-cpu\",size=\"65536\",host=\"vm\\\"1\",kernel=\"Linux 6.8.0\"",
            fixtures::OK_CASE
        );
        for line in [
            "# TYPE iolab_pingpong_rtt_seconds gauge",
            "# UNIT iolab_pingpong_rtt_seconds seconds",
        ] {
            assert!(text.lines().any(|l| l == line), "no line {line}:\n{text}");
        }
        let value = |series: String| -> f64 {
            let line = text.lines().find(|l| l.starts_with(&format!("{series} ")));
            let line = line.unwrap_or_else(|| panic!("no {series}:\n{text}"));
            line.rsplit(' ').next().unwrap().parse().unwrap()
        };
        let rtt = value(format!("iolab_pingpong_rtt_seconds{{{labels}}}"));
        assert_eq!(rtt, 5210.0 / 1e9);
        let low = format!("iolab_pingpong_rtt_interval_seconds{{{labels},bound=\"low\"}}");
        assert_eq!(value(low), 5000.0 / 1e9);
        let high = format!("iolab_pingpong_rtt_interval_seconds{{{labels},bound=\"high\"}}");
        assert_eq!(value(high), 5400.0 / 1e9);
        assert_eq!(value(format!("iolab_noise_grade{{{labels}}}")), 1.0);
        assert_eq!(value(format!("iolab_case_failed{{{labels}}}")), 0.0);
        // The failed case: its status, no figures; the unsupported one: nothing.
        let failed = format!("case=\"{}\"", fixtures::FAILED_CASE);
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(&failed)).collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("iolab_case_failed{"), "{lines:?}");
        assert_eq!(lines[0].rsplit(' ').next(), Some("1.0"), "{lines:?}");
        assert!(!text.contains(fixtures::UNSUPPORTED_CASE), "{text}");
        // Every family is declared once, before its samples.
        let declared: Vec<&str> = text.lines().filter(|l| l.starts_with("# TYPE")).collect();
        let mut unique = declared.clone();
        unique.dedup();
        assert_eq!(declared, unique);
    }
}
