//! The judges of the claims E2 and E6 settle with one probe check each:
//! does a spawn that closes descriptors in a loop slow with `ulimit -n`,
//! does one event wake only one of the threads waiting on an epoll fd, and
//! does streaming a big file evict a file read twice. Each reads its
//! check's observations by name (`observed.rs`).

use super::margin::{Bands, Estimate, Precision};
use super::observed::Observations;
use super::pick::Found;
use super::rules::Outcome;
use crate::format::human;
use crate::model::ClaimStatus::{self, DoesNotHold, Holds, Inconclusive};

/// The loop-closing spawn at the hard limit over the one at 1024: holds
/// from this ratio (clearly slower) ...
const SLOWER: f64 = 1.5;
/// ... and does not hold below this one (no growth worth the name).
const NO_GROWTH: f64 = 1.2;
/// The hard limit must be this many times 1024 for the loop to matter.
const SPAN: f64 = 4.0;

/// A timed series of the check: its median, interval and runs.
struct Series {
    median: f64,
    lo: f64,
    hi: f64,
    runs: usize,
}

fn series(o: &Observations, name: &str) -> Found<Series> {
    Ok(Series {
        median: o.figure(name)?,
        lo: o.figure(&format!("{name}_lo"))?,
        hi: o.figure(&format!("{name}_hi"))?,
        runs: o.figure(&format!("{name}_runs"))? as usize,
    })
}

impl Series {
    fn precision(&self, name: &str) -> Precision {
        Precision {
            name: name.to_string(),
            relative: super::margin::relative(self.median, self.lo, self.hi),
            reps: self.runs,
            drift: None,
            judged_over: 1,
        }
    }
}

/// E2-spawn-vs-nofile: the spawn closing up to the hard limit over the one
/// closing up to 1024, with close_range's spawn beside it.
pub(crate) fn spawn_vs_nofile(o: &Observations) -> Found<Outcome> {
    let hard = o.figure("nofile_hard")?;
    if hard < SPAN * 1024.0 {
        return Err(format!(
            "the hard RLIMIT_NOFILE is {hard}: less than {SPAN} times 1024, too close to tell growth"
        ));
    }
    let (low, high) = (series(o, "loop_at_1024")?, series(o, "loop_at_hard")?);
    if low.lo <= 0.0 {
        return Err("the spawn at 1024 timed at 0 ns: too small to compare".into());
    }
    let e = Estimate {
        value: high.median / low.median,
        lo: high.lo / low.hi,
        hi: high.hi / low.lo,
    };
    let range = match series(o, "close_range_at_hard") {
        Ok(s) => format!("; with close_range(2) at {hard}: {}", human(s.median, "ns")),
        Err(_) => "; close_range(2) not measured".into(),
    };
    let figure = format!(
        "closing in a loop up to {hard}: {} per spawn vs up to 1024: {}: {}{range}",
        human(high.median, "ns"),
        human(low.median, "ns"),
        crate::format::ratio(e.value)
    );
    let bands = Bands {
        edges: &[NO_GROWTH, SLOWER],
        verdicts: &[DoesNotHold, Inconclusive, Holds],
    };
    let inputs = vec![
        low.precision("loop at 1024"),
        high.precision("loop at the hard limit"),
    ];
    Ok(Outcome::judged(
        e,
        &bands,
        inputs,
        figure,
        crate::format::ratio,
    ))
}

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
        false => crate::measure::stats::median(&mut trials) / before,
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
