//! `Rule::Each`: a claim that makes one statement about several figures
//! ("each side runs at about 70% CPU") holds when every one of its rules
//! holds, does not hold when any of them does not, and is inconclusive
//! otherwise. Each rule's verdict and figure is a part of its own; the
//! figure counts them. The margin is that of the rules that decided: the
//! weakest of all when every one holds, of those that do not hold when any
//! fails, of the undecided ones otherwise.

use super::margin::{self, Margin};
use super::outcome::Outcome;
use crate::model::{ClaimPart, ClaimStatus};

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
    let figure = counted(&outcomes);
    let parts = outcomes
        .iter()
        .map(|o| ClaimPart {
            verdict: o.status,
            figure: o.figure.clone(),
        })
        .collect();
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
        parts,
    }
}

/// "2 parts: 1 holds, 1 does not hold".
fn counted(outcomes: &[Outcome]) -> String {
    let statuses = [
        ClaimStatus::Holds,
        ClaimStatus::DoesNotHold,
        ClaimStatus::Inconclusive,
    ];
    let counts: Vec<String> = statuses
        .iter()
        .map(|s| (s, outcomes.iter().filter(|o| o.status == *s).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| s.counted(n))
        .collect();
    format!("{} parts: {}", outcomes.len(), counts.join(", "))
}
