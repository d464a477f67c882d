//! Plans built from whole command lines: duplicates run once, a size some
//! mechanisms cannot carry leaves the rest to run, and only a plan with
//! nothing that can run is refused.

fn plan(args: &[&str]) -> Result<super::Plan, String> {
    super::of_args(args).map_err(|e| e.0)
}

fn refusal(args: &[&str]) -> String {
    match plan(args) {
        Ok(_) => panic!("planned, not refused: {args:?}"),
        Err(why) => why,
    }
}

fn names(plan: &super::Plan) -> Vec<String> {
    plan.cases.iter().map(|c| c.name()).collect()
}

#[test]
fn a_target_named_twice_runs_once() {
    let args = ["--mech", "pipe,pipe", "--placement", "same-cpu"];
    let once = plan(&[&["pingpong"], &args[..]].concat()).unwrap();
    let twice = plan(&[&["pingpong", "pingpong"], &args[..]].concat()).unwrap();
    assert_eq!(names(&once), ["pipe/same-cpu/processes/1B"]);
    assert_eq!(names(&twice), names(&once));
    assert_eq!(twice.targets, "pingpong");
}

#[test]
fn overlapping_suite_entries_run_once() {
    let suite = names(&plan(&["quick", "--quick"]).unwrap());
    let both = names(&plan(&["quick", "pingpong", "--quick"]).unwrap());
    assert!(suite.contains(&"pipe/same-cpu/processes/1B".to_string()));
    assert_eq!(both, suite);
}

#[test]
fn mechanisms_that_cannot_carry_a_size_are_unsupported_and_the_rest_runs() {
    let args = [
        "pingpong",
        "--mech",
        "pipe,unix-dgram,udp",
        "--placement",
        "same-cpu",
        "--param",
        "size=1M",
    ];
    let plan = plan(&args).unwrap();
    let why: Vec<(String, Option<&str>)> = plan
        .cases
        .iter()
        .map(|c| (c.name(), c.unsupported.as_deref()))
        .collect();
    assert_eq!(why.len(), 3);
    assert_eq!(why[0], ("pipe/same-cpu/processes/1048576B".into(), None));
    let dgram = why[1].1.unwrap();
    assert!(dgram.starts_with("size 1048576 is above what unix-dgram carries: at most "));
    assert_eq!(
        why[2].1,
        Some("size 1048576 is above what udp carries: at most 65507 bytes per message")
    );
}

#[test]
fn a_size_no_mechanism_asked_for_carries_is_refused() {
    let err = refusal(&["pingpong", "--mech", "udp", "--param", "size=1M"]);
    assert_eq!(
        err,
        "size 1048576 is above what udp carries: at most 65507 bytes per message"
    );
    let err = refusal(&["stream", "--mech", "unix-dgram,udp", "-p", "size=1M"]);
    assert!(
        err.starts_with(
            "size 1048576 is above what each mechanism asked for carries: unix-dgram at most "
        ),
        "{err}"
    );
    assert!(
        err.ends_with(", udp at most 65507 bytes per message"),
        "{err}"
    );
}

#[test]
fn a_size_by_default_above_a_mechanism_is_only_unsupported() {
    let plan = plan(&["stream", "--mech", "udp", "--placement", "same-cpu"]).unwrap();
    let unsupported: Vec<String> = plan
        .cases
        .iter()
        .filter(|c| c.unsupported.is_some())
        .map(|c| c.name())
        .collect();
    assert_eq!(unsupported, ["udp/same-cpu/processes/65536B"]);
    assert_eq!(plan.cases.len(), 3);
}

#[test]
fn a_size_memory_cannot_hold_is_refused_for_every_mechanism() {
    for mech in ["pipe", "eventfd", "udp"] {
        let err = refusal(&["pingpong", "--mech", mech, "-p", "size=65536G"]);
        assert!(
            err.starts_with("size 70368744177664 is more than this machine can allocate: a case holds 5 buffers of that size (327680.0 GiB)"),
            "{err}"
        );
    }
    let err = refusal(&["devnull", "-p", "buf=65536G"]);
    assert!(
        err.starts_with("buf 70368744177664 is more than this machine can allocate"),
        "{err}"
    );
}

