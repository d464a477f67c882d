//! Claims relative to the machine: where an original states an absolute
//! figure ("tens of microseconds"), its meaning is a multiple of what the
//! original's hardware paid for some basic operation. The rule divides
//! today's figure by the same reference point measured in the same run
//! (`limits`) and compares that multiple with the original's band divided
//! by the reference's cost on the original's hardware. A machine twice as
//! slow in everything gets the same verdict; the absolute figures stay in
//! the evidence ("30 us then, 18 us here; 6.0 wake-up round trips then,
//! 2.2 here").

use super::compare::{band, range_text};
use super::margin::Bands;
use super::numbers::num;
use super::outcome::{Found, Outcome};

use super::select::Select;
use super::value::{Quantity, RoundSeries, Value};
use crate::format::human;
use crate::model::CaseResult;
use crate::scenario::MetricSpec;

/// A `limits` reference point and what it cost on the original's hardware.
#[derive(Debug, Clone, Copy)]
pub struct Reference {
    /// The `limits` result that measures it.
    pub at: Select,
    pub(crate) metric: &'static MetricSpec,
    /// What one is called in a figure, e.g. "wake-up round trip".
    pub(crate) name: &'static str,
    /// Its cost on the original's hardware, in `metric`'s unit.
    pub(crate) then: f64,
    /// The original's hardware, and where `then` comes from.
    pub(crate) hardware: &'static str,
    /// The original's own figure, in the unit of the claim's quantity.
    pub(crate) original: f64,
    /// The reference follows the host's mode (a wake-up across CPUs costs
    /// several times more on a busy host), so a verdict read in it says
    /// which state the host was in.
    pub(crate) follows_the_host: bool,
}

/// Nanoseconds per unit of a time metric.
fn ns_per(unit: &str) -> Found<f64> {
    match unit.trim() {
        "ns" => Ok(1.0),
        "us" => Ok(1e3),
        "ms" => Ok(1e6),
        "s" => Ok(1e9),
        other => Err(format!(
            "a figure in {other:?} cannot be read against a time reference"
        )),
    }
}

/// The unit `q` is declared in.
pub(crate) fn unit(q: &Quantity) -> &'static str {
    match q {
        Quantity::Metric(spec) => spec.unit,
        Quantity::Per(_, _, unit) => unit,
    }
}

/// `v` with every number multiplied by `by` (a change of unit).
fn scaled(v: Value, by: f64) -> Value {
    Value {
        value: v.value * by,
        lo: v.lo * by,
        hi: v.hi * by,
        samples: v.samples.iter().map(|x| x * by).collect(),
        rounds: v.rounds.map(|r| RoundSeries {
            values: r.values.iter().map(|x| x * by).collect(),
            ..r
        }),
        ..v
    }
}

impl Reference {
    /// The original's band in multiples of this reference, and the
    /// original's figure likewise (`scale`: reference units per claim unit).
    fn then_multiples(&self, scale: f64, (lo, hi): (f64, f64)) -> (f64, f64, f64) {
        let per = |x: f64| x * scale / self.then;
        (per(lo), per(hi), per(self.original))
    }

    /// How the claim is read, for its text.
    pub(crate) fn form(&self, unit: &str) -> String {
        let scale = ns_per(unit).unwrap_or(1.0) / ns_per(self.metric.unit).unwrap_or(1.0);
        format!(
            "relative to this machine: the figure over this run's {} (limits), since the \
             original's {} {unit} meant about {} {}s on {}; an absolute band would judge \
             the hardware, not the mechanism",
            self.name,
            num(self.original),
            num(self.original * scale / self.then),
            self.name,
            self.hardware
        )
    }
}

/// The original's band in its own unit, each end in the unit that fits
/// it: `500 us-2.00 ms`, not `500000-2000000 ns`.
fn human_range(lo: f64, hi: f64, unit: &str) -> String {
    match hi.is_finite() {
        true => format!("{}-{}", human(lo, unit), human(hi, unit)),
        false => format!("at least {}", human(lo, unit)),
    }
}

pub(crate) fn decide(
    results: &[CaseResult],
    q: Quantity,
    at: &Select,
    reference: &Reference,
    absolute: (f64, f64),
) -> Found<Outcome> {
    let r = at.one(results)?;
    let v = q.of(r)?;
    let unit_value = Quantity::Metric(reference.metric).of(reference.at.one(results)?)?;
    let scale = ns_per(unit(&q))? / ns_per(reference.metric.unit)?;
    let scaled_v = scaled(v.clone(), scale);
    let e = scaled_v.over(&unit_value);
    let (lo, hi, then) = reference.then_multiples(scale, absolute);
    let name = at.name(r);
    let unit = unit(&q);
    let figure = format!(
        "{name} {} here, {} then; {} {}s here ({} each), {} then \
         (the claim: {} {}s, the original's {} over its {})",
        v.text(),
        human(reference.original, unit),
        num(e.value),
        reference.name,
        unit_value.text(),
        num(then),
        range_text(lo, hi),
        reference.name,
        human_range(absolute.0, absolute.1, unit),
        human(reference.then, reference.metric.unit),
    );
    let (edges, verdicts) = band(lo, hi);
    let bands = Bands {
        edges: &edges,
        verdicts: &verdicts,
    };
    let inputs = scaled_v.ratio_inputs(&name, &unit_value, reference.name);
    Ok(Outcome::judged(e, &bands, inputs, figure, num))
}
