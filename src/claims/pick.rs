//! Finding the results a claim reads and the values it weighs: a selection
//! is a scenario plus parameter filters (and optionally "the point nearest
//! to X"); a value carries its spread over repetitions. Anything missing,
//! failed or unsupported comes back as `Err(reason)`, so a rule can only
//! decide on results that are really there.

use super::drift::Drift;
use super::margin::{Estimate, Precision};
use super::pooled::{self, RunFigure};
use crate::measure::bootstrap::{median_interval, ratio_interval};
use crate::model::{CaseResult, Metric, Status};
use crate::scenario::MetricSpec;

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

/// What a rule weighs: one metric, or the ratio of two metrics of the same
/// result (per repetition when both have them), each as its scenario
/// declares it.
#[derive(Debug, Clone, Copy)]
pub enum Quantity {
    Metric(&'static MetricSpec),
    /// `a / b`, shown with the given unit, e.g. `Per(&CSW_PER_S, &MSGS_PER_S, " csw/msg")`.
    Per(&'static MetricSpec, &'static MetricSpec, &'static str),
}

/// One decided-upon number: the median and its spread (min..max of the
/// repetitions; with a single repetition, `SINGLE_NOISE` either side).
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub(crate) value: f64,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) reps: usize,
    /// Shown after the number, e.g. " ns".
    pub(crate) unit: String,
    /// The per-repetition values, when there were several.
    pub(crate) samples: Vec<f64>,
    /// How far it moved across this host's runs, where earlier runs of its
    /// case are known (`drift.rs`).
    pub(crate) drift: Option<Drift>,
    /// Its figure in the earlier runs of this host that measured it
    /// (`pooled.rs`), newest first.
    pub(crate) earlier: Vec<RunFigure>,
}

/// The spread assumed either side of a value measured only once.
pub(crate) const SINGLE_NOISE: f64 = 0.05;

/// From this many repetitions on, their own spread is the uncertainty.
pub(crate) const MEASURED: usize = 3;

pub(crate) type Found<T> = Result<T, String>;

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

fn metric<'a>(r: &'a CaseResult, spec: &MetricSpec) -> Found<&'a Metric> {
    spec.of(r)
        .ok_or_else(|| format!("{} {} has no metric {}", r.scenario, r.case, spec.name))
}

impl Quantity {
    /// The quantity in result `r`, with its spread and its drift over
    /// the earlier runs of `r`'s case.
    pub(crate) fn of(&self, r: &CaseResult) -> Found<Value> {
        let mut value = match *self {
            Quantity::Metric(name) => Value::from_metric(metric(r, name)?),
            Quantity::Per(a, b, unit) => ratio(metric(r, a)?, metric(r, b)?)?.with_unit(unit),
        };
        value.earlier = r
            .past
            .iter()
            .filter_map(|e| {
                let value = self.in_past(&e.metrics)?;
                let run = Some(e.run_id.clone());
                Some(RunFigure { run, value })
            })
            .collect();
        let past: Vec<f64> = value.earlier.iter().map(|f| f.value).collect();
        value.drift = Drift::over(value.value, &past);
        Ok(value)
    }

    /// The quantity in one earlier run's metric values.
    fn in_past(&self, metrics: &std::collections::BTreeMap<String, f64>) -> Option<f64> {
        match *self {
            Quantity::Metric(m) => metrics.get(m.name).copied(),
            Quantity::Per(a, b, _) => {
                let (a, b) = (metrics.get(a.name)?, metrics.get(b.name)?);
                (*b != 0.0).then(|| a / b)
            }
        }
    }
}

/// `a / b`, per repetition when both metrics carry the same number of them.
fn ratio(a: &Metric, b: &Metric) -> Found<Value> {
    if b.value == 0.0 {
        return Err("division by a zero metric".into());
    }
    if a.reps.len() == b.reps.len() && a.reps.len() > 1 {
        let per: Vec<f64> = a.reps.iter().zip(&b.reps).map(|(x, y)| x / y).collect();
        return Ok(Value::from_metric(&crate::measure::stats::metric(per, "")));
    }
    Ok(Value::single(a.value / b.value))
}

impl Value {
    pub(crate) fn from_metric(m: &Metric) -> Value {
        let reps = m.reps.len().max(1);
        if reps < 2 {
            return Value::single(m.value).with_unit(&format!(" {}", m.unit));
        }
        Value {
            value: m.value,
            lo: m.min.unwrap_or(m.value),
            hi: m.max.unwrap_or(m.value),
            reps,
            unit: String::new(),
            samples: m.reps.clone(),
            drift: None,
            earlier: Vec::new(),
        }
        .with_unit(&format!(" {}", m.unit))
    }

    pub(crate) fn with_unit(mut self, unit: &str) -> Value {
        self.unit = unit.trim_end().to_string();
        self
    }

    pub(crate) fn single(value: f64) -> Value {
        let (a, b) = (value * (1.0 - SINGLE_NOISE), value * (1.0 + SINGLE_NOISE));
        Value {
            value,
            lo: a.min(b),
            hi: a.max(b),
            reps: 1,
            unit: String::new(),
            samples: Vec::new(),
            drift: None,
            earlier: Vec::new(),
        }
    }