#[test]
fn topology_placements_are_accepted_and_listed_when_refused() {
    let args = [
        "pingpong",
        "--mech",
        "pipe",
        "--placement",
        "smt-sibling,cross-node",
    ];
    let cases = names(&plan(&args).unwrap());
    assert_eq!(
        cases,
        vec![
            "pipe/smt-sibling/processes/1B".to_string(),
            "pipe/cross-node/processes/1B".to_string()
        ]
    );
    assert_eq!(
        refusal(&["pingpong", "--placement", "shared-l4"]),
        "unknown placement 'shared-l4': expected one of same-cpu, cross-cpu, unpinned, \
         smt-sibling, shared-l2, shared-l3, cross-l3, cross-node"
    );
}

#[test]
fn one_pair_and_a_closed_loop_keep_the_names_cases_always_had() {
    let args = ["pingpong", "--mech", "pipe", "--placement", "same-cpu"];
    let sweep = ["--param", "pairs=1,4", "--param", "rate=max,10k"];
    let planned = plan(&[&args[..], &sweep[..]].concat()).unwrap();
    assert_eq!(
        names(&planned),
        [
            "pipe/same-cpu/processes/1B",
            "pipe/same-cpu/processes/1B/rate=10000",
            "pipe/same-cpu/processes/1B/pairs=4",
            "pipe/same-cpu/processes/1B/pairs=4/rate=10000",
        ]
    );
}

/// `--precision`'s default takes further batches for scenarios named on
/// their own, not for suites, `--quick` or a fixed `--repeat`.
#[test]
fn the_default_precision_takes_batches_only_for_scenarios_named() {
    use super::precision::{REPEAT_STOP, SUITE_STOP};
    let fixed = |args: &[&str]| plan(args).unwrap().precision.unwrap().fixed;
    assert_eq!(fixed(&["pingpong"]), None);
    assert_eq!(fixed(&[]), Some(SUITE_STOP));
    assert_eq!(fixed(&["seeds-quick"]), Some(SUITE_STOP));
    assert_eq!(fixed(&["pingpong", "--quick"]), Some(SUITE_STOP));
    assert_eq!(fixed(&["pingpong", "--repeat", "3"]), Some(REPEAT_STOP));
    assert_eq!(fixed(&["quick", "--precision", "1%"]), None);
    assert!(plan(&["pingpong", "--precision", "off"])
        .unwrap()
        .precision
        .is_none());
}

#[test]
fn the_test_only_faults_are_named_and_another_is_refused() {
    use crate::scenario::Fault;
    let fault = |kind: &str| plan(&["fan-in", "--fault", kind]).map(|p| p.fault);
    assert_eq!(fault("corrupt"), Ok(Some(Fault::Corrupt)));
    assert_eq!(fault("stall"), Ok(Some(Fault::Stall)));
    assert_eq!(fault("die-sender"), Ok(Some(Fault::DieSender)));
    assert_eq!(fault("slow-bound"), Ok(Some(Fault::SlowBound)));
    assert_eq!(fault("store"), Ok(None));
    assert_eq!(
        refusal(&["fan-in", "--fault", "explode"]),
        "unknown fault 'explode': expected corrupt, stall, die-sender, phantom, slow-bound or store"
    );
}

#[test]
fn a_suite_entry_narrows_the_mechanisms_unless_mech_is_given() {
    let quick = plan(&["quick"]).unwrap();
    let pairs: Vec<String> = quick
        .cases
        .iter()
        .filter(|c| c.scenario.name() == "stream" && c.name().contains("pairs=4"))
        .filter_map(|c| c.mech.map(|m| m.name().to_string()))
        .collect();
    let mut mechs = pairs.clone();
    mechs.sort();
    mechs.dedup();
    assert_eq!(mechs, ["pipe", "shm", "tcp", "unix-stream"], "{pairs:?}");
    let asked = plan(&["quick", "--mech", "eventfd"]).unwrap();
    assert!(asked
        .cases
        .iter()
        .filter_map(|c| c.mech)
        .all(|m| m.name() == "eventfd"));
}

