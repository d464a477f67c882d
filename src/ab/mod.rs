//! `iolab ab A B`: two cases compared the way iolab's claims should be,
//! in randomized interleaved rounds (`runner::rounds`), decided by the
//! paired ratio of their headlines (`stats::paired`) against an
//! equivalence band (`verdict.rs`). This module turns the arguments into
//! the comparison, runs it and says what it found; `app` stores the run.

pub(crate) mod specs;
pub(crate) mod verdict;

use crate::cli::AbArgs;
use crate::error::UsageError;
use crate::format::{case_label, ratio};
use crate::model::{CaseResult, Finding};
use crate::plan::numbers::{duration, number_within};
use crate::plan::Plan;
use crate::runner::rounds::{self, Schedule, Watch};
use crate::stats::paired::{self, PairedRatio};
use std::time::Duration;
use verdict::Said;

/// A comparison, planned and checked.
pub(crate) struct Comparison {
    /// The two cases, A then B.
    pub(crate) plan: Plan,
    pub(crate) schedule: Schedule,
    /// The equivalence band, relative (0.05: ±5%).
    band: f64,
    /// The headline is a rate (higher is faster), not a time.
    higher_is_better: bool,
}

/// The comparison `args` ask for, or why it cannot be made.
pub(crate) fn plan(args: &AbArgs) -> Result<Comparison, UsageError> {
    let band = number_within(&args.band, "--band", 0.1, 100.0)? / 100.0;
    let min = number_within(&args.min_rounds, "--min-rounds", 2.0, 100_000.0)? as usize;
    let max = number_within(&args.max_rounds, "--max-rounds", 2.0, 100_000.0)? as usize;
    if max < min {
        let why = format!("--max-rounds {max} is below --min-rounds {min}: give at least {min}");
        return Err(UsageError::new(why));
    }
    let time_cap = duration(&args.time_cap, "--time-cap")?;
    let mut plan = specs::one_case("A", &args.a)?;
    let mut b = specs::one_case("B", &args.b)?;
    // What --explain costs is a comparison too: 'X' against 'X --explain'.
    plan.cases[0].explain = plan.explain;
    b.cases[0].explain = b.explain;
    specs::comparable(&plan.cases[0], &b.cases[0])?;
    plan.cases.extend(b.cases);
    plan.targets = format!("ab {} / {}", args.a, args.b);
    let higher_is_better = specs::headline(&plan.cases[0]).1.ends_with("/s");
    let schedule = Schedule {
        seed: args.seed.unwrap_or_else(crate::plan::clock_seed),
        min: if args.sequential { max } else { min },
        max,
        time_cap,
        interleaved: !args.sequential,
        sizing: Some(crate::runner::sizing::DEFAULT),
        floor: crate::stats::looks::FIRST_LOOK,
    };
    Ok(Comparison {
        plan,
        schedule,
        band,
        higher_is_better,
    })
}

/// Runs the rounds, `watch` told after each.
pub(crate) fn measure(
    c: &Comparison,
    progress: &dyn Fn(usize, usize),
) -> anyhow::Result<Vec<CaseResult>> {
    let watch = Decide { c, progress };
    rounds::run(&c.plan, &c.schedule, &watch)
}

struct Decide<'a> {
    c: &'a Comparison,
    progress: &'a dyn Fn(usize, usize),
}

impl Watch for Decide<'_> {
    fn round_done(&self, done: usize, max: usize) {
        (self.progress)(done, max);
    }

    fn decided(&self, so_far: Vec<CaseResult>, _spent: f64) -> bool {
        let series = |r: &CaseResult| r.rounds.as_ref().map(|r| r.values.clone());
        let (Some(a), Some(b)) = (series(&so_far[0]), series(&so_far[1])) else {
            return false;
        };
        paired::ratio(&a, &b).is_some_and(|p| {
            !matches!(
                verdict::judge(&p, self.c.band, self.c.higher_is_better),
                Said::Undecided { .. }
            )
        })
    }
}

