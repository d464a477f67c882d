//! `iolab compare A B`: the same cases of two stored runs side by side,
//! the ratio B/A of their headlines, and whether the difference stands out
//! from the noise: the bootstrap interval of the ratio (`stats::bootstrap`) must
//! lie wholly beyond a minimum effect and the two runs' repetitions must
//! not overlap, so drift inside the spread reads as no change. Which
//! direction is worse follows the unit: a time (ns, s) is better lower, a
//! rate (`/s`) higher. Which results pair is pairing.rs (by their inputs,
//! identity.rs), their printed names names.rs; rendering as text lives in
//! render.rs; the JSON is this module's types.

mod identity;
mod names;
mod pairing;
mod render;
mod unmatched;

pub(crate) use identity::Difference;
pub(crate) use names::printed as printed_names;
pub(crate) use render::{cells, text, unmatched_lines, verdict};

use crate::measure::metric::clearly_differs;
use crate::model::{CaseResult, Grade, Run, Status};
use crate::stats::bootstrap;
use serde::Serialize;

pub(crate) use crate::cli::DEFAULT_MIN_EFFECT_PCT;

/// How significance is decided, for every output to say.
pub(crate) const TEST: &str = "significance: 95% percentile-bootstrap interval of the ratio of \
medians B/A, resampling each run's repetitions (2000 resamples, fixed seed); \
* marks a change whose interval lies wholly beyond the minimum effect (--min-effect, \
default 5%) and whose repetitions' ranges [min, max] do not overlap; a case the noise \
guard graded noisy in either run needs twice the minimum effect, and one graded disturbed \
is never significant; anything less is within the noise";

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct Comparison {
    pub(crate) a: RunRef,
    pub(crate) b: RunRef,
    pub(crate) test: String,
    pub(crate) cases: Vec<CaseComparison>,
    pub(crate) only_in_a: Vec<CaseRef>,
    pub(crate) only_in_b: Vec<CaseRef>,
    /// Cases of the same name in both runs run with other parameters: never
    /// compared, so never a regression.
    pub(crate) mismatched: Vec<Mismatch>,
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
                name: c.name.clone(),
            })
            .collect();
    }
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct RunRef {
    pub(crate) run_id: String,
    pub(crate) label: Option<String>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema, PartialEq)]
pub(crate) struct CaseRef {
    pub(crate) scenario: String,
    pub(crate) case: String,
    /// The name as printed: `case`, and where other cases read the same,
    /// the parameters it differs in (`poll/tcp/idle=0/active=100`).
    pub(crate) name: String,
}

/// A case in both runs that cannot be compared, and why.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct NotComparable {
    pub(crate) scenario: String,
    pub(crate) case: String,
    pub(crate) name: String,
    pub(crate) reason: String,
}

/// A case of A and one of B with the same name but other parameters.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct Mismatch {
    pub(crate) scenario: String,
    pub(crate) case: String,
    /// A's printed name.
    pub(crate) name: String,
    /// Each parameter that differs, A's value then B's.
    pub(crate) differences: Vec<Difference>,
}

#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Direction {
    LowerIsBetter,
    HigherIsBetter,
    Unknown,
}

#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema, PartialEq, Eq)]
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

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct CaseComparison {
    pub(crate) scenario: String,
    pub(crate) case: String,
    /// The name as printed (`CaseRef::name`).
    pub(crate) name: String,
    /// The parameters that differ between the paired cases: at most the
    /// repetitions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) differences: Vec<Difference>,
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
    /// The noise guard's grade of either run's result when not clean, e.g.
    /// "B disturbed: migrated": it raises the bar or rules significance out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) noise: Option<String>,
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

/// Pair the cases of the two runs with the same parameters
/// (pairing.rs) and compare their headlines; a change smaller than
/// `min_effect_pct` percent is no change.
pub(crate) fn compare_with(a: &Run, b: &Run, min_effect_pct: f64) -> Comparison {
    let p = pairing::pair(&a.results, &b.results);
    let (a_names, b_names) = pairing::names(&a.results, &b.results, &p);
    let key = |r: &CaseResult, name: &String| CaseRef {
        scenario: r.scenario.clone(),
        case: r.case.clone(),
        name: name.clone(),
    };
    let mut out = Comparison {
        a: run_ref(a),
        b: run_ref(b),
        test: test_text(min_effect_pct),
        cases: Vec::new(),
        only_in_a: p
            .only_a
            .iter()
            .map(|&i| key(&a.results[i], &a_names[i]))
            .collect(),
        only_in_b: p
            .only_b
            .iter()
            .map(|&j| key(&b.results[j], &b_names[j]))
            .collect(),
        mismatched: p
            .mismatched
            .into_iter()
            .map(|(i, _, differences)| Mismatch {
                scenario: a.results[i].scenario.clone(),
                case: a.results[i].case.clone(),
                name: a_names[i].clone(),
                differences,
            })
            .collect(),
        not_comparable: Vec::new(),
        min_effect_pct,
        fail_on_regression_pct: None,
        regressions: Vec::new(),
    };
    for (i, j, differences) in p.matched {
        let (ra, rb) = (&a.results[i], &b.results[j]);
        match case(ra, rb, min_effect_pct) {
            Ok(c) => out.cases.push(CaseComparison {
                name: a_names[i].clone(),
                differences,
                ..c
            }),
            Err(reason) => out.not_comparable.push(NotComparable {
                scenario: ra.scenario.clone(),
                case: ra.case.clone(),
                name: a_names[i].clone(),
                reason,
            }),
        }
    }
    out
}

/// `TEST`, naming the minimum effect when it is not the default.
fn test_text(min_effect_pct: f64) -> String {
    if min_effect_pct == DEFAULT_MIN_EFFECT_PCT {
        return TEST.to_string();
    }
    format!("{TEST}; minimum effect here: {min_effect_pct}%")
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
    let grade = worst_grade(a, b);
    let factor = if grade == Grade::Noisy { 2.0 } else { 1.0 };
    let beyond = |(lo, hi): (f64, f64)| {
        let min = factor * min_effect_pct / 100.0;
        lo > 1.0 + min || hi < 1.0 - min
    };
    let significant = grade != Grade::Disturbed && !ranges_overlap && interval.is_some_and(beyond);
    let direction = direction(&ma.unit);
    Ok(CaseComparison {
        scenario: a.scenario.clone(),
        case: a.case.clone(),
        name: crate::format::case_label(&a.case),
        differences: Vec::new(),
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
        noise: noise_note(a, b),
    })
}

/// The worse of the two results' noise grades (clean when ungraded).
fn worst_grade(a: &CaseResult, b: &CaseResult) -> Grade {
    [a, b]
        .iter()
        .filter_map(|r| r.noise.as_ref().map(|n| n.grade))
        .max()
        .unwrap_or(Grade::Clean)
}

/// `A noisy: steal 8%; B disturbed: migrated` for the runs not clean.
fn noise_note(a: &CaseResult, b: &CaseResult) -> Option<String> {
    let parts: Vec<String> = [("A", a), ("B", b)]
        .iter()
        .filter_map(|(tag, r)| {
            let n = r.noise.as_ref().filter(|n| n.grade != Grade::Clean)?;
            Some(format!("{tag} {}", n.label()))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
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
mod names_tests;
#[cfg(test)]
mod pairing_tests;
#[cfg(test)]
mod tests;
