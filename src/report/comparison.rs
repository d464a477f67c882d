//! The comparison of two runs as the document formats show it: the
//! `compare` module's decisions (ratio, interval, significance) unchanged,
//! ordered for a reader: significant changes first, regressions before
//! improvements, each by effect size (the fold change, |ln B/A|), then the
//! cases within the noise by the same measure; plus a one-line count.

use crate::compare::{self, CaseComparison, Change};
use crate::format::plural;
use crate::model::Run;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct ComparisonView {
    /// How significance is decided.
    pub(crate) test: String,
    /// "2 cases significantly worse, 1 better, 40 within the noise".
    pub(crate) summary: String,
    /// Significant changes, regressions first, largest effect first.
    pub(crate) changed: Vec<Row>,
    /// The rest (no significant change, or too few repetitions to judge).
    pub(crate) same: Vec<Row>,
    /// Cases only one run has, run with other parameters, or that could
    /// not be compared (`compare::unmatched_lines`).
    pub(crate) unmatched: Vec<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Row {
    /// scenario, case, metric, A, B, B/A, 95% CI, change (`compare::cells`).
    pub(crate) cells: [String; 8],
    /// `worse`, `better`, `changed`, `same` or `unknown`, for colouring.
    pub(crate) class: &'static str,
}

impl ComparisonView {
    /// Every row in reading order: the changed, then the rest.
    pub(crate) fn rows(&self) -> impl Iterator<Item = &Row> {
        self.changed.iter().chain(&self.same)
    }
}

/// The comparison of `a` (baseline) and `b` at the default minimum effect.
pub(crate) fn build(a: &Run, b: &Run) -> ComparisonView {
    let result = compare::compare(a, b);
    let mut cases: Vec<&CaseComparison> = result.cases.iter().collect();
    cases.sort_by(|x, y| {
        rank(x.change)
            .cmp(&rank(y.change))
            .then(effect(y).total_cmp(&effect(x)))
    });
    let (changed, same): (Vec<_>, Vec<_>) = cases.into_iter().partition(|c| rank(c.change) < 3);
    let row = |c: &&CaseComparison| Row {
        cells: compare::cells(c),
        class: class(c.change),
    };
    ComparisonView {
        test: result.test.clone(),
        summary: summary(&result),
        changed: changed.iter().map(row).collect(),
        same: same.iter().map(row).collect(),
        unmatched: compare::unmatched_lines(&result),
    }
}

/// Order of the kinds of change: regressions, improvements, changes of
/// unknown direction, then no change and cases that cannot be judged.
fn rank(change: Change) -> u8 {
    match change {
        Change::Worse => 0,
        Change::Better => 1,
        Change::Changed => 2,
        Change::NotSignificant => 3,
        Change::Unknown => 4,
    }
}

/// The effect size: how many-fold B differs from A, either way.
fn effect(c: &CaseComparison) -> f64 {
    let size = c.ratio.ln().abs();
    if size.is_finite() {
        size
    } else {
        f64::INFINITY
    }
}

fn class(change: Change) -> &'static str {
    match change {
        Change::Worse => "worse",
        Change::Better => "better",
        Change::Changed => "changed",
        Change::NotSignificant => "same",
        Change::Unknown => "unknown",
    }
}

/// `2 cases significantly worse, 1 better, 40 within the noise`, and the
/// cases not compared when there are any.
fn summary(c: &compare::Comparison) -> String {
    let count = |change: Change| c.cases.iter().filter(|x| x.change == change).count();
    let mut parts = vec![
        format!(
            "{} significantly worse",
            plural(count(Change::Worse), "case")
        ),
        format!("{} better", count(Change::Better)),
    ];
    if count(Change::Changed) > 0 {
        parts.push(format!("{} changed", count(Change::Changed)));
    }
    parts.push(format!(
        "{} within the noise",
        count(Change::NotSignificant)
    ));
    if count(Change::Unknown) > 0 {
        parts.push(format!(
            "{} with too few repetitions to judge",
            count(Change::Unknown)
        ));
    }
    let unmatched =
        c.only_in_a.len() + c.only_in_b.len() + c.mismatched.len() + c.not_comparable.len();
    if unmatched > 0 {
        parts.push(format!("{unmatched} not compared"));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metric::metric;
    use crate::model::CaseResult;
    use crate::report::fixtures;

    /// A run of cases `name` with the headline `unit` at `median` (+-0.5%).
    fn run_of(cases: &[(&str, &str, f64)]) -> Run {
        let mut run = fixtures::run();
        run.results = cases
            .iter()
            .map(|(name, unit, v)| {
                let mut r = CaseResult::new("pingpong", name, Default::default());
                r.metrics
                    .insert("m".into(), metric(vec![v * 0.995, *v, v * 1.005], unit));
                r.headline = Some("m".into());
                r
            })
            .collect();
        run
    }

    #[test]
    fn rows_are_sorted_by_effect_size_with_regressions_first() {
        let a = run_of(&[
            ("same", "ns", 100.0),
            ("worse-2x", "ns", 100.0),
            ("better-3x", "ns", 300.0),
            ("worse-rate-1.5x", "bytes/s", 150.0),
            ("worse-4x", "ns", 100.0),
            ("drift", "ns", 100.0),
        ]);
        let b = run_of(&[
            ("same", "ns", 100.0),
            ("worse-2x", "ns", 200.0),
            ("better-3x", "ns", 100.0),
            ("worse-rate-1.5x", "bytes/s", 100.0),
            ("worse-4x", "ns", 400.0),
            ("drift", "ns", 100.4),
        ]);
        let view = build(&a, &b);
        let order: Vec<(&str, &str)> = view
            .rows()
            .map(|r| (r.cells[1].as_str(), r.class))
            .collect();
        assert_eq!(
            order,
            [
                ("worse-4x", "worse"),
                ("worse-2x", "worse"),
                ("worse-rate-1.5x", "worse"),
                ("better-3x", "better"),
                ("drift", "same"),
                ("same", "same"),
            ]
        );
        assert_eq!(view.changed.len(), 4);
        assert_eq!(view.changed[0].cells[7], "worse by 300% *");
        assert_eq!(view.changed[0].cells[5], "4.00x");
        assert_eq!(
            view.summary,
            "3 cases significantly worse, 1 better, 2 within the noise"
        );
    }

    #[test]
    fn summary_counts_the_cases_not_compared() {
        let a = run_of(&[("x", "ns", 100.0), ("only-a", "ns", 1.0)]);
        let b = run_of(&[("x", "ns", 100.0)]);
        let view = build(&a, &b);
        assert_eq!(
            view.summary,
            "0 cases significantly worse, 0 better, 1 within the noise, 1 not compared"
        );
        assert_eq!(view.unmatched, ["only in A: pingpong only-a"]);
    }

    #[test]
    fn a_case_run_with_other_parameters_is_counted_as_not_compared() {
        let a = run_of(&[("x", "ns", 100.0)]);
        let mut b = run_of(&[("x", "ns", 400.0)]);
        b.results[0].params.insert("count".into(), 20_000.into());
        let view = build(&a, &b);
        // A recorded no count: it ran at pingpong's default.
        assert_eq!(
            view.summary,
            "0 cases significantly worse, 0 better, 0 within the noise, 1 not compared"
        );
        assert_eq!(
            view.unmatched,
            ["unmatched: pingpong x: count 10000 vs 20000"]
        );
    }
}
