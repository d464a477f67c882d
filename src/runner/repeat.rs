//! `iolab run ... --repeat-runs K`: the tool's own reproducibility as a
//! figure. The app runs the whole invocation K times as independent runs
//! (each stored as its own run; `plan::repeat_runs` checks K); this file lines each case's
//! headline up across the runs, and gives its coefficient of variation
//! (the sample standard deviation over the mean) in a table.

use crate::format::{case_label, human};
use crate::model::{Run, Status};
use crate::stats::estimators;
use comfy_table::{presets::NOTHING, Table};

/// One case's headline across the runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stability {
    pub(crate) scenario: String,
    pub(crate) case: String,
    pub(crate) metric: String,
    pub(crate) unit: String,
    /// The headline of each run in which the case was ok.
    pub(crate) values: Vec<f64>,
}

impl Stability {
    pub(crate) fn mean(&self) -> f64 {
        estimators::mean(&self.values)
    }

    /// The coefficient of variation of its values (`estimators::cv`).
    pub(crate) fn cv(&self) -> Option<f64> {
        estimators::cv(&self.values)
    }
}

/// Every case of the runs, in the order the first run that has it ran
/// it, with its headline from each run where it was ok.
pub(crate) fn stability(runs: &[Run]) -> Vec<Stability> {
    let mut rows: Vec<Stability> = Vec::new();
    for r in runs.iter().flat_map(|run| &run.results) {
        let at = rows
            .iter()
            .position(|s| s.scenario == r.scenario && s.case == r.case);
        let at = at.unwrap_or_else(|| {
            rows.push(Stability {
                scenario: r.scenario.clone(),
                case: r.case.clone(),
                metric: r.headline.clone().unwrap_or_default(),
                unit: String::new(),
                values: Vec::new(),
            });
            rows.len() - 1
        });
        if let Some((name, m)) = r.headline_metric().filter(|_| r.status == Status::Ok) {
            let row = &mut rows[at];
            row.metric = name.to_string();
            row.unit = m.unit.clone();
            row.values.push(m.value);
        }
    }
    rows
}

/// The table printed after the K runs.
pub(crate) fn render(runs: &[Run]) -> String {
    let mut t = Table::new();
    t.load_preset(NOTHING);
    t.set_header(["scenario", "case", "headline", "ok runs", "mean", "CV"]);
    for s in stability(runs) {
        let mean = match s.values.is_empty() {
            true => "-".to_string(),
            false => human(s.mean(), &s.unit),
        };
        let cv = s
            .cv()
            .map_or("-".to_string(), |cv| format!("{:.2}%", cv * 100.0));
        t.add_row([
            s.scenario.clone(),
            case_label(&s.case),
            s.metric.clone(),
            format!("{} of {}", s.values.len(), runs.len()),
            mean,
            cv,
        ]);
    }
    let ids: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
    format!(
        "== run-to-run stability over {} runs ({}) ==\nCV: the standard deviation of a case's headline across the runs over its mean\n{t}\n",
        runs.len(),
        ids.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CaseResult;
    use crate::scenario::limits::CLOCK_NS;

    fn run(id: &str, values: &[Option<f64>]) -> Run {
        let mut run = Run {
            iolab_version: "0".into(),
            run_id: id.into(),
            started_at: String::new(),
            finished_at: None,
            label: None,
            suite: None,
            environment: Default::default(),
            results: Vec::new(),
            verdicts: Vec::new(),
            claims: Vec::new(),
        };
        for (i, v) in values.iter().enumerate() {
            let mut r = CaseResult::new("limits", &format!("case{i}"), Default::default());
            match v {
                Some(v) => {
                    CLOCK_NS.set(&mut r, vec![*v]);
                    CLOCK_NS.set_headline(&mut r);
                }
                None => r.status = Status::Failed,
            }
            run.results.push(r);
        }
        run
    }

    #[test]
    fn each_case_gets_the_cv_of_its_headline_over_the_runs_it_was_ok_in() {
        let runs = [
            run("a", &[Some(10.0), Some(5.0)]),
            run("b", &[Some(12.0), None]),
            run("c", &[Some(14.0), Some(5.0)]),
        ];
        let rows = stability(&runs);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].values, vec![10.0, 12.0, 14.0]);
        assert_eq!(rows[0].metric, "clock_ns");
        // mean 12, sample standard deviation 2: CV 1/6.
        assert!((rows[0].cv().unwrap() - 2.0 / 12.0).abs() < 1e-12);
        assert_eq!(rows[1].values, vec![5.0, 5.0]);
        assert_eq!(rows[1].cv(), Some(0.0));
        let text = render(&runs);
        assert!(
            text.starts_with("== run-to-run stability over 3 runs (a, b, c) =="),
            "{text}"
        );
        let squeezed: Vec<String> = text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert!(
            squeezed.contains(&"limits case0 clock_ns 3 of 3 12.0 ns 16.67%".to_string()),
            "{text}"
        );
        assert!(
            squeezed.contains(&"limits case1 clock_ns 2 of 3 5.00 ns 0.00%".to_string()),
            "{text}"
        );
    }

    #[test]
    fn a_case_ok_in_one_run_only_has_no_cv() {
        let rows = stability(&[run("a", &[None]), run("b", &[Some(3.0)])]);
        assert_eq!(rows[0].values, vec![3.0]);
        assert_eq!(rows[0].cv(), None);
        let rows = stability(&[run("a", &[None]), run("b", &[None])]);
        let text = render(&[run("a", &[None]), run("b", &[None])]);
        assert!(rows[0].values.is_empty());
        assert!(text.contains("0 of 2"), "{text}");
    }
}
