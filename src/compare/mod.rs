//! `iolab compare A B`: the same cases of two stored runs side by side,
//! the ratio B/A of their headlines, and whether the difference stands out
//! from the noise: the bootstrap interval of the ratio (`measure::bootstrap`) must
//! lie wholly beyond a minimum effect and the two runs' repetitions must
//! not overlap, so drift inside the spread reads as no change. Which
//! direction is worse follows the unit: a time (ns, s) is better lower, a
//! rate (`/s`) higher. Rendering as text lives in render.rs; the JSON is
//! this module's types.

mod render;

pub(crate) use render::{cells, text, unmatched_lines, verdict};

use crate::error::UsageError;
use crate::measure::bootstrap;
use crate::measure::stats::clearly_differs;
use crate::model::{CaseResult, Run, Status};
use serde::Serialize;

pub(crate) use crate::cli::DEFAULT_MIN_EFFECT_PCT;

/// How significance is decided, for every output to say.
pub(crate) const TEST: &str = "significance: 95% percentile-bootstrap interval of the ratio of \
medians B/A, resampling each run's repetitions (2000 resamples, fixed seed); \
* marks a change whose interval lies wholly beyond the minimum effect (--min-effect, \
default 5%) and whose repetitions' ranges [min, max] do not overlap; anything less is \
within the noise";

#[derive(Debug, Serialize)]
pub(crate) struct Comparison {
    pub(crate) a: RunRef,
    pub(crate) b: RunRef,
    pub(crate) test: String,
    pub(crate) cases: Vec<CaseComparison>,
    pub(crate) only_in_a: Vec<CaseRef>,
    pub(crate) only_in_b: Vec<CaseRef>,
    pub(crate) not_comparable: Vec<NotComparable>,
    /// A smaller change than this, in percent, is no change.
    pub(crate) min_effect_pct: f64,
    /// The `--fail-on-regression` threshold, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fail_on_regression_pct: Option<f64>,
    /// The cases significantly worse by more than that threshold.
    pub(crate) regressions: Vec<CaseRef>,
}