#[test]
fn every_suite_entrys_mechanisms_are_known_to_its_scenario() {
    for suite in crate::scenario::suite::ALL {
        for entry in suite.entries {
            let Some(mechs) = entry.mechs else { continue };
            let s = crate::scenario::find(entry.scenario).unwrap();
            assert!(s.uses_mechanisms(), "{} {}", suite.name, entry.scenario);
            for m in mechs {
                assert!(crate::mechanism::find(m).is_some(), "{m}");
            }
        }
    }
}

#[test]
fn every_value_of_a_swept_list_runs_under_a_name_of_its_own() {
    let args = ["pingpong", "--mech", "pipe", "--placement", "same-cpu"];
    let swept = plan(&[&args[..], &["-p", "count=2000,3000"]].concat()).unwrap();
    assert_eq!(
        names(&swept),
        [
            "pipe/same-cpu/processes/1B/count=2000",
            "pipe/same-cpu/processes/1B/count=3000"
        ]
    );
    // One value keeps the name it always had.
    let one = plan(&[&args[..], &["-p", "count=2000"]].concat()).unwrap();
    assert_eq!(names(&one), ["pipe/same-cpu/processes/1B"]);
}

#[test]
fn every_case_of_a_suite_has_an_id_of_its_own() {
    for suite in [&["quick"][..], &["seeds"], &["seeds", "--quick"], &["full"]] {
        let cases = plan(suite).unwrap().cases;
        let mut ids: Vec<(&str, String)> = cases
            .iter()
            .map(|c| (c.scenario.name(), c.name()))
            .collect();
        let all = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all, "{suite:?}: two cases share an id");
    }
    // The three idle=0 cases of seeds-quick's poll-scale: their repetitions
    // and active connections in their names.
    let seeds = plan(&["seeds", "--quick"]).unwrap();
    let at_0: Vec<String> = names(&seeds)
        .into_iter()
        .filter(|n| n.starts_with("poll/tcp/idle=0"))
        .collect();
    assert!(at_0.len() >= 3, "{at_0:?}");
    assert!(at_0.iter().any(|n| n.contains("active=100")), "{at_0:?}");
}

#[test]
fn every_parameter_of_every_scenario_sweeps_into_distinct_cases() {
    let mut swept = 0;
    for scenario in crate::scenario::ALL {
        for spec in scenario.params() {
            let Some(pair) = two_values(spec.kind) else {
                continue;
            };
            let param = format!("{}={pair}", spec.name);
            let args = [scenario.name(), "--mech", "pipe", "--placement", "same-cpu"];
            let Ok(p) = plan(&[&args[..], &["-p", &param]].concat()) else {
                continue; // a value this scenario refuses is not a sweep
            };
            let mut ids = names(&p);
            let all = ids.len();
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), all, "{} -p {param}: {ids:?}", scenario.name());
            swept += 1;
        }
    }
    assert!(swept > 40, "only {swept} parameters swept");
}

/// Two values of a parameter of `kind`, as a list.
fn two_values(kind: crate::scenario::ParamKind) -> Option<String> {
    use crate::scenario::ParamKind;
    Some(match kind {
        ParamKind::Count | ParamKind::CountOrMax => "2000,3000".into(),
        ParamKind::Number => "1,2".into(),
        ParamKind::Bytes | ParamKind::BytesOrAuto => "4096,8192".into(),
        ParamKind::Duration => "50ms,60ms".into(),
        ParamKind::Choice(_) | ParamKind::Listed(_) => {
            let words = kind.words().filter(|w| w.len() >= 2)?;
            words[..2].join(",")
        }
        _ => return None,
    })
}

/// A run holds at most `MAX_CASES` cases, what `import` admits and the
/// readers are tested at; the full suite is far below it.
#[test]
fn a_run_of_more_cases_than_the_readers_are_tested_at_is_refused() {
    let sizes: Vec<String> = (1..=10_001).map(|n| n.to_string()).collect();
    let size = format!("size={}", sizes.join(","));
    let args = [
        "pingpong",
        "--mech",
        "pipe",
        "--placement",
        "same-cpu",
        "-p",
        &size,
    ];
    assert_eq!(
        refusal(&args),
        "the command line makes 10001 cases: at most 10000 in one run \
         (narrow --mech, --placement or a parameter's list)"
    );
    assert!(plan(&["full"]).unwrap().cases.len() < super::MAX_CASES);
}
