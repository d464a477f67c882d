//! E6-one-waiter-woken's judge: with several threads waiting on one epoll
//! fd, how many return with each event? Edge-triggered decides; the
//! level-triggered and EPOLLEXCLUSIVE counts stand beside it.

use crate::claims::engine::observed::Observations;
use crate::claims::engine::outcome::{Found, Outcome};
use crate::model::ClaimStatus::{DoesNotHold, Holds, Inconclusive};

/// The threads woken per event in each round of `mode`, or why none.
fn wakeups(o: &Observations, mode: &str) -> Found<Vec<u64>> {
    let name = format!("{mode}_wakeups");
    o.named(&name)?;
    o.every(&name)
        .iter()
        .map(|w| {
            w.figure
                .map(|f| f as u64)
                .ok_or_else(|| format!("{name} has no figure ({})", w.answer))
        })
        .collect()
}

fn listed(counts: &[u64]) -> String {
    let all: Vec<String> = counts.iter().map(u64::to_string).collect();
    all.join(", ")
}

/// E6-one-waiter-woken: edge-triggered, one shared epoll fd hands each
/// event to exactly one waiting thread in every round.
pub(crate) fn one_waiter(o: &Observations) -> Found<Outcome> {
    let edge = wakeups(o, "edge")?;
    let mut figure = format!("edge-triggered: {} threads per event", listed(&edge));
    for (mode, label) in [
        ("level", "level-triggered"),
        ("exclusive", "EPOLLEXCLUSIVE"),
    ] {
        if let Ok(counts) = wakeups(o, mode) {
            figure.push_str(&format!("; {label}: {}", listed(&counts)));
        }
    }
    let status = if edge.contains(&0) {
        figure.push_str(" (a round saw no thread return with the event)");
        Inconclusive
    } else if edge.iter().all(|n| *n == 1) {
        Holds
    } else if edge.iter().all(|n| *n > 1) {
        DoesNotHold
    } else {
        figure.push_str(" (the rounds disagree)");
        Inconclusive
    };
    Ok(Outcome::new(status, figure))
}