    /// The median with its 95% interval: over this host's runs where at
    /// least `pooled::MIN_RUNS` measured it (`pooled.rs`), else this run's.
    pub(crate) fn estimate(&self) -> Estimate {
        let within = self.within_run();
        pooled::estimate(&self.figures(), within.relative()).unwrap_or(within)
    }

    /// Its figure in this run and in each earlier run, this run first.
    fn runs(&self) -> Vec<RunFigure> {
        let now = RunFigure {
            run: None,
            value: self.value,
        };
        std::iter::once(now).chain(self.earlier.clone()).collect()
    }

    fn figures(&self) -> Vec<f64> {
        self.runs().iter().map(|f| f.value).collect()
    }

    /// How many runs its estimate is judged over.
    pub(crate) fn runs_judged(&self) -> usize {
        let positive = self.figures().iter().filter(|v| **v > 0.0).count();
        match positive {
            n if n >= pooled::MIN_RUNS => n,
            _ => 1,
        }
    }

    /// The median with its 95% interval from this run's repetitions
    /// alone: the bootstrap interval of the median, at least
    /// `SINGLE_NOISE` either side with fewer than `MEASURED` of them (two
    /// that agree by chance say little).
    fn within_run(&self) -> Estimate {
        let assumed = (
            self.value * (1.0 - SINGLE_NOISE),
            self.value * (1.0 + SINGLE_NOISE),
        );
        let (lo, hi) = match median_interval(&self.samples) {
            Some(ci) if self.samples.len() >= MEASURED => ci,
            Some((lo, hi)) => (lo.min(assumed.0), hi.max(assumed.1)),
            None => assumed,
        };
        Estimate {
            value: self.value,
            lo: lo.min(self.value),
            hi: hi.max(self.value),
        }
    }

    /// The precision this value got in this run, named `name`, and its
    /// drift across runs.
    pub(crate) fn precision(&self, name: &str) -> Precision {
        Precision {
            name: name.to_string(),
            relative: self.within_run().relative(),
            reps: self.reps,
            drift: self.drift,
            judged_over: self.runs_judged(),
        }
    }

    /// `self / below` with its 95% interval: over this host's runs, the
    /// median of the ratio taken run by run where at least
    /// `pooled::MIN_RUNS` runs measured both (`pooled.rs`); else the
    /// widest ratio their estimates allow when either is judged over runs;
    /// else this run's (`over_within_run`).
    pub(crate) fn over(&self, below: &Value) -> Estimate {
        let within = self.over_within_run(below);
        let paired = pooled::ratios(&self.runs(), &below.runs());
        if let Some(e) = pooled::estimate(&paired, within.relative()) {
            return e;
        }
        match self.runs_judged().max(below.runs_judged()) > 1 {
            true => widest_ratio(self.estimate(), below.estimate()),
            false => within,
        }
    }

    /// `self / below` from this run alone: the bootstrap interval of the
    /// ratio of medians when both have `MEASURED` repetitions, else the
    /// widest ratio the two intervals allow.
    fn over_within_run(&self, below: &Value) -> Estimate {
        let measured = self.samples.len().min(below.samples.len()) >= MEASURED;
        let bootstrap = measured
            .then(|| ratio_interval(&below.samples, &self.samples))
            .flatten();
        match bootstrap {
            Some((lo, hi)) => {
                let value = self.value / below.value;
                Estimate {
                    value,
                    lo: lo.min(value),
                    hi: hi.max(value),
                }
            }
            None => widest_ratio(self.within_run(), below.within_run()),
        }
    }

    /// The value in the unit that fits, and its spread: "3.21 us
    /// (3.10-3.40, 5 reps)".
    pub(crate) fn text(&self) -> String {
        use crate::format::{human, human_range};
        let unit = self.unit.trim();
        let spread = if self.reps < 2 {
            "1 rep".to_string()
        } else {
            let range = human_range(self.value, self.lo, self.hi, unit);
            format!("{range}, {} reps", self.reps)
        };
        let spread = match self.drift {
            Some(d) => format!("{spread}; runs {}", d.text()),
            None => spread,
        };
        format!("{} ({spread})", human(self.value, unit))
    }
}

/// `a / b` with the widest interval their intervals allow.
fn widest_ratio(a: Estimate, b: Estimate) -> Estimate {
    let value = a.value / b.value;
    Estimate {
        value,
        lo: (a.lo / b.hi).min(value),
        hi: (a.hi / b.lo).max(value),
    }
}

/// A number with three significant digits or so.
pub(crate) fn num(x: f64) -> String {
    let a = x.abs();
    if x.fract() == 0.0 && a < 1e15 {
        return format!("{x:.0}");
    }
    if a < 1.0 {
        // Three significant digits: a threshold of 1 in 10,000 is 0.000100.
        let decimals = (2 - a.log10().floor() as i32).clamp(3, 12) as usize;
        return format!("{x:.decimals$}");
    }
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}
