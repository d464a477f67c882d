//! `iolab compare A B`: the same cases of two stored runs side by side,
//! the ratio B/A of their headlines, and whether the difference stands out
//! from the repetitions' spread (bootstrap.rs). Which direction is worse
//! follows the unit: a time (ns, s) is better lower, a rate (`/s`) higher.
//! Rendering as text lives in render.rs; the JSON is this module's types.

mod bootstrap;
mod render;

pub use render::{cells, text, unmatched_lines, verdict};

use crate::model::{CaseResult, Run, Status};
use serde::Serialize;

/// How significance is decided, for every output to say.
pub const TEST: &str = "significance: 95% percentile-bootstrap interval of the ratio of \
medians B/A, resampling each run's repetitions (2000 resamples, fixed seed); \
* marks an interval that excludes 1";

#[derive(Debug, Serialize)]
pub struct Comparison {
    pub a: RunRef,
    pub b: RunRef,
    pub test: String,
    pub cases: Vec<CaseComparison>,
    pub only_in_a: Vec<CaseRef>,
    pub only_in_b: Vec<CaseRef>,
    pub not_comparable: Vec<NotComparable>,
    /// The `--fail-on-regression` threshold, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_on_regression_pct: Option<f64>,
    /// The cases significantly worse by more than that threshold.
    pub regressions: Vec<CaseRef>,
}

impl Comparison {
    /// Record which cases regressed by more than `pct` percent.
    pub fn judge(&mut self, pct: f64) {
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
pub struct RunRef {
    pub run_id: String,
    pub label: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CaseRef {
    pub scenario: String,
    pub case: String,
}

/// A case in both runs that cannot be compared, and why.
#[derive(Debug, Serialize)]
pub struct NotComparable {
    pub scenario: String,
    pub case: String,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    LowerIsBetter,
    HigherIsBetter,
    Unknown,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    Better,
    Worse,
    /// Significant, but the unit does not say which way is better.
    Changed,
    NotSignificant,
    /// Fewer than two repetitions on a side: no spread to judge by.
    Unknown,
}

#[derive(Debug, Serialize)]
pub struct CaseComparison {
    pub scenario: String,
    pub case: String,
    pub metric: String,
    pub unit: String,
    pub a: f64,
    pub b: f64,
    pub ratio: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub significant: bool,
    pub direction: Direction,
    pub change: Change,
    /// How much worse B is, in percent (negative: better); None when the
    /// direction is unknown.
    pub worse_pct: Option<f64>,
}

impl CaseComparison {
    /// Significantly worse by more than `pct` percent.
    pub fn regressed(&self, pct: f64) -> bool {
        self.change == Change::Worse && self.worse_pct.is_some_and(|w| w > pct)
    }
}

/// Match cases by (scenario, case) and compare their headlines.
pub fn compare(a: &Run, b: &Run) -> Comparison {
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
        test: TEST.to_string(),
        cases: Vec::new(),
        only_in_a: Vec::new(),
        only_in_b: Vec::new(),
        not_comparable: Vec::new(),
        fail_on_regression_pct: None,
        regressions: Vec::new(),
    };
    for ra in &a.results {
        match find(b, &key(ra)) {
            None => out.only_in_a.push(key(ra)),
            Some(i) => match case(ra, &b.results[i]) {
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

fn run_ref(run: &Run) -> RunRef {
    RunRef {
        run_id: run.run_id.clone(),
        label: run.label.clone(),
    }
}

/// The comparison of one matched case, or why there is none.
fn case(a: &CaseResult, b: &CaseResult) -> Result<CaseComparison, String> {
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
    let significant = interval.is_some_and(|(lo, hi)| lo > 1.0 || hi < 1.0);
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
        direction,
        change: change(interval.is_some(), significant, direction, ratio),
        worse_pct: worse_pct(direction, ratio),
    })
}

/// Which way is better for a unit: times lower, rates higher.
pub fn direction(unit: &str) -> Direction {
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
