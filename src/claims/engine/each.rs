//! `Rule::Each`: a claim that makes one statement about several figures
//! ("each side runs at about 70% CPU") holds when every one of its rules
//! holds, does not hold when any of them does not, and is inconclusive
//! otherwise. The figure lists each rule's; the margin is that of the
//! rules that decided: the weakest of all when every one holds, of those
//! that do not hold when any fails, of the undecided ones otherwise.

use super::margin::{self, Margin};
use super::outcome::Outcome;
use crate::model::ClaimStatus;

pub(crate) fn combine(outcomes: Vec<Outcome>) -> Outcome {
    let with = |status: ClaimStatus| outcomes.iter().any(|o| o.status == status);
    let status = match (
        with(ClaimStatus::DoesNotHold),
        with(ClaimStatus::Inconclusive),
    ) {
        (true, _) => ClaimStatus::DoesNotHold,
        (false, true) => ClaimStatus::Inconclusive,
        (false, false) => ClaimStatus::Holds,
    };
    let figure = outcomes
        .iter()
        .map(|o| format!("{}: {}", o.status.as_str(), o.figure))
        .collect::<Vec<_>>()
        .join("; ");
    let margin = outcomes
        .iter()
        .filter(|o| o.status == status)
        .filter_map(|o| o.margin.clone())
        .reduce(margin::weakest);
    Outcome {
        status,
        figure,
        margin: margin.map(|m| Margin {
            near: m.near && status == ClaimStatus::Inconclusive,
            ..m
        }),
        estimate: None,
        weighed: None,
    }
}
