//! One case planned from typed run arguments: what `iolab ab` compares
//! (each side given as run arguments) and what doctor's alternatives
//! measure (built in code). Both get the same checks a run's cases get
//! from `plan::build`, and the same narrowing to one case.

use super::Plan;
use crate::cli::RunArgs;
use crate::scenario::CaseSpec;

/// The one case `args` names, planned, or why it names none or several.
/// A round repeats it once unless the arguments say `--repeat N`.
pub(crate) fn one_case(args: &RunArgs) -> Result<Plan, String> {
    if args.targets.is_empty() {
        return Err("names no scenario (e.g. 'pingpong --mech pipe')".into());
    }
    if let Some(option) = refused_option(args) {
        return Err(format!("{option} is not an option of a compared case"));
    }
    let mut plan = super::build(args).map_err(|e| e.to_string())?;
    if args.placement.is_empty() {
        one_placement(&mut plan.cases);
    }
    let names: Vec<String> = plan.cases.iter().map(|c| c.name()).collect();
    if names.len() != 1 {
        return Err(format!(
            "names {} cases ({}): narrow it to one, e.g. with --mech, --placement or -p",
            names.len(),
            shortened(&names)
        ));
    }
    if let Some(why) = &plan.cases[0].unsupported {
        return Err(format!("cannot run here: {why}"));
    }
    if args.repeat.is_none() {
        plan.cases[0].repeat = 1;
    }
    let work = plan.cases[0].scenario.batch_work().map(|p| p.name);
    plan.cases[0].work_fixed = work.is_some_and(|name| sets(&args.params, name));
    Ok(plan)
}

/// The run options a compared case cannot carry: every output, store and
/// exit-status option (a comparison writes and stores one run, as its
/// command's own options say).
fn refused_option(args: &RunArgs) -> Option<&'static str> {
    if let Some((option, _)) = args.exports.given().first() {
        return Some(option);
    }
    let set = [
        (args.json.is_some(), "--json"),
        (args.csv.is_some(), "--csv"),
        (args.db.is_some(), "--db"),
        (args.no_store, "--no-store"),
        (args.push.is_some(), "--push"),
        (args.fail_on_unsupported, "--fail-on-unsupported"),
        (args.label.is_some(), "--label"),
        (args.repeat_runs.is_some(), "--repeat-runs"),
        (args.precision.is_some(), "--precision"),
        (args.profile, "--profile"),
        (args.seed.is_some(), "--seed"),
    ];
    set.into_iter().find(|(on, _)| *on).map(|(_, name)| name)
}

/// Arguments that name no placement compare their cases across CPUs, the
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
