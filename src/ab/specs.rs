//! The two sides of `iolab ab`, each given as `iolab run` arguments that
//! name exactly one case: parsed by the same clap types and planned by the
//! same `plan::build` as a run, so every scenario, mechanism, placement
//! and parameter a run accepts works here too. Both cases must report the
//! same headline metric in the same unit, or their ratio means nothing.

use crate::cli::{Cli, Command, RunArgs};
use crate::error::UsageError;
use crate::plan::Plan;
use crate::scenario::CaseSpec;
use clap::Parser;

/// The run options that are `ab`'s own or that a round cannot honour.
fn refused_option(args: &RunArgs) -> Option<&'static str> {
    let set = [
        (args.json.is_some(), "--json"),
        (args.csv.is_some(), "--csv"),
        (args.db.is_some(), "--db"),
        (args.no_store, "--no-store"),
        (args.label.is_some(), "--label"),
        (args.repeat_runs.is_some(), "--repeat-runs"),
        (args.precision.is_some(), "--precision"),
        (args.profile, "--profile"),
        (args.seed.is_some(), "--seed"),
    ];
    set.into_iter().find(|(on, _)| *on).map(|(_, name)| name)
}

/// The one case `spec` names, planned; `which` ("A" or "B") names it in
/// errors. A round repeats it once unless the spec says `--repeat N`.
pub(crate) fn one_case(which: &str, spec: &str) -> Result<Plan, UsageError> {
    let bad = |why: String| UsageError::new(format!("{which} '{spec}': {why}"));
    let words = ["iolab", "run"].into_iter().chain(spec.split_whitespace());
    let args = match Cli::try_parse_from(words).map(|cli| cli.command) {
        Ok(Command::Run(args)) => args,
        Ok(_) => return Err(bad("not a run".into())),
        Err(e) => {
            let first = e.to_string().lines().next().unwrap_or_default().to_string();
            return Err(bad(first.trim_start_matches("error: ").to_string()));
        }
    };
    if args.targets.is_empty() {
        return Err(bad("names no scenario (e.g. 'pingpong --mech pipe')".into()));
    }
    if let Some(option) = refused_option(&args) {
        return Err(bad(format!("{option} is not an option of a compared case")));
    }
    let mut plan = crate::plan::build(&args).map_err(|e| bad(e.to_string()))?;
    if args.placement.is_empty() {
        one_placement(&mut plan.cases);
    }
    let names: Vec<String> = plan.cases.iter().map(|c| c.name()).collect();
    if names.len() != 1 {
        return Err(bad(format!(
            "names {} cases ({}): narrow it to one, e.g. with --mech, --placement or -p",
            names.len(),
            shortened(&names)
        )));
    }
    if let Some(why) = &plan.cases[0].unsupported {
        return Err(bad(format!("cannot run here: {why}")));
    }
    if args.repeat.is_none() {
        plan.cases[0].repeat = 1;
    }
    let work = plan.cases[0].scenario.batch_work().map(|p| p.name);
    plan.cases[0].work_fixed = work.is_some_and(|name| sets(&args.params, name));
    Ok(plan)
}

/// A spec that names no placement compares its cases across CPUs, the
/// placement two processes of a real program most often have: of cases
/// that differ only in placement, the cross-cpu one stays.
fn one_placement(cases: &mut Vec<CaseSpec>) {
    use crate::measure::pin::Placement;
    let cross = |c: &CaseSpec| c.placement == Some(Placement::CrossCpu) && c.unsupported.is_none();
    if cases.len() == 2 && cases.iter().any(cross) {
        let same_but_placement = {
            let (a, b) = (&cases[0], &cases[1]);
            a.values == b.values && a.mech.map(|m| m.name()) == b.mech.map(|m| m.name())
        };
        if same_but_placement {
            cases.retain(cross);
        }
    }
}

/// Whether `--param` values set `key`.
fn sets(params: &[String], key: &str) -> bool {
    params
        .iter()
        .any(|p| p.split_once('=').is_some_and(|(k, _)| k.trim() == key))
}

fn shortened(names: &[String]) -> String {
    match names.len() {
        0..=3 => names.join(", "),
        n => format!("{}, ... {} more", names[..2].join(", "), n - 2),
    }
}

/// The headline metric a case reports: its scenario's first.
pub(crate) fn headline(case: &CaseSpec) -> (&'static str, &'static str) {
    let m = &case.scenario.metrics()[0];
    (m.name, m.unit)
}

/// Refuses two cases whose headlines differ in metric or unit.
pub(crate) fn comparable(a: &CaseSpec, b: &CaseSpec) -> Result<(), UsageError> {
    let (ha, hb) = (headline(a), headline(b));
    if ha == hb {
        return Ok(());
    }
    Err(UsageError::new(format!(
        "A reports {} ({}) and B {} ({}): only cases with the same headline metric compare",
        ha.0, ha.1, hb.0, hb.1
    )))
}
