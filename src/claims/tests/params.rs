//! Every parameter a claim names in code is one its scenario takes, with
//! a value of the parameter's kind (`scenario::entry_params`): a misspelt
//! name or value fails here, naming the claim.

use super::CLAIMS;
use crate::scenario::entry_params::check;

/// What is wrong with the selections of claim `id`, one line each.
fn wrong_in(claim: &crate::claims::Claim) -> Vec<String> {
    let kernel = claim.kernel.iter().flat_map(|e| e.of.iter());
    let mut wrong = Vec::new();
    for select in claim.rule.selects().into_iter().chain(kernel) {
        let at = format!("{}: {}", claim.id, select.scenario);
        let Some(scenario) = crate::scenario::find(select.scenario) else {
            wrong.push(format!("{at}: no such scenario"));
            continue;
        };
        for (key, value) in select.params {
            if let Err(why) = check(scenario, key, value) {
                wrong.push(format!("{at} {key}={value}: {why}"));
            }
        }
        if let Some((key, _)) = select.nearest {
            if let Err(why) = check(scenario, key, "1") {
                wrong.push(format!("{at} nearest {key}: {why}"));
            }
        }
    }
    wrong
}

#[test]
fn every_parameter_a_claim_names_is_one_its_scenario_takes() {
    let wrong: Vec<String> = CLAIMS.iter().flat_map(|c| wrong_in(c)).collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
