//! How sure a verdict is, the same way for every rule: a rule reduces its
//! results to one figure with a 95% interval (`Estimate`) and says where
//! its verdict changes (`Bands`). The margin is how far the figure lies
//! from the nearest boundary in units of the interval's half-width on that
//! side; a figure whose interval reaches a boundary (margin at most 1) is
//! `inconclusive: near the boundary`, never a verdict either way. What would
//! decide such a verdict (`to_decide`) comes from the precision each input
//! got and the claim's smallest effect.

use super::drift::Drift;
use super::estimate::Estimate;
use super::numbers::{num, plus_minus};
use crate::model::ClaimStatus;

/// Margins are capped here: beyond it the interval is negligibly narrow.
const MAX_MARGIN: f64 = 999.0;

/// From this many repetitions on, their own spread is the uncertainty.
pub(crate) const MEASURED: usize = 3;

/// The uncertainty one input of a figure got: its interval's half-width
/// relative to its value, over so many repetitions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Uncertainty {
    pub(crate) name: String,
    pub(crate) relative: f64,
    pub(crate) reps: usize,
    /// How far it moved across this host's runs, where known.
    pub(crate) drift: Option<Drift>,
    /// A paired ratio's uncertainty over interleaved rounds (`reps` counts
    /// the rounds), not one value's over its repetitions.
    pub(crate) rounds: bool,
}

/// Where a rule's verdict changes: `edges` ascending, `verdicts` one more,
/// the verdict below the first edge, between each pair and above the last
/// (a figure on an edge belongs above it).
pub(crate) struct Bands<'a> {
    pub(crate) edges: &'a [f64],
    pub(crate) verdicts: &'a [ClaimStatus],
}

/// Why `inputs` are too few to weigh, if they are: an input measured
/// fewer than `MEASURED` times has no interval of its own, and a paired
/// ratio over fewer rounds than its interval needs has none either; no
/// interval is ever assumed in their place.
pub(crate) fn too_few(inputs: &[Uncertainty]) -> Option<String> {
    let first_look = crate::stats::looks::FIRST_LOOK;
    let few = |p: &&Uncertainty| match p.rounds {
        true => p.reps < first_look,
        false => p.reps < MEASURED,
    };
    let p = inputs.iter().find(few)?;
    Some(match p.rounds {
        true => format!(
            "no verdict from {} interleaved round(s) of {}: a {} interval needs at least \
             {first_look}",
            p.reps,
            p.name,
            crate::stats::looks::level_text()
        ),
        false => format!(
            "no verdict from {} repetition(s) of {}: an interval needs at least {MEASURED} \
             (or the seeds suite's interleaved rounds)",
            p.reps, p.name
        ),
    })
}

/// A verdict with its margin.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Margin {
    /// Distance to the nearest boundary in half-widths of the interval.
    pub(crate) margin: f64,
    /// The interval reaches a boundary: no verdict either way.
    pub(crate) near: bool,
    /// The boundary nearest to the figure.
    pub(crate) boundary: f64,
    pub(crate) inputs: Vec<Uncertainty>,
}

/// The verdict `bands` give `e`, and its margin: its distance to the
/// boundary it is least clear of (every boundary counts, since an interval
/// need not be symmetric); near a boundary the verdict is `Inconclusive`.
pub(crate) fn judge(e: Estimate, bands: &Bands, inputs: Vec<Uncertainty>) -> (ClaimStatus, Margin) {
    debug_assert_eq!(bands.edges.len() + 1, bands.verdicts.len());
    let band = bands.edges.iter().filter(|edge| e.value >= **edge).count();
    let (margin, boundary) = bands
        .edges
        .iter()
        .filter(|edge| edge.is_finite())
        .map(|edge| (in_half_widths(&e, *edge), *edge))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or((MAX_MARGIN, f64::NAN));
    let near = margin <= 1.0;
    let status = match near {
        true => ClaimStatus::Inconclusive,
        false => bands.verdicts[band],
    };
    let m = Margin {
        margin,
        near,
        boundary,
        inputs,
    };
    (status, m)
}

