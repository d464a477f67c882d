//! Which parameters and options apply to the scenarios being run: a
//! `--param` key must belong to one of them or to a selected mechanism (a
//! key of an unselected mechanism says which mechanism takes it), and
//! `--mech` given to scenarios that use no mechanism is noted as ignored.

use super::Invocation;
use crate::error::{UsageError, UsageResult};
use crate::mechanism::{self, Mechanism};
use std::collections::BTreeMap;

/// `KEY=VALUE` pairs; each key must belong to a scenario being run, or to
/// a selected mechanism when a scenario runs over mechanisms.
pub(crate) fn parse_params(
    raw: &[String],
    invocations: &[Invocation],
    mechs: &[&'static dyn Mechanism],
) -> UsageResult<BTreeMap<String, String>> {
    let mut known: Vec<&str> = invocations
        .iter()
        .flat_map(|i| i.scenario.params().iter().map(|p| p.name))
        .collect();
    if uses_mechanisms(invocations) {
        known.extend(mechs.iter().flat_map(|m| m.params().iter().map(|p| p.name)));
    }
    known.sort_unstable();
    known.dedup();
    let mut out = BTreeMap::new();
    for item in raw {
        let (key, value) = item.split_once('=').ok_or_else(|| {
            UsageError::new(format!(
                "invalid --param '{item}': expected KEY=VALUE, e.g. size=64"
            ))
        })?;
        if !known.contains(&key) {
            return Err(UsageError::new(unknown_key(
                key,
                &known,
                invocations,
                mechs,
            )));
        }
        if let Some(before) = out.insert(key.to_string(), value.to_string()) {
            return Err(UsageError::new(format!(
                "--param {key} given twice ({before}, then {value}): give one list, e.g. -p {key}={before},{value}"
            )));
        }
    }
    Ok(out)
}

/// Why `key` does not apply: it belongs to a mechanism not taking part, or
/// to nothing being run.
fn unknown_key(
    key: &str,
    known: &[&str],
    invocations: &[Invocation],
    mechs: &[&'static dyn Mechanism],
) -> String {
    let owners: Vec<&str> = mechanism::ALL
        .iter()
        .filter(|m| m.params().iter().any(|p| p.name == key))
        .map(|m| m.name())
        .collect();
    if owners.is_empty() {
        return format!(
            "unknown parameter '{key}' for {}: expected one of {}",
            scenario_names(invocations, |_| true).join(", "),
            known.join(", ")
        );
    }
    let refusers = if uses_mechanisms(invocations) {
        let names: Vec<&str> = mechs.iter().map(|m| m.name()).collect();
        let verb = if names.len() == 1 { "does" } else { "do" };
        format!("{} {verb} not take it", names.join(", "))
    } else {
        let names = scenario_names(invocations, |_| true);
        let verb = if names.len() == 1 { "uses" } else { "use" };
        format!("{} {verb} no mechanism", names.join(", "))
    };
    format!(
        "{key} is a parameter of the {} mechanism; {refusers}",
        owners.join(", ")
    )
}

/// One line for stderr when `--mech` was given and some scenarios being
/// run use no mechanism (they run, without it).
pub(crate) fn mechs_ignored(invocations: &[Invocation], mechs_explicit: bool) -> Option<String> {
    let names = scenario_names(invocations, |i| !i.scenario.uses_mechanisms());
    if !mechs_explicit || names.is_empty() {
        return None;
    }
    let verb = if names.len() == 1 { "uses" } else { "use" };
    Some(format!(
        "note: --mech is ignored for {}, which {verb} no mechanism",
        names.join(", ")
    ))
}

fn uses_mechanisms(invocations: &[Invocation]) -> bool {
    invocations.iter().any(|i| i.scenario.uses_mechanisms())
}

/// The names of the scenarios run that `keep` selects, each once, in order.
fn scenario_names(invocations: &[Invocation], keep: impl Fn(&Invocation) -> bool) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for inv in invocations.iter().filter(|i| keep(i)) {
        if !names.contains(&inv.scenario.name()) {
            names.push(inv.scenario.name());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    fn run(names: &[&str]) -> Vec<Invocation> {
        names
            .iter()
            .map(|n| Invocation {
                scenario: scenario::find(n).unwrap(),
                suite_params: &[],
                suite_repeat: None,
                suite_mechs: None,
            })
            .collect()
    }

    fn refused(scenarios: &[&str], mechs: &[&str], param: &str) -> String {
        let mechs: Vec<_> = mechs.iter().map(|m| mechanism::find(m).unwrap()).collect();
        parse_params(&[param.to_string()], &run(scenarios), &mechs)
            .unwrap_err()
            .0
    }

    #[test]
    fn a_mechanism_parameter_names_its_mechanism() {
        assert_eq!(
            refused(&["pingpong"], &["pipe"], "wake=spin"),
            "wake is a parameter of the shm mechanism; pipe does not take it"
        );
        assert_eq!(
            refused(&["pingpong"], &["pipe", "tcp"], "wake=spin"),
            "wake is a parameter of the shm mechanism; pipe, tcp do not take it"
        );
        assert_eq!(
            refused(&["limits"], &["shm"], "wake=spin"),
            "wake is a parameter of the shm mechanism; limits uses no mechanism"
        );
    }

    #[test]
    fn a_selected_mechanism_takes_its_parameter() {
        let mechs = [mechanism::find("shm").unwrap()];
        let params = parse_params(&["wake=spin".into()], &run(&["pingpong"]), &mechs).unwrap();
        assert_eq!(params["wake"], "spin");
    }

    #[test]
    fn an_unknown_key_lists_the_known_ones() {
        assert_eq!(
            refused(&["pingpong", "pingpong"], &["pipe"], "colour=blue"),
            "unknown parameter 'colour' for pingpong: expected one of count, pairs, rate, size"
        );
    }

    #[test]
    fn mech_is_noted_only_where_ignored_and_only_when_given() {
        assert_eq!(
            mechs_ignored(&run(&["limits", "pingpong", "limits"]), true).as_deref(),
            Some("note: --mech is ignored for limits, which uses no mechanism")
        );
        assert_eq!(
            mechs_ignored(&run(&["limits", "devnull"]), true).as_deref(),
            Some("note: --mech is ignored for limits, devnull, which use no mechanism")
        );
        assert_eq!(mechs_ignored(&run(&["limits"]), false), None);
        assert_eq!(mechs_ignored(&run(&["pingpong"]), true), None);
    }
}
