//! What a result is a measurement of: its input parameters, told apart
//! from the figures a case records in the same `params` map as it runs
//! (stream's `messages_per_rep` from its calibration, the test file's
//! `filesystem`, devnull's `atime_mode`). An input is a parameter the
//! scenario or the case's mechanism declares (`ParamSpec`), or one the plan
//! records for every case (`case.rs`: `params_json`): the mechanism,
//! placement, mode, repetitions and peer. `compare` pairs results whose
//! inputs match; the printed names (names.rs) show the inputs in which
//! results differ.

use crate::model::CaseResult;
use crate::params::{self, ParamKind, ParamSpec};
use serde::Serialize;
use std::collections::BTreeMap;

/// The repetitions a case ran: an input, but the last one a name shows.
pub(crate) const REPEAT: &str = "repeat";

/// What the plan records for every case beside the declared parameters.
const PLANNED: [&str; 6] = ["mech", "placement", "mode", REPEAT, "peer", "peer_cpu"];

/// A result's inputs, parameter to value as text.
pub(crate) type Inputs = BTreeMap<String, String>;

/// One input in which two results differ; None where one has no value.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct Difference {
    pub(crate) param: String,
    pub(crate) a: Option<String>,
    pub(crate) b: Option<String>,
}

impl Difference {
    /// `requests 1000 vs 2000`, `pairs none vs 4`.
    pub(crate) fn text(&self) -> String {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
        format!("{} {} vs {}", self.param, side(&self.a), side(&self.b))
    }
}

/// The declared parameters of `r`'s scenario and mechanism; None for a
/// scenario this build does not know.
fn declared(r: &CaseResult) -> Option<Vec<&'static ParamSpec>> {
    let scenario = crate::scenario::find(&r.scenario)?;
    let mech = r.param_str("mech").and_then(|m| crate::mechanism::find(&m));
    let mech_params = mech.map(|m| m.params()).unwrap_or_default();
    Some(scenario.params().iter().chain(mech_params).collect())
}

/// The declaration of `key` for `r`, if its scenario or mechanism has one.
pub(crate) fn spec(r: &CaseResult, key: &str) -> Option<&'static ParamSpec> {
    declared(r)?.into_iter().find(|p| p.name == key)
}

/// The inputs of `r`: every declared or planned parameter it recorded, and
/// the single default of a declared one it lacks (a run stored before the
/// parameter existed ran at what is now its default). Of a scenario this
/// build does not know, every recorded parameter.
pub(crate) fn inputs(r: &CaseResult) -> Inputs {
    let Some(specs) = declared(r) else {
        return r
            .params
            .keys()
            .filter_map(|k| Some((k.clone(), r.param_str(k)?)))
            .collect();
    };
    let is_input = |k: &str| PLANNED.contains(&k) || specs.iter().any(|p| p.name == k);
    let mut out: Inputs = r
        .params
        .keys()
        .filter(|k| is_input(k))
        .filter_map(|k| Some((k.clone(), r.param_str(k)?)))
        .collect();
    for spec in specs {
        if let Some(default) = single_default(spec) {
            out.entry(spec.name.to_string()).or_insert(default);
        }
    }
    out
}

/// The default of `spec` as a recorded value reads, when it is one value
/// (not a sweep).
fn single_default(spec: &ParamSpec) -> Option<String> {
    match params::parse_list(spec, spec.default).ok()?.as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

/// The inputs in which `a` and `b` differ, in parameter order.
pub(crate) fn differences(a: &Inputs, b: &Inputs) -> Vec<Difference> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| Difference {
            param: k.clone(),
            a: a.get(k).cloned(),
            b: b.get(k).cloned(),
        })
        .collect()
}

/// `key=value` as a name shows it: a byte count as a size.
pub(crate) fn shown(spec: Option<&ParamSpec>, key: &str, value: &str) -> String {
    let bytes = spec.is_some_and(|s| matches!(s.kind, ParamKind::Bytes | ParamKind::BytesOrAuto));
    match value.parse::<u64>() {
        Ok(n) if bytes => format!("{key}={}", crate::format::size(n)),
        _ if key == REPEAT => format!("reps={value}"),
        _ => format!("{key}={value}"),
    }
}
