//! `iolab fleet`: one metric of a scenario's cases across every host and
//! kernel in the store, so a team can see which machine or kernel moved it.
//! Each (case, host, kernel) is one row: the median of its runs' values
//! (each already the median of that run's repetitions), the spread from the
//! lowest to the highest repetition of any of those runs, and how many runs
//! it rests on. The store hands over the results; this groups and prints.

use crate::error::UsageError;
use crate::model::{CaseResult, Environment};
use crate::scenario::{self, MetricSpec};
use crate::stats::estimators::median;
use comfy_table::presets::NOTHING;
use comfy_table::Table;
use std::collections::BTreeMap;

/// What `iolab fleet` was asked, checked against the scenario's metrics.
pub(crate) struct Query<'a> {
    scenario: &'a str,
    metric: &'static MetricSpec,
    case: Option<&'a str>,
}

/// One line of the table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FleetRow {
    pub(crate) case: String,
    pub(crate) host: String,
    pub(crate) kernel: String,
    pub(crate) median: f64,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) runs: usize,
}

impl<'a> Query<'a> {
    pub(crate) fn new(
        scenario: &'a str,
        metric: &str,
        case: Option<&'a str>,
    ) -> Result<Query<'a>, UsageError> {
        let found = scenario::find(scenario).ok_or_else(|| {
            UsageError::new(format!(
                "unknown scenario '{scenario}': expected one of {}",
                scenario::names().join(", ")
            ))
        })?;
        let metrics = found.metrics();
        let metric = metrics.iter().find(|m| m.name == metric).ok_or_else(|| {
            let names: Vec<&str> = metrics.iter().map(|m| m.name).collect();
            UsageError::new(format!(
                "bad --metric '{metric}': {scenario} measures {}",
                names.join(", ")
            ))
        })?;
        Ok(Query {
            scenario,
            metric,
            case,
        })
    }

    /// The rows, by case, then host, then kernel. A `--case` the store has
    /// no result of is a usage error naming the cases it has.
    pub(crate) fn rows(
        &self,
        results: &[(Environment, CaseResult)],
    ) -> Result<Vec<FleetRow>, UsageError> {
        if let Some(case) = self.case {
            if !results.iter().any(|(_, r)| r.case == case) {
                return Err(self.no_such_case(case, results));
            }
        }
        let mut groups: BTreeMap<(&str, &str, &str), Vec<&CaseResult>> = BTreeMap::new();
        for (env, result) in results {
            if self.case.is_none_or(|c| c == result.case) && self.metric.of(result).is_some() {
                let key = (
                    result.case.as_str(),
                    env.hostname.as_str(),
                    env.kernel.as_str(),
                );
                groups.entry(key).or_default().push(result);
            }
        }
        Ok(groups
            .into_iter()
            .map(|((case, host, kernel), runs)| self.row(case, host, kernel, &runs))
            .collect())
    }

    fn row(&self, case: &str, host: &str, kernel: &str, runs: &[&CaseResult]) -> FleetRow {
        let metrics: Vec<_> = runs.iter().filter_map(|r| self.metric.of(r)).collect();
        let mut values: Vec<f64> = metrics.iter().map(|m| m.value).collect();
        let lowest = metrics.iter().map(|m| m.min.unwrap_or(m.value));
        let highest = metrics.iter().map(|m| m.max.unwrap_or(m.value));
        FleetRow {
            case: case.to_string(),
            host: host.to_string(),
            kernel: kernel.to_string(),
            median: median(&mut values),
            lo: lowest.fold(f64::INFINITY, f64::min),
            hi: highest.fold(f64::NEG_INFINITY, f64::max),
            runs: metrics.len(),
        }
    }

    fn no_such_case(&self, case: &str, results: &[(Environment, CaseResult)]) -> UsageError {
        let mut cases: Vec<&str> = results.iter().map(|(_, r)| r.case.as_str()).collect();
        cases.sort_unstable();
        cases.dedup();
        let known = match cases.is_empty() {
            true => "the store has no result of it".to_string(),
            false => format!("the store has {}", cases.join(", ")),
        };
        UsageError::new(format!(
            "no {} case '{case}' in the store: {known}",
            self.scenario
        ))
    }
}

/// The rows as the terminal table, headed by what they show.
pub(crate) fn table(query: &Query, rows: &[FleetRow]) -> String {
    let (metric, unit) = (query.metric.name, query.metric.unit);
    if rows.is_empty() {
        return format!(
            "no {} result with {metric} in the store: push runs of it there first\n",
            query.scenario
        );
    }
    let mut t = Table::new();
    t.load_preset(NOTHING)
        .set_header(["case", "host", "kernel", metric, "spread", "runs"]);
    for r in rows {
        let stored = |s: &str| crate::format::printable(s, crate::format::STORED_WIDTH);
        t.add_row([
            stored(&r.case),
            stored(&r.host),
            stored(&r.kernel),
            crate::format::human(r.median, unit),
            crate::format::human_range(r.median, r.lo, r.hi, unit),
            r.runs.to_string(),
        ]);
    }
    format!(
        "{} {metric} ({unit}), median of each host and kernel's runs:\n{t}\n",
        query.scenario
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host name pushed from elsewhere is printed, never obeyed.
    #[test]
    fn the_table_escapes_stored_names() {
        let query = Query::new("pingpong", "rtt_ns", None).unwrap();
        let row = FleetRow {
            case: "pipe/same-cpu/processes/1B".into(),
            host: "vm\u{1b}]0;owned\u{7}\u{1b}[2J".into(),
            kernel: "6.18".into(),
            median: 5000.0,
            lo: 4000.0,
            hi: 6000.0,
            runs: 2,
        };
        let text = table(&query, &[row]);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains("vm\\u{1b}]0;owned\\u{7}\\u{1b}[2J"), "{text}");
    }
}
