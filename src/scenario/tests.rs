//! The declarations every name goes through: each scenario declares each
//! parameter and metric once, a result carries only declared metrics, a
//! case reads only what its scenario or mechanism declares, every `limits`
//! reference point is a `limits` metric, and the names themselves (the JSON
//! and the store carry them) stay as they were.

use super::*;
use crate::mechanism;
use std::collections::BTreeSet;
use std::fmt::Write;

#[test]
fn the_declared_names_stay_as_they_were() {
    let mut text = String::new();
    for s in ALL {
        let params: Vec<&str> = s.params().iter().map(|p| p.name).collect();
        let metrics: Vec<String> = s
            .metrics()
            .iter()
            .map(|m| format!("{} [{}]", m.name, m.unit))
            .collect();
        let _ = writeln!(text, "{}: {}", s.name(), params.join(", "));
        let _ = writeln!(text, "  {}", metrics.join(", "));
    }
    for m in mechanism::ALL.iter().filter(|m| !m.params().is_empty()) {
        let params: Vec<&str> = m.params().iter().map(|p| p.name).collect();
        let _ = writeln!(text, "mechanism {}: {}", m.name(), params.join(", "));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn each_scenario_declares_each_name_once() {
    for s in ALL {
        let mut params = BTreeSet::new();
        for p in s.params() {
            assert!(params.insert(p.name), "{}: {} twice", s.name(), p.name);
        }
        let mech_params = mechanism::ALL.iter().flat_map(|m| m.params());
        for p in mech_params.filter(|_| s.uses_mechanisms()) {
            assert!(
                params.insert(p.name),
                "{}: {} also a mechanism's",
                s.name(),
                p.name
            );
        }
        let mut metrics = BTreeSet::new();
        for m in s.metrics() {
            assert!(metrics.insert(m.name), "{}: {} twice", s.name(), m.name);
        }
    }
}

#[test]
fn a_metric_is_recorded_under_its_declared_name_and_unit() {
    let mut r = CaseResult::new("pipe-atime", "x", BTreeMap::new());
    pipe_atime::NS_PER_MSG.set(&mut r, vec![3.0, 1.0, 2.0]);
    pipe_atime::NS_PER_MSG.set_headline(&mut r);
    let m = &r.metrics["ns_per_msg"];
    assert_eq!((m.value, m.unit.as_str(), m.reps.len()), (2.0, "ns", 3));
    assert_eq!(r.headline.as_deref(), Some("ns_per_msg"));
    assert_eq!(pipe_atime::NS_PER_MSG.value(&r), Some(2.0));
    assert!(undeclared(&r).is_empty());
    let copy = m.clone();
    r.metrics.insert("ns_per_message".into(), copy);
    assert_eq!(undeclared(&r), ["ns_per_message"]);
    r.headline = Some("nsec".into());
    assert_eq!(undeclared(&r), ["ns_per_message", "nsec"]);
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "seconds is not a metric of pipe-atime")]
fn setting_another_scenarios_metric_panics() {
    let mut r = CaseResult::new("pipe-atime", "x", BTreeMap::new());
    poll_scale::SECONDS.set(&mut r, vec![1.0]);
}

fn case(scenario: &str, mech: &str) -> CaseSpec {
    let values = [
        (mechanism::SIZE.name, Value::Int(64)),
        ("count", Value::Int(10)),
        (mechanism::SHM_WAKE.name, Value::Text("futex".into())),
        (contention::DURATION.name, Value::Int(1)),
    ];
    CaseSpec {
        scenario: find(scenario).unwrap(),
        mech: mechanism::find(mech),
        placement: Some(Placement::SameCpu),
        mode: Mode::Threads,
        values: values.into_iter().collect(),
        repeat: 1,
        warmup: None,
        unsupported: None,
        peer: None,
        explain: false,
        also_named: Vec::new(),
        work_fixed: false,
    }
}

#[test]
fn a_case_reads_what_its_scenario_or_mechanism_declares() {
    let shm = case("pingpong", "shm");
    assert_eq!(shm.int(&mechanism::SIZE), 64);
    assert_eq!(shm.text(&mechanism::SHM_WAKE), "futex");
    assert!(!shm.declares(&contention::DURATION));
    let pipe = case("pingpong", "pipe");
    assert!(pipe.declares(&mechanism::SIZE));
    assert!(!pipe.declares(&mechanism::SHM_WAKE));
    assert!(case("contention", "pipe").declares(&contention::DURATION));
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "duration is not declared")]
fn reading_another_scenarios_parameter_panics() {
    case("pingpong", "pipe").int(&contention::DURATION);
}

#[test]
fn every_limit_is_a_limits_metric() {
    let refs = [
        (LimitRef::SYSCALL, "syscall_ns"),
        (LimitRef::MEMCPY, "memcpy_bytes_per_s"),
        (LimitRef::CACHELINE, "cacheline_rtt_ns"),
        (LimitRef::WAKE, "wake_rtt_ns"),
    ];
    let limits = find("limits").unwrap();
    for (limit, name) in refs {
        assert!(limits.metrics().contains(limit.metric()), "{name}");
        assert_eq!(limit.metric().name, name);
    }
}
