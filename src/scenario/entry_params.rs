//! The one check of a parameter a suite entry or a claim names in code:
//! the scenario (or, for a scenario over mechanisms, one of its
//! mechanisms, or `mech` and `placement` themselves) takes the parameter,
//! and the value parses as that parameter's kind. The suites' and the
//! claims' unit tests run every entry through it, so a misspelt name or
//! value fails a test that names the entry.

use super::Scenario;
use crate::measure::pin::Placement;
use crate::params::parse_list;

/// Why `key=value` is not a parameter `scenario` accepts, or Ok.
pub(crate) fn check(scenario: &dyn Scenario, key: &str, value: &str) -> Result<(), String> {
    let name = scenario.name();
    let over_mechanisms = scenario.uses_mechanisms();
    match key {
        "mech" | "placement" if !over_mechanisms => Err(format!(
            "{name} runs over no mechanisms, so it takes no {key}"
        )),
        "mech" => each(value, |m| crate::mechanism::find(m).is_some(), "mechanism"),
        "placement" => each(value, |p| Placement::parse(p).is_some(), "placement"),
        _ => {
            let of_mechanism = || {
                let mut mechs = crate::mechanism::ALL.iter().filter(|_| over_mechanisms);
                mechs.find_map(|m| m.params().iter().find(|p| p.name == key))
            };
            let spec = scenario.param(key).or_else(of_mechanism).ok_or_else(|| {
                let takes: Vec<&str> = scenario.params().iter().map(|p| p.name).collect();
                format!(
                    "{name} has no parameter '{key}' (it takes {})",
                    takes.join(", ")
                )
            })?;
            parse_list(spec, value).map(|_| ())
        }
    }
}

/// Each comma-separated item of `value` passes `known`, or which does not.
fn each(value: &str, known: impl Fn(&str) -> bool, what: &str) -> Result<(), String> {
    match value.split(',').find(|item| !known(item)) {
        Some(bad) => Err(format!("no {what} '{bad}'")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_name_or_value_says_what_is_wrong() {
        let contention = crate::scenario::find("contention").unwrap();
        assert_eq!(check(contention, "test", "both"), Ok(()));
        assert_eq!(check(contention, "mech", "fifo,udp"), Ok(()));
        let err = check(contention, "tset", "both").unwrap_err();
        assert!(
            err.starts_with("contention has no parameter 'tset' (it takes test, "),
            "{err}"
        );
        let err = check(contention, "test", "bothh").unwrap_err();
        assert!(err.contains("invalid value 'bothh' for test"), "{err}");
        assert_eq!(
            check(contention, "mech", "fifo,fiffo"),
            Err("no mechanism 'fiffo'".into())
        );
        let limits = crate::scenario::find("limits").unwrap();
        assert_eq!(
            check(limits, "placement", "same-cpu"),
            Err("limits runs over no mechanisms, so it takes no placement".into())
        );
    }
}
