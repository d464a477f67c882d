//! The values a claim weighs: a quantity (one metric, or the ratio of two)
//! read from a result, with its spread over repetitions, its value in each
//! interleaved round where the case ran in rounds, and how far it moved
//! across this host's earlier runs (shown as context, never weighed). A
//! missing metric comes back as `Err(reason)`.

use super::drift::Drift;
use super::estimate::Estimate;
use super::margin::{Uncertainty, MEASURED};
use super::outcome::Found;
use crate::model::{CaseResult, Metric, Rounds};
use crate::scenario::MetricSpec;
use crate::stats::bootstrap::{median_interval, ratio_interval};
use crate::stats::paired::{self, PairedRatio};

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
/// repetitions; none with a single repetition).
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
    /// case are known (`drift.rs`): context only.
    pub(crate) drift: Option<Drift>,
    /// Its value in each interleaved round, where its case ran in rounds.
    pub(crate) rounds: Option<RoundSeries>,
}

/// A value per interleaved round, and the seed that drew the rounds: two
/// values with the same seed and as many rounds ran side by side.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoundSeries {
    pub(crate) seed: u64,
    pub(crate) values: Vec<f64>,
}

fn metric<'a>(r: &'a CaseResult, spec: &MetricSpec) -> Found<&'a Metric> {
    spec.of(r)
        .ok_or_else(|| format!("{} {} has no metric {}", r.scenario, r.case, spec.name))
}

impl Quantity {
    /// The quantity in result `r`, with its spread, its rounds and its
    /// drift over the earlier runs of `r`'s case.
    pub(crate) fn of(&self, r: &CaseResult) -> Found<Value> {
        let mut value = match *self {
            Quantity::Metric(name) => Value::from_metric(metric(r, name)?),
            Quantity::Per(a, b, unit) => ratio(metric(r, a)?, metric(r, b)?)?.with_unit(unit),
        };
        let past: Vec<f64> = r
            .past
            .iter()
            .filter_map(|e| self.in_past(&e.metrics))
            .collect();
        value.drift = Drift::over(value.value, &past);
        value.rounds = r
            .rounds
            .as_ref()
            .filter(|rounds| rounds.interleaved)
            .and_then(|rounds| self.per_round(rounds));
        Ok(value)
    }

    /// The quantity in each of `rounds`, where every round measured it.
    fn per_round(&self, rounds: &Rounds) -> Option<RoundSeries> {
        let series = |m: &MetricSpec| rounds.metrics.get(m.name).filter(|v| v.len() >= 2);
        let values = match *self {
            Quantity::Metric(m) => series(m)?.clone(),
            Quantity::Per(a, b, _) => {
                let (a, b) = (series(a)?, series(b)?);
                (a.len() == b.len()).then_some(())?;
                a.iter().zip(b).map(|(x, y)| x / y).collect()
            }
        };
        Some(RoundSeries {
            seed: rounds.seed,
            values,
        })
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
        return Ok(Value::from_metric(&crate::measure::metric::metric(per, "")));
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
            rounds: None,
        }
        .with_unit(&format!(" {}", m.unit))
    }

    pub(crate) fn with_unit(mut self, unit: &str) -> Value {
        self.unit = unit.trim_end().to_string();
        self
    }

    /// A value measured once: no spread (a rule refuses to weigh it,
    /// `Outcome::judged`).
    pub(crate) fn single(value: f64) -> Value {
        Value {
            value,
            lo: value,
            hi: value,
            reps: 1,
            unit: String::new(),
            samples: Vec::new(),
            drift: None,
            rounds: None,
        }
    }

    /// The median with its 95% interval, from this run alone.
    pub(crate) fn estimate(&self) -> Estimate {
        self.within_run()
    }

    /// The median with its 95% interval from this run's repetitions
    /// alone: the bootstrap interval of the median from `MEASURED` of them
    /// on; with fewer, none (the value itself), and the rule that would
    /// weigh it is inconclusive instead (`Outcome::judged`).
    fn within_run(&self) -> Estimate {
        let measured = self.samples.len() >= MEASURED;
        let (lo, hi) = match median_interval(&self.samples) {
            Some(ci) if measured => ci,
            _ => (self.value, self.value),
        };
        Estimate {
            value: self.value,
            lo: lo.min(self.value),
            hi: hi.max(self.value),
        }
    }

    /// The uncertainty this value got in this run, named `name`, and its
    /// drift across runs.
    pub(crate) fn uncertainty(&self, name: &str) -> Uncertainty {
        Uncertainty {
            name: name.to_string(),
            relative: self.within_run().relative(),
            reps: self.reps,
            drift: self.drift,
            rounds: false,
        }
    }

    /// The uncertainties of `self / below`: their paired ratio's, over its
    /// rounds, where the two ran in the same interleaved rounds; else each
    /// value's own.
    pub(crate) fn ratio_inputs(
        &self,
        name: &str,
        below: &Value,
        below_name: &str,
    ) -> Vec<Uncertainty> {
        let paired = |relative: f64, rounds: usize| Uncertainty {
            name: format!("{name} / {below_name}, paired by round"),
            relative,
            reps: rounds,
            drift: None,
            rounds: true,
        };
        match (self.paired(below), self.same_rounds(below)) {
            (Some(p), _) => vec![paired(p.relative(), p.per_round.len())],
            (None, Some(per_round)) => vec![paired(f64::INFINITY, per_round.len())],
            (None, None) => vec![self.uncertainty(name), below.uncertainty(below_name)],
        }
    }

    /// `self / below` with its 95% interval: the median of their ratio
    /// within each round, with its interval over the rounds, where the two
    /// ran in the same interleaved rounds (`stats::paired`); else this
    /// run's two independent samples (`over_within_run`).
    pub(crate) fn over(&self, below: &Value) -> Estimate {
        match (self.paired(below), self.same_rounds(below)) {
            (Some(p), _) => Estimate {
                value: p.median,
                lo: p.lo,
                hi: p.hi,
            },
            (None, Some(mut per_round)) => {
                let value = crate::stats::estimators::median(&mut per_round);
                Estimate {
                    value,
                    lo: value,
                    hi: value,
                }
            }
            (None, None) => self.over_within_run(below),
        }
    }

    /// `self / below` round by round, when both ran in the same rounds and
    /// they are enough for its interval.
    fn paired(&self, below: &Value) -> Option<PairedRatio> {
        let (mine, theirs) = self.rounds_beside(below)?;
        paired::ratio(&theirs.values, &mine.values)
    }

    /// `self / below` in each round, when both ran in the same rounds
    /// (however few).
    fn same_rounds(&self, below: &Value) -> Option<Vec<f64>> {
        let (mine, theirs) = self.rounds_beside(below)?;
        Some(paired::per_round(&theirs.values, &mine.values))
    }

    /// Both values' rounds, when they ran in the same ones.
    fn rounds_beside<'a>(&'a self, below: &'a Value) -> Option<(&'a RoundSeries, &'a RoundSeries)> {
        let (mine, theirs) = (self.rounds.as_ref()?, below.rounds.as_ref()?);
        let same = mine.seed == theirs.seed && mine.values.len() == theirs.values.len();
        same.then_some((mine, theirs))
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
