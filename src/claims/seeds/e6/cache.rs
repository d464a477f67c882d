//! E6-read-evicts-cache's judge: how much of a file read twice survives a
//! file four times a memory cgroup's limit streamed through its cache.

use crate::claims::engine::observed::Observations;
use crate::claims::engine::outcome::{Found, Outcome};
use crate::model::ClaimStatus::{self, DoesNotHold, Holds, Inconclusive};

/// At most this share of A's pages kept: evicted.
const EVICTED: f64 = 0.5;
/// At least this share kept: not evicted.
const KEPT: f64 = 0.9;

/// E6-read-evicts-cache: how much of A, read twice, survives B streamed
/// through a cache a quarter of B's size: the median over the trials of
/// this run and of this host's earlier runs, since reclaim does not always
/// choose alike and one run's trials tend to choose together.
pub(crate) fn read_evicts(o: &Observations) -> Found<Outcome> {
    let pages = o.figure("a_pages")?;
    let (before, after) = (
        o.figure("a_resident_before")?,
        o.figure("a_resident_after")?,
    );
    let b = o.figure("b_resident_after")?;
    let mut figure = format!(
        "A (read twice): {before} of {pages} pages cached before streaming B, {after} after; \
         B: {b} pages cached after"
    );
    if pages <= 0.0 || before < KEPT * pages {
        figure.push_str(": A was not cached to begin with");
        return Ok(Outcome::new(Inconclusive, figure));
    }
    let (mut trials, runs) = o.every_run("a_resident_after_trial");
    let kept = match trials.is_empty() {
        true => after / before,
        false => crate::stats::estimators::median(&mut trials) / before,
    };
    figure.push_str(&format!(" ({:.0}% of A kept", kept * 100.0));
    if trials.len() > 1 {
        let kept_in = trials.iter().filter(|t| **t >= KEPT * before).count();
        let over = match runs {
            1 => String::new(),
            n => format!(" over {n} runs of this host"),
        };
        figure.push_str(&format!(
            ", the median of {} trials{over}; kept in {kept_in}",
            trials.len()
        ));
    }
    figure.push(')');
    let status: ClaimStatus = match kept {
        k if k <= EVICTED => Holds,
        k if k >= KEPT => DoesNotHold,
        _ => Inconclusive,
    };
    Ok(Outcome::new(status, figure))
}