/// The comparison's finding over its two results, or None when either
/// case has no rounds (it failed). Fewer rounds than a 99.5% interval
/// needs give an undecided finding with no interval.
pub(crate) fn finding(c: &Comparison, results: &[CaseResult], took: Duration) -> Option<Finding> {
    let series = |r: &CaseResult| r.rounds.as_ref().map(|r| r.values.clone());
    let (a, b) = (series(&results[0])?, series(&results[1])?);
    let names = [name(&results[0]), name(&results[1])];
    let Some(p) = paired::ratio(&a, &b) else {
        return Some(too_few_rounds(c, &names, &paired::per_round(&a, &b), took));
    };
    let said = verdict::judge(&p, c.band, c.higher_is_better);
    let text = format!("{}: {}", words(&said, &names, &p, c.band), how(c, &p, took));
    let finding = Finding::new("ab", text)
        .with("ratio_b_over_a", p.median, "x")
        .with("ratio_lo", p.lo, "x")
        .with("ratio_hi", p.hi, "x");
    Some(finding.with("rounds", p.per_round.len() as f64, "rounds"))
}

/// Undecided: `per_round` holds fewer ratios than the interval needs.
fn too_few_rounds(
    c: &Comparison,
    names: &[String; 2],
    per_round: &[f64],
    took: Duration,
) -> Finding {
    let rounds = per_round.len();
    let median = crate::stats::estimators::median(&mut per_round.to_vec());
    let text = format!(
        "undecided between A ({}) and B ({}): {rounds} interleaved round(s), fewer than the {} \
         a {} interval needs: more rounds (--max-rounds, --time-cap) would decide it: B/A {} \
         over {rounds} rounds in {:.1} s (seed {})",
        names[0],
        names[1],
        crate::stats::looks::FIRST_LOOK,
        crate::stats::looks::level_text(),
        ratio(median),
        took.as_secs_f64(),
        c.schedule.seed
    );
    let finding = Finding::new("ab", text);
    let finding = match median.is_finite() {
        true => finding.with("ratio_b_over_a", median, "x"),
        false => finding,
    };
    finding.with("rounds", rounds as f64, "rounds")
}

/// "B (pingpong eventfd/cross-cpu/processes/1B)".
fn name(r: &CaseResult) -> String {
    format!("{} {}", r.scenario, case_label(&r.case))
}

/// The verdict in plain words.
fn words(said: &Said, names: &[String; 2], p: &PairedRatio, band: f64) -> String {
    let within = format!("±{}%", band * 100.0);
    match said {
        Said::Same => format!(
            "A ({}) and B ({}) are about the same here (within {within})",
            names[0], names[1]
        ),
        Said::Faster { winner, by } => format!(
            "{} ({}) is {} faster than {} ({}) here (beyond {within})",
            ["A", "B"][*winner],
            names[*winner],
            ratio(*by),
            ["A", "B"][1 - winner],
            names[1 - winner]
        ),
        Said::Undecided { edge } => format!(
            "undecided between A ({}) and B ({}): {}",
            names[0],
            names[1],
            verdict::to_decide(p, *edge)
        ),
    }
}

/// "B/A 0.935x, 99.5% interval 0.91x-0.96x over 48 interleaved rounds in 6.2 s (seed 1234)".
fn how(c: &Comparison, p: &PairedRatio, took: Duration) -> String {
    let method = match c.schedule.interleaved {
        true => "interleaved rounds",
        false => "sequential rounds (all of A, then all of B: the host's drift between them counts as a difference)",
    };
    format!(
        "B/A {}, {} interval {}-{} over {} {method} in {:.1} s (seed {})",
        ratio(p.median),
        crate::stats::looks::level_text(),
        ratio(p.lo),
        ratio(p.hi),
        p.per_round.len(),
        took.as_secs_f64(),
        c.schedule.seed
    )
}
