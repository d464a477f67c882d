//! What a drawn line or bar stands for, read from its case: the name that
//! decides its colour (its mechanism, poller or copier), the other
//! dimensions of the case (placement, wake mode, test...) that decide its
//! line style, marker and small chart, and the axis titles, each with its
//! unit and the kind of figure (round trip, one-way, per call).

use super::palette::FAMILIES;
use crate::model::{CaseResult, LatencyKind};
use crate::params::ParamKind;
use crate::scenario;

/// Parameters that name what was compared, kept as dimensions even where
/// a scenario does not declare them itself.
const NAMING: [&str; 3] = ["mech", "placement", "mode"];

/// The mechanism, poller or copier of `r`, if it has one.
pub(crate) fn family(r: &CaseResult) -> Option<String> {
    FAMILIES.iter().find_map(|k| r.param_str(k))
}

/// The dimensions of `r` beyond its family, as (parameter, value): the
/// parameters its scenario or mechanism declares (not the values a case
/// computes for itself, such as stream's messages per repetition), except
/// `skip`.
pub(crate) fn dims(r: &CaseResult, skip: &str) -> Vec<(String, String)> {
    let spec = scenario::find(&r.scenario);
    let mech = r.param_str("mech").and_then(|m| crate::mechanism::find(&m));
    let declared = |k: &str| {
        NAMING.contains(&k)
            || spec.is_none_or(|s| s.param(k).is_some())
            || mech.is_some_and(|m| m.params().iter().any(|p| p.name == k))
    };
    r.params
        .keys()
        .filter(|k| !FAMILIES.contains(&k.as_str()) && k.as_str() != skip)
        .filter(|k| declared(k))
        .filter_map(|k| Some((k.clone(), r.param_str(k)?)))
        .collect()
}

/// How a dimension's value reads in a legend or a panel title.
pub(crate) fn dim_label(key: &str, value: &str) -> String {
    match key {
        "placement" | "series" | "mode" => value.to_string(),
        _ => format!("{key}={value}"),
    }
}

/// `prefix: title` for hover texts, the run tag first in a comparison.
pub(crate) fn hover(tag: &str, what: &str, value: String) -> String {
    match tag {
        "" => format!("{what}: {value}"),
        t => format!("run {t}, {what}: {value}"),
    }
}

/// Longer axis titles do not fit along a small chart's y axis.
const TITLE_CHARS: usize = 32;

/// The axis title of a metric: what it is and its unit, `round-trip time
/// (ns)`; never the raw metric name a reader does not speak.
pub(crate) fn metric_title(scenario_name: &str, metric: &str, unit: &str) -> String {
    format!("{} ({unit})", metric_what(scenario_name, metric))
}

/// What a metric is: its declaration's first clause when short, else its
/// name in words (`bytes_per_s`: `bytes per s`).
pub(crate) fn metric_what(scenario_name: &str, metric: &str) -> String {
    let about = scenario::find(scenario_name)
        .and_then(|s| s.metrics().iter().find(|m| m.name == metric))
        .map(|m| first_clause(m.about));
    match about {
        Some(about) if !about.is_empty() && about.len() < TITLE_CHARS => about.to_string(),
        _ => metric.replace('_', " "),
    }
}

/// The axis title of a swept parameter with its unit: `size (bytes)`.
pub(crate) fn param_title(scenario_name: &str, key: &str) -> String {
    let kind = scenario::find(scenario_name)
        .and_then(|s| s.param(key))
        .map(|p| p.kind);
    let unit = match kind {
        Some(ParamKind::Bytes | ParamKind::BytesOrAuto) => "bytes",
        Some(ParamKind::Duration) => "ns",
        _ => "count",
    };
    format!("{key} ({unit})")
}

/// The latency axis title: which latency it is, per what, in `unit`.
pub(crate) fn latency_title(kind: Option<LatencyKind>, unit: &str) -> String {
    let what = match kind {
        Some(LatencyKind::RoundTrip) => "latency per round trip",
        Some(LatencyKind::OneWay) => "one-way latency per message",
        Some(LatencyKind::PerCall) => "latency per call",
        None => "latency",
    };
    format!("{what} ({unit})")
}

/// `round-trip time: median over...` -> `round-trip time`.
fn first_clause(about: &str) -> &str {
    let end = [":", ";", ",", " ("]
        .iter()
        .filter_map(|sep| about.find(sep))
        .min()
        .unwrap_or(about.len());
    about[..end].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_carry_units_and_kinds() {
        assert_eq!(
            metric_title("pingpong", "rtt_ns", "ns"),
            "round-trip time (ns)"
        );
        assert_eq!(
            metric_title("nowhere", "bytes_per_s", "bytes/s"),
            "bytes per s (bytes/s)"
        );
        assert_eq!(param_title("stream", "size"), "size (bytes)");
        assert_eq!(param_title("poll-scale", "idle"), "idle (count)");
        assert_eq!(
            latency_title(Some(LatencyKind::PerCall), "ns"),
            "latency per call (ns)"
        );
    }
}
