//! E2-spawn-vs-nofile's judge: does a spawn that closes descriptors in a
//! loop slow with `ulimit -n`? It reads the probe check's timed series by
//! name: the spawn closing up to 1024, up to the hard limit, and with
//! close_range(2) beside them.

use crate::claims::engine::estimate::{relative, Estimate};
use crate::claims::engine::margin::{Bands, Uncertainty};
use crate::claims::engine::observed::Observations;
use crate::claims::engine::outcome::{Found, Outcome};
use crate::format::human;
use crate::model::ClaimStatus::{DoesNotHold, Holds, Inconclusive};

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
    fn uncertainty(&self, name: &str) -> Uncertainty {
        Uncertainty {
            name: name.to_string(),
            relative: relative(self.median, self.lo, self.hi),
            reps: self.runs,
            drift: None,
            rounds: false,
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
        low.uncertainty("loop at 1024"),
        high.uncertainty("loop at the hard limit"),
    ];
    Ok(Outcome::judged(
        e,
        &bands,
        inputs,
        figure,
        crate::format::ratio,
    ))
}
