//! Expanding one scenario invocation into cases: every combination of its
//! list-valued parameters, times placements and mechanisms when the scenario
//! uses them. A point whose buffers this machine cannot hold is an error;
//! a message size a mechanism cannot carry makes that case `unsupported`.

use super::{fit, memory, Common, Invocation, Planned, Point};
use crate::error::{UsageError, UsageResult};
use crate::mechanism::Mechanism;
use crate::params::parse_list;
use crate::scenario::{CaseSpec, ParamSpec};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) fn cases(inv: &Invocation, common: &Common) -> UsageResult<Vec<Planned>> {
    let points = sweep(inv, common)?;
    for point in &points {
        inv.scenario.check_point(point).map_err(UsageError::new)?;
        if let Some(limit) = &common.memory {
            memory::check(point, limit)?;
        }
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
        peer: common.peer.clone(),
        explain: false,
        also_named: Vec::new(),
        work_fixed: false,
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
            .map(|p| Planned {
                case: spec(None, None, p, None),
                oversize: None,
            })
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
                for mut mech_point in sweep_specs(mech.params(), inv, common, vec![point.clone()])?
                {
                    inv.scenario.fit_mech_point(mech, &mut mech_point);
                    let (values, unsupported, oversize) =
                        fit::to_mechanism(mech, common.mode, mech_point);
                    let case = spec(Some(mech), Some(placement), values, unsupported);
                    if seen.insert(case.identity()) {
                        out.push(Planned { case, oversize });
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The mechanisms asked for, or the suite entry's, or the scenario's own
/// default set.
fn mechs_for(inv: &Invocation, common: &Common) -> Vec<&'static dyn Mechanism> {
    let narrowed = inv.suite_mechs.or(inv.scenario.default_mechs());
    match (common.mechs_explicit, narrowed) {
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
