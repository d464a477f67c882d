//! The two sides of `iolab ab`, each given as `iolab run` arguments that
//! name exactly one case: parsed by the same clap types as a run and
//! planned by `plan::one_case` (over `plan::build`), so every scenario,
//! mechanism, placement and parameter a run accepts works here too. Both
//! cases must report the same headline metric in the same unit, or their
//! ratio means nothing.

use crate::cli::{Cli, Command};
use crate::error::UsageError;
use crate::plan::Plan;
use crate::scenario::CaseSpec;
use clap::Parser;

/// The one case `spec` names, planned (`plan::one_case`); `which` ("A"
/// or "B") names it in errors.
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
    crate::plan::one_case(&args).map_err(bad)
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
