//! Expanding one scenario invocation into cases: every combination of its
//! list-valued parameters, times placements and mechanisms when the scenario
//! uses them. A message size a mechanism cannot carry is an error when the
//! user asked for both explicitly, and an `unsupported` case otherwise.

use super::{Common, Invocation};
use crate::error::{UsageError, UsageResult};
use crate::mechanism::{Mechanism, Support};
use crate::scenario::params::parse_list;
use crate::scenario::{CaseSpec, ParamSpec, Value};
use std::collections::{BTreeMap, BTreeSet};

type Point = BTreeMap<&'static str, Value>;

pub(crate) fn cases(inv: &Invocation, common: &Common) -> UsageResult<Vec<CaseSpec>> {
    let points = sweep(inv, common)?;
    for point in &points {
        inv.scenario.check_point(point).map_err(UsageError::new)?;
    }
    let spec = |mech, placement, values: Point, unsupported| CaseSpec {
        scenario: inv.scenario,
        mech,
        placement,
        mode: common.mode,
        values,
        repeat: common
            .repeat
            .or(inv.suite_repeat)
            .unwrap_or(super::DEFAULT_REPEAT),
        warmup: common.warmup,
        unsupported,
    };
    if !inv.scenario.uses_mechanisms() {
        let mut unique: Vec<Point> = Vec::new();
        for p in points {
            if !unique.contains(&p) {
                unique.push(p);
            }
        }
        return Ok(unique
            .into_iter()
            .map(|p| spec(None, None, p, None))
            .collect());
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mechs = mechs_for(inv, common);
    let placements = match (
        &common.placements_explicit,
        inv.scenario.default_placements(),
    ) {
        (false, Some(defaults)) => defaults.to_vec(),
        _ => common.placements.clone(),
    };
    for &placement in &placements {
        for point in &points {
            for &mech in &mechs {
                for mech_point in sweep_specs(mech.params(), inv, common, vec![point.clone()])? {
                    let (values, unsupported) = fit_to_mechanism(mech, mech_point, common)?;
                    let case = spec(Some(mech), Some(placement), values, unsupported);
                    if seen.insert(case.name()) {
                        out.push(case);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The mechanisms asked for, or the scenario's own default set.
fn mechs_for(inv: &Invocation, common: &Common) -> Vec<&'static dyn Mechanism> {
    match (common.mechs_explicit, inv.scenario.default_mechs()) {
        (false, Some(names)) => common
            .mechs
            .iter()
            .copied()
            .filter(|m| names.contains(&m.name()))
            .collect(),
        _ => common.mechs.clone(),
    }
}

/// Every combination of the scenario's parameter values.
fn sweep(inv: &Invocation, common: &Common) -> UsageResult<Vec<Point>> {
    sweep_specs(inv.scenario.params(), inv, common, vec![BTreeMap::new()])
}

/// Every combination of `points` with the values of `specs` (from the
/// command line, else the suite entry, else the default).
fn sweep_specs(
    specs: &[ParamSpec],
    inv: &Invocation,
    common: &Common,
    mut points: Vec<Point>,
) -> UsageResult<Vec<Point>> {
    for spec in specs {
        let suite_value = inv
            .suite_params
            .iter()
            .find(|(k, _)| *k == spec.name)
            .map(|(_, v)| *v);
        let text = common
            .params
            .get(spec.name)
            .map(String::as_str)
            .or(suite_value)
            .unwrap_or(spec.default);
        let values = parse_list(spec, text).map_err(UsageError::new)?;
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut p = p.clone();
                    p.insert(spec.name, v.clone());
                    p
                })
            })
            .collect();
    }
    points.iter_mut().for_each(|p| inv.scenario.fit_point(p));
    Ok(points)
}

/// Adjusts the message size to what `mech` carries.
fn fit_to_mechanism(
    mech: &dyn Mechanism,
    mut point: Point,
    common: &Common,
) -> UsageResult<(Point, Option<String>)> {
    let probe = match mech.probe() {
        Support::Yes => None,
        Support::No(why) => Some(why),
    };
    let Some(Value::Int(size)) = point.get("size").cloned() else {
        return Ok((point, probe));
    };
    if mech.caps().counter {
        point.insert("size", Value::Int(mech.max_message() as u64));
        return Ok((point, probe));
    }
    let max = mech.max_message() as u64;
    if size <= max {
        return Ok((point, probe));
    }
    let why = format!(
        "size {size} is above what {} carries: at most {max} bytes per message",
        mech.name()
    );
    if common.mechs_explicit && common.params.contains_key("size") {
        return Err(UsageError::new(why));
    }
    Ok((point, Some(why)))
}