/// How far `edge` lies from the figure in half-widths of its interval on
/// that side (at most `MAX_MARGIN`).
fn in_half_widths(e: &Estimate, edge: f64) -> f64 {
    let half = match edge < e.value {
        true => e.value - e.lo,
        false => e.hi - e.value,
    };
    let floor = e.value.abs() * 1e-9 + f64::MIN_POSITIVE;
    ((e.value - edge).abs() / half.max(floor)).min(MAX_MARGIN)
}

/// Two signs' margins as one: the verdict is as sure as its weaker sign.
pub(crate) fn weakest(a: Margin, b: Margin) -> Margin {
    let mut inputs = a.inputs.clone();
    inputs.extend(b.inputs.iter().filter(|p| !a.inputs.contains(p)).cloned());
    let (margin, boundary) = match a.margin <= b.margin {
        true => (a.margin, a.boundary),
        false => (b.margin, b.boundary),
    };
    Margin {
        margin,
        near: a.near || b.near,
        boundary,
        inputs,
    }
}

impl Margin {
    /// "±6% (poll) and ±4% (epoll) after 5 repetitions", or "±2% (poll /
    /// epoll, paired by round) after 30 interleaved rounds".
    pub(crate) fn got(&self) -> String {
        let parts: Vec<String> = self
            .inputs
            .iter()
            .map(|p| format!("{} ({})", plus_minus(p.relative), p.name))
            .collect();
        let reps: Vec<usize> = self.inputs.iter().map(|p| p.reps).collect();
        let counts: Vec<String> = match reps.iter().min() == reps.iter().max() {
            true => reps.first().map(|r| r.to_string()).into_iter().collect(),
            false => reps.iter().map(|r| r.to_string()).collect(),
        };
        let rounds = self.inputs.iter().all(|p| p.rounds) && !self.inputs.is_empty();
        let plural = match rounds {
            true => "interleaved rounds",
            false => "repetitions",
        };
        format!(
            "{} after {} {plural}",
            parts.join(" and "),
            counts.join(" and ")
        )
    }

    /// What would decide an inconclusive verdict, for a claim that must
    /// resolve `precision` (relative half-width wanted on every input).
    pub(crate) fn to_decide(&self, precision: f64, status: ClaimStatus) -> Option<String> {
        if status != ClaimStatus::Inconclusive {
            return None;
        }
        let on = match self.inputs.len() {
            0 | 1 => "",
            2 => " on both",
            _ => " on each",
        };
        let worst = self.inputs.iter().map(|p| p.relative).fold(0.0, f64::max);
        let single = self.inputs.iter().any(|p| p.reps < MEASURED);
        if !self.near {
            return Some(format!(
                "the figure lies between the claim's bounds (or its signs disagree): more \
                 precision would not decide it (got {})",
                self.got()
            ));
        }
        if worst <= precision && !single {
            return Some(format!(
                "the figure is within the claim's resolution ({}) of its boundary {}: \
                 the effect is smaller than the claim resolves; got {}",
                plus_minus(precision),
                num(self.boundary),
                self.got()
            ));
        }
        let measured = match (single, self.inputs.iter().any(|p| p.rounds)) {
            (_, true) => ": more interleaved rounds than its time cap allowed",
            (true, false) => ", measured over at least 3 repetitions",
            (false, false) => "",
        };
        Some(format!(
            "needs {}{on}{measured}; got {}",
            plus_minus(precision),
            self.got()
        ))
    }
}

/// "margin 3.2" for a stored margin.
pub(crate) fn text(margin: f64) -> String {
    match margin {
        m if m >= MAX_MARGIN => format!("margin >{MAX_MARGIN:.0}"),
        m if m >= 10.0 => format!("margin {m:.0}"),
        m => format!("margin {m:.1}"),
    }
}
