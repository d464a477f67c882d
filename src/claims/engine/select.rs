//! Finding the results a claim reads: a selection is a scenario plus
//! parameter filters (and optionally "the point nearest to X"). Anything
//! missing, failed or unsupported comes back as `Err(reason)`, so a rule
//! can only decide on results that are really there. A selection reads
//! any `Point`: a result, or a case as planned, by which the claims say
//! which cases they compare before any has run.

use super::outcome::Found;
use crate::model::{CaseResult, Status};
use crate::scenario::CaseSpec;

/// What a selection reads of a case: its scenario and parameters, and
/// whether it can be read.
pub(crate) trait Point {
    fn scenario(&self) -> &str;
    fn param(&self, key: &str) -> Option<serde_json::Value>;
    /// Why its figures cannot be read (a result that is not ok).
    fn not_ok(&self) -> Option<String>;
}

impl Point for CaseResult {
    fn scenario(&self) -> &str {
        &self.scenario
    }
    fn param(&self, key: &str) -> Option<serde_json::Value> {
        self.params.get(key).cloned()
    }
    fn not_ok(&self) -> Option<String> {
        let why = self.reason.as_deref().unwrap_or("no reason recorded");
        (self.status != Status::Ok).then(|| {
            format!(
                "{} {} {}: {why}",
                self.scenario,
                self.case,
                self.status.as_str()
            )
        })
    }
}

impl<P: Point + ?Sized> Point for &P {
    fn scenario(&self) -> &str {
        (**self).scenario()
    }
    fn param(&self, key: &str) -> Option<serde_json::Value> {
        (**self).param(key)
    }
    fn not_ok(&self) -> Option<String> {
        (**self).not_ok()
    }
}

/// A case as planned reads as its result will: the same parameters.
impl Point for CaseSpec {
    fn scenario(&self) -> &str {
        self.scenario.name()
    }
    fn param(&self, key: &str) -> Option<serde_json::Value> {
        self.params_json().remove(key)
    }
    fn not_ok(&self) -> Option<String> {
        None
    }
}

/// A parameter as its selection filters write it: a string as it is,
/// a number as its digits.
fn param_text(p: &impl Point, key: &str) -> Option<String> {
    p.param(key).map(|v| match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    })
}

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

    pub(crate) fn matches(&self, r: &impl Point) -> bool {
        r.scenario() == self.scenario
            && self
                .params
                .iter()
                .all(|(k, v)| param_text(r, k).as_deref() == Some(*v))
    }

    /// Every ok result matching the filters, or why there is none.
    pub(crate) fn all<'a, P: Point>(&self, results: &'a [P]) -> Found<Vec<&'a P>> {
        let matching: Vec<&P> = results.iter().filter(|r| self.matches(*r)).collect();
        let ok: Vec<&P> = matching
            .iter()
            .copied()
            .filter(|r| r.not_ok().is_none())
            .collect();
        match (ok.is_empty(), matching.first().and_then(|bad| bad.not_ok())) {
            (false, _) => Ok(ok),
            (true, Some(why)) => Err(why),
            (true, None) => Err(format!("no result {} in this run", self.describe())),
        }
    }

    /// The one result the claim reads: the nearest to the target if there
    /// is one, and of equals the one with the most repetitions.
    pub(crate) fn one<'a, P: Point>(&self, results: &'a [P]) -> Found<&'a P> {
        let ok = self.all(results)?;
        let distance = |r: &P| match self.nearest {
            Some((key, target)) => param_f64(r, key).map(|x| (x - target).abs()),
            None => Some(0.0),
        };
        let key = |r: &P| (distance(r).unwrap_or(f64::INFINITY), -repeats(r));
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

/// A byte count as a size (`file-size=32 MiB`), any other value as it is.
fn sized(key: &str, value: &str) -> String {
    let bytes = key == "size" || key.ends_with("-size") || key == "buf";
    match (bytes, value.parse::<u64>()) {
        (true, Ok(n)) => crate::format::size(n),
        _ => value.to_string(),
    }
}

/// How many repetitions a result was measured with (1 when unknown).
pub(crate) fn repeats(r: &impl Point) -> f64 {
    param_f64(r, "repeat").unwrap_or(1.0)
}

/// A parameter as a number, e.g. `idle` or `file-size`.
pub(crate) fn param_f64(r: &impl Point, key: &str) -> Option<f64> {
    r.param(key).and_then(|v| v.as_f64())
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
