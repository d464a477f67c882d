//! What a rule concludes: a verdict, the figure that decided it and, for a
//! rule that weighs a figure against a boundary, its margin. Every rule
//! kind and every seed's judge returns one; anything a rule could not find
//! comes back as `Err(reason)` (`Found`) and makes the claim inconclusive.

use super::estimate::Estimate;
use super::margin::{self, Bands, Margin, Uncertainty};
use crate::model::{ClaimPart, ClaimStatus, Weighed};

pub(crate) type Found<T> = Result<T, String>;

/// A verdict, the figure that decided it and, for a rule that weighs a
/// figure against a boundary, its margin (`margin.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub(crate) status: ClaimStatus,
    pub(crate) figure: String,
    pub(crate) margin: Option<Margin>,
    /// The figure weighed, with its interval, for a rule that weighs one.
    pub(crate) estimate: Option<Estimate>,
    /// The same with the rule's bands, as the run stores it.
    pub(crate) weighed: Option<Weighed>,
    /// Each statement's own verdict, for a claim of several (`each.rs`).
    pub(crate) parts: Vec<ClaimPart>,
}

impl Outcome {
    /// A verdict without a margin: from counts, or why nothing was weighed.
    pub(crate) fn new(status: ClaimStatus, figure: String) -> Outcome {
        Outcome {
            status,
            figure,
            margin: None,
            estimate: None,
            weighed: None,
            parts: Vec::new(),
        }
    }

    /// The verdict `bands` give the estimate `e`, with its margin; the
    /// figure gets the estimate's interval appended.
    pub(crate) fn judged(
        e: Estimate,
        bands: &Bands,
        inputs: Vec<Uncertainty>,
        figure: String,
        show: fn(f64) -> String,
    ) -> Outcome {
        if let Some(why) = margin::too_few(&inputs) {
            return Outcome::undecided(format!("{figure}; {why}"));
        }
        let paired = inputs.iter().find(|p| p.rounds).map(|p| p.reps);
        let (status, margin) = margin::judge(e, bands, inputs);
        let level = match paired {
            Some(_) => crate::stats::looks::level_text(),
            None => "95%".to_string(),
        };
        let interval = format!("{level} interval {}-{}", show(e.lo), show(e.hi));
        let figure = match paired {
            Some(rounds) => {
                format!("{figure}; paired over {rounds} interleaved rounds, {interval}")
            }
            None => format!("{figure}; {interval}"),
        };
        Outcome {
            status,
            figure,
            margin: Some(margin),
            estimate: Some(e),
            weighed: Some(weighed(e, bands)),
            parts: Vec::new(),
        }
    }

    /// The verdict of a count or an answer: holds when `holds`, else does
    /// not hold.
    pub(crate) fn agrees(holds: bool, figure: String) -> Outcome {
        let status = match holds {
            true => ClaimStatus::Holds,
            false => ClaimStatus::DoesNotHold,
        };
        Outcome::new(status, figure)
    }

    /// The evidence neither agrees nor contradicts: `figure` says why.
    pub(crate) fn undecided(figure: String) -> Outcome {
        Outcome::new(ClaimStatus::Inconclusive, figure)
    }
}

/// `e` and `bands` as the run stores them: an edge at either infinity
/// takes its band with it (nothing lies beyond it).
fn weighed(e: Estimate, bands: &Bands) -> Weighed {
    let mut edges = Vec::new();
    let mut verdicts = vec![bands.verdicts[0]];
    for (edge, above) in bands.edges.iter().zip(&bands.verdicts[1..]) {
        match edge.is_finite() {
            true => {
                edges.push(*edge);
                verdicts.push(*above);
            }
            false if *edge < 0.0 => verdicts = vec![*above],
            false => {}
        }
    }
    Weighed {
        value: e.value,
        lo: e.lo,
        hi: e.hi,
        edges,
        verdicts,
    }
}