impl Comparison {
    /// Record which cases regressed by more than `pct` percent.
    pub(crate) fn judge(&mut self, pct: f64) {
        self.fail_on_regression_pct = Some(pct);
        self.regressions = self
            .cases
            .iter()
            .filter(|c| c.regressed(pct))
            .map(|c| CaseRef {
                scenario: c.scenario.clone(),
                case: c.case.clone(),
            })
            .collect();
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct RunRef {
    pub(crate) run_id: String,
    pub(crate) label: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct CaseRef {
    pub(crate) scenario: String,
    pub(crate) case: String,
}

/// A case in both runs that cannot be compared, and why.
#[derive(Debug, Serialize)]
pub(crate) struct NotComparable {
    pub(crate) scenario: String,
    pub(crate) case: String,
    pub(crate) reason: String,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Direction {
    LowerIsBetter,
    HigherIsBetter,
    Unknown,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Change {
    Better,
    Worse,
    /// Significant, but the unit does not say which way is better.
    Changed,
    NotSignificant,
    /// Fewer than two repetitions on a side: no spread to judge by.
    Unknown,
}

#[derive(Debug, Serialize)]
pub(crate) struct CaseComparison {
    pub(crate) scenario: String,
    pub(crate) case: String,
    pub(crate) metric: String,
    pub(crate) unit: String,
    pub(crate) a: f64,
    pub(crate) b: f64,
    pub(crate) ratio: f64,
    pub(crate) ci_low: Option<f64>,
    pub(crate) ci_high: Option<f64>,
    pub(crate) significant: bool,
    /// The [min, max] ranges of the two runs' repetitions overlap: the
    /// difference is inside the noise, whatever the interval says.
    pub(crate) ranges_overlap: bool,
    pub(crate) direction: Direction,
    pub(crate) change: Change,
    /// How much worse B is, in percent (negative: better); None when the
    /// direction is unknown.
    pub(crate) worse_pct: Option<f64>,
}

impl CaseComparison {
    /// Significantly worse by more than `pct` percent.
    pub(crate) fn regressed(&self, pct: f64) -> bool {
        self.change == Change::Worse && self.worse_pct.is_some_and(|w| w > pct)
    }
}

/// `compare_with` at the default minimum effect.
pub(crate) fn compare(a: &Run, b: &Run) -> Comparison {
    compare_with(a, b, DEFAULT_MIN_EFFECT_PCT)
}

/// Match cases by (scenario, case) and compare their headlines; a change
/// smaller than `min_effect_pct` percent is no change.
pub(crate) fn compare_with(a: &Run, b: &Run, min_effect_pct: f64) -> Comparison {
    let key = |r: &CaseResult| CaseRef {
        scenario: r.scenario.clone(),
        case: r.case.clone(),
    };
    let find = |run: &'_ Run, k: &CaseRef| -> Option<usize> {
        run.results
            .iter()
            .position(|r| r.scenario == k.scenario && r.case == k.case)
    };
    let mut out = Comparison {
        a: run_ref(a),
        b: run_ref(b),
        test: test_text(min_effect_pct),
        cases: Vec::new(),
        only_in_a: Vec::new(),
        only_in_b: Vec::new(),
        not_comparable: Vec::new(),
        min_effect_pct,
        fail_on_regression_pct: None,
        regressions: Vec::new(),
    };
    for ra in &a.results {
        match find(b, &key(ra)) {
            None => out.only_in_a.push(key(ra)),
            Some(i) => match case(ra, &b.results[i], min_effect_pct) {
                Ok(c) => out.cases.push(c),
                Err(reason) => out.not_comparable.push(NotComparable {
                    scenario: ra.scenario.clone(),
                    case: ra.case.clone(),
                    reason,
                }),
            },
        }
    }
    out.only_in_b = b
        .results
        .iter()
        .filter(|rb| find(a, &key(rb)).is_none())
        .map(key)
        .collect();
    out
}

/// `TEST`, naming the minimum effect when it is not the default.
fn test_text(min_effect_pct: f64) -> String {
    if min_effect_pct == DEFAULT_MIN_EFFECT_PCT {
        return TEST.to_string();
    }
    format!("{TEST}; minimum effect here: {min_effect_pct}%")
}

/// A `--min-effect` value: a percentage of 0 or more.
pub(crate) fn min_effect(pct: f64) -> Result<f64, UsageError> {
    if pct.is_finite() && pct >= 0.0 {
        return Ok(pct);
    }
    Err(UsageError::new(format!(
        "bad --min-effect '{pct}': expected a percentage of 0 or more, e.g. {DEFAULT_MIN_EFFECT_PCT}"
    )))
}

/// The warning for a run compared with itself (by id or by selectors that
/// resolve to the same run): nothing in it can differ.
pub(crate) fn same_run_warning(a: &Run, b: &Run) -> Option<String> {
    (a.run_id == b.run_id).then(|| {
        format!(
            "warning: A and B are the same run {}: it is compared with itself",
            a.run_id
        )
    })
}

fn run_ref(run: &Run) -> RunRef {
    RunRef {
        run_id: run.run_id.clone(),
        label: run.label.clone(),
    }
}

/// The comparison of one matched case, or why there is none.
fn case(a: &CaseResult, b: &CaseResult, min_effect_pct: f64) -> Result<CaseComparison, String> {
    for (tag, r) in [("A", a), ("B", b)] {
        if r.status != Status::Ok {
            let reason = r.reason.as_deref().unwrap_or("no reason recorded");
            return Err(format!("{} in {tag}: {reason}", r.status.as_str()));
        }
    }
    let (Some((name_a, ma)), Some((name_b, mb))) = (a.headline_metric(), b.headline_metric())
    else {
        return Err("no headline metric".into());
    };
    if name_a != name_b || ma.unit != mb.unit {
        return Err(format!("headlines differ: {name_a} vs {name_b}"));
    }
    let ratio = mb.value / ma.value;
    let interval = bootstrap::ratio_interval(&ma.reps, &mb.reps);
    let ranges_overlap = !clearly_differs(ma, mb);
    let beyond = |(lo, hi): (f64, f64)| {
        let min = min_effect_pct / 100.0;
        lo > 1.0 + min || hi < 1.0 - min
    };
    let significant = !ranges_overlap && interval.is_some_and(beyond);
    let direction = direction(&ma.unit);
    Ok(CaseComparison {
        scenario: a.scenario.clone(),
        case: a.case.clone(),
        metric: name_a.to_string(),
        unit: ma.unit.clone(),
        a: ma.value,
        b: mb.value,
        ratio,
        ci_low: interval.map(|i| i.0),
        ci_high: interval.map(|i| i.1),
        significant,
        ranges_overlap,
        direction,
        change: change(interval.is_some(), significant, direction, ratio),
        worse_pct: worse_pct(direction, ratio),
    })
}

/// Which way is better for a unit: times lower, rates higher.
pub(crate) fn direction(unit: &str) -> Direction {
    match unit {
        "ns" | "us" | "ms" | "s" => Direction::LowerIsBetter,
        u if u.ends_with("/s") => Direction::HigherIsBetter,
        _ => Direction::Unknown,
    }
}

fn worse_pct(direction: Direction, ratio: f64) -> Option<f64> {
    match direction {
        Direction::LowerIsBetter => Some((ratio - 1.0) * 100.0),
        Direction::HigherIsBetter => Some((1.0 - ratio) * 100.0),
        Direction::Unknown => None,
    }
}

fn change(judged: bool, significant: bool, direction: Direction, ratio: f64) -> Change {
    if !judged {
        return Change::Unknown;
    }
    if !significant {
        return Change::NotSignificant;
    }
    match worse_pct(direction, ratio) {
        None => Change::Changed,
        Some(w) if w > 0.0 => Change::Worse,
        Some(_) => Change::Better,
    }
}

#[cfg(test)]
mod tests;
