//! Finding the results a claim reads: a selection is a scenario plus
//! parameter filters (and optionally "the point nearest to X"). Anything
//! missing, failed or unsupported comes back as `Err(reason)`, so a rule
//! can only decide on results that are really there.

use super::outcome::Found;
use crate::model::{CaseResult, Status};

/// Results of one scenario whose parameters match `params` (as text, e.g.
/// `("file-size", "67108864")`); with `nearest`, the matching ok result
/// whose parameter is closest to the target.
#[derive(Debug, Clone, Copy)]
pub struct Select {
    /// How the figure names it, e.g. "noatime".
    pub(crate) label: &'static str,
    pub scenario: &'static str,
    pub params: &'static [(&'static str, &'static str)],
    pub nearest: Option<(&'static str, f64)>,
}

impl Select {
    /// The filters as text, e.g. "poller=poll active=1".
    pub(crate) fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if let Some((key, target)) = self.nearest {
            parts.push(format!("{key} near {}", crate::format::typed_count(target)));
        }
        format!("{} {}", self.scenario, parts.join(" "))
    }

    /// The label, and the point taken when the select looks for the
    /// nearest, e.g. "poll at fds=5000".
    pub(crate) fn name(&self, r: &CaseResult) -> String {
        match self
            .nearest
            .and_then(|(key, _)| r.param_str(key).map(|v| (key, v)))
        {
            Some((key, v)) => format!("{} at {key}={}", self.label, sized(key, &v)),
            None => self.label.to_string(),
        }
    }

    pub(crate) fn matches(&self, r: &CaseResult) -> bool {
        r.scenario == self.scenario
            && self
                .params
                .iter()
                .all(|(k, v)| r.param_str(k).as_deref() == Some(*v))
    }

    /// Every ok result matching the filters, or why there is none.
    pub(crate) fn all<'a>(&self, results: &'a [CaseResult]) -> Found<Vec<&'a CaseResult>> {
        let matching: Vec<&CaseResult> = results.iter().filter(|r| self.matches(r)).collect();
        let ok: Vec<&CaseResult> = matching
            .iter()
            .copied()
            .filter(|r| r.status == Status::Ok)
            .collect();
        match (ok.is_empty(), matching.first()) {
            (false, _) => Ok(ok),
            (true, Some(bad)) => Err(not_ok(bad)),
            (true, None) => Err(format!("no result {} in this run", self.describe())),
        }
    }

    /// The one result the claim reads: the nearest to the target if there
    /// is one, and of equals the one with the most repetitions.
    pub(crate) fn one<'a>(&self, results: &'a [CaseResult]) -> Found<&'a CaseResult> {
        let ok = self.all(results)?;
        let distance = |r: &CaseResult| match self.nearest {
            Some((key, target)) => param_f64(r, key).map(|x| (x - target).abs()),
            None => Some(0.0),
        };
        let key = |r: &CaseResult| (distance(r).unwrap_or(f64::INFINITY), -repeats(r));
        ok.into_iter()
            .filter(|r| distance(r).is_some())
            .min_by(|a, b| {
                let (da, ra) = key(a);
                let (db, rb) = key(b);
                da.total_cmp(&db).then(ra.total_cmp(&rb))
            })
            .ok_or_else(|| format!("no result {} has a numeric parameter", self.describe()))
    }
}

fn not_ok(r: &CaseResult) -> String {
    let why = r.reason.as_deref().unwrap_or("no reason recorded");
    format!("{} {} {}: {why}", r.scenario, r.case, r.status.as_str())
}

/// A byte count as a size (`file-size=32 MiB`), any other value as it is.
fn sized(key: &str, value: &str) -> String {
    let bytes = key == "size" || key.ends_with("-size") || key == "buf";
    match (bytes, value.parse::<u64>()) {
        (true, Ok(n)) => crate::format::size(n),
        _ => value.to_string(),
    }
}

/// How many repetitions a result was measured with (1 when unknown).
pub(crate) fn repeats(r: &CaseResult) -> f64 {
    param_f64(r, "repeat").unwrap_or(1.0)
}

/// A parameter as a number, e.g. `idle` or `file-size`.
pub(crate) fn param_f64(r: &CaseResult, key: &str) -> Option<f64> {
    r.params.get(key).and_then(|v| v.as_f64())
}

/// A selection of `scenario`'s results by their parameters.
pub(crate) const fn sel(
    label: &'static str,
    scenario: &'static str,
    params: &'static [(&'static str, &'static str)],
) -> Select {
    Select {
        label,
        scenario,
        params,
        nearest: None,
    }
}

/// The matching result whose `key` is nearest to `target`.
pub(crate) const fn near(select: Select, key: &'static str, target: f64) -> Select {
    Select {
        nearest: Some((key, target)),
        ..select
    }
}
