//! What a run says as a whole: each headline as a multiple of the matching
//! `limits` reference point measured in the same run, and each scenario's
//! verdict lines.

use crate::model::{CaseResult, LimitRatio, Status, Verdict};
use crate::scenario;

/// Sets `limit_ratio` on every ok result whose scenario names a reference
/// point that this run measured.
pub fn annotate_limits(results: &mut [CaseResult]) {
    let reference = |name: &str| {
        results
            .iter()
            .filter(|r| r.status == Status::Ok)
            .find_map(|r| r.metrics.get(name))
            .map(|m| m.value)
    };
    let ratios: Vec<Option<LimitRatio>> = results
        .iter()
        .map(|r| {
            let scenario = scenario::find(&r.scenario)?;
            let limit = scenario.limit_for(r)?;
            let (_, headline) = r.headline_metric().filter(|_| r.status == Status::Ok)?;
            let value = reference(limit.metric).filter(|v| *v > 0.0)?;
            Some(LimitRatio {
                limit: limit.metric.to_string(),
                ratio: headline.value / value,
            })
        })
        .collect();
    for (r, ratio) in results.iter_mut().zip(ratios) {
        r.limit_ratio = ratio;
    }
}

/// Every scenario's verdicts over its results, in order of appearance.
pub fn verdicts(results: &[CaseResult]) -> Vec<Verdict> {
    let mut names: Vec<&str> = results.iter().map(|r| r.scenario.as_str()).collect();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        let Some(scenario) = scenario::find(name) else {
            continue;
        };
        let mine: Vec<&CaseResult> = results.iter().filter(|r| r.scenario == name).collect();
        out.extend(scenario.verdicts(&mine).into_iter().map(|text| Verdict {
            scenario: name.to_string(),
            text,
        }));
    }
    out
}
