//! How far to trust each figure, in words every format shares: the `±` of
//! a headline (the median's 95% interval under `--precision`, else half
//! the min-max spread), the legend saying which, the cases whose precision
//! was not reached, and the noise guard's grade.

use crate::format::spread;
use crate::model::{CaseResult, Grade, Metric, Status};
use crate::plan::precision::RUN_WIDE_STOPS;

/// A stop every case of the run shares: said once, in the legend.
fn run_wide(stopped_by: Option<&str>) -> Option<&str> {
    stopped_by.filter(|s| RUN_WIDE_STOPS.contains(s))
}

/// `±0.8%` for the headline: the 95% interval's half-width when the run
/// computed one for it, else the min-max spread (`format::spread`).
pub(crate) fn plus_minus(r: &CaseResult, name: &str, metric: &Metric) -> Option<String> {
    match r.precision.as_ref().filter(|p| p.metric == name) {
        Some(p) => Some(pct(p.half_width_pct)),
        None => spread(metric),
    }
}

fn pct(value: f64) -> String {
    if value < 1.0 {
        format!("±{value:.1}%")
    } else {
        format!("±{value:.0}%")
    }
}

/// The noise column: the grade when not clean (its causes are a note).
pub(crate) fn noise_cell(r: &CaseResult) -> String {
    match &r.noise {
        Some(n) if n.grade != Grade::Clean => n.grade.as_str().to_string(),
        _ => String::new(),
    }
}

/// The line under a table that says what `±` is, when some result carries
/// an interval; quick runs count their unreached cases here.
pub(crate) fn legend(results: &[&CaseResult]) -> Option<String> {
    let with: Vec<_> = results
        .iter()
        .filter_map(|r| r.precision.as_ref())
        .collect();
    let first = with.first()?;
    let short: Vec<&str> = with
        .iter()
        .filter(|p| !p.reached)
        .filter_map(|p| run_wide(p.stopped_by.as_deref()))
        .collect();
    let mut text = format!(
        "± is the headline median's 95% bootstrap interval (--precision {}%)",
        first.target_pct
    );
    if let Some(why) = short.first() {
        text.push_str(&format!(
            "; not reached by {} of {}: {why}",
            short.len(),
            with.len()
        ));
    }
    let spread_too = results
        .iter()
        .any(|r| r.status == Status::Ok && r.precision.is_none() && r.headline.is_some());
    if spread_too {
        text.push_str("; elsewhere half the min-max spread");
    }
    Some(text)
}

/// `precision not reached: ±21% (asked 0.01%; repetition cap 12)` for a
/// result that stopped short (other than a quick run's, see `legend`).
pub(crate) fn not_reached(r: &CaseResult) -> Option<String> {
    let p = r.precision.as_ref().filter(|p| !p.reached)?;
    let why = p.stopped_by.as_deref()?;
    if run_wide(Some(why)).is_some() {
        return None;
    }
    Some(format!(
        "precision not reached: {} (asked {}%; {why})",
        pct(p.half_width_pct),
        p.target_pct
    ))
}

/// Per result its noise grade with the causes when not clean and its
/// unreached precision, then the legend.
pub(crate) fn notes(results: &[&CaseResult]) -> Vec<String> {
    let mut out = Vec::new();
    for r in results.iter().filter(|r| r.status == Status::Ok) {
        let label = crate::format::case_label(&r.case);
        if let Some(n) = r.noise.as_ref().filter(|n| n.grade != Grade::Clean) {
            out.push(format!("{label} {}", n.label()));
        }
        if let Some(line) = not_reached(r) {
            out.push(format!("{label} {line}"));
        }
    }
    out.extend(legend(results));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Precision;
    use std::collections::BTreeMap;

    fn result(reached: bool, stopped_by: Option<&str>) -> CaseResult {
        let mut r = CaseResult::new("pingpong", "pipe", BTreeMap::new());
        r.metrics.insert(
            "rtt_ns".into(),
            crate::measure::stats::metric(vec![90.0, 110.0], "ns"),
        );
        r.headline = Some("rtt_ns".into());
        r.precision = Some(Precision {
            metric: "rtt_ns".into(),
            target_pct: 2.0,
            ci: [97.0, 103.0],
            half_width_pct: 3.0,
            reached,
            reps: 20,
            batches: 4,
            stopped_by: stopped_by.map(str::to_string),
        });
        r
    }

    #[test]
    fn plus_minus_is_the_interval_when_there_is_one() {
        let r = result(false, Some("repetition cap 20"));
        let m = &r.metrics["rtt_ns"];
        assert_eq!(plus_minus(&r, "rtt_ns", m).as_deref(), Some("±3%"));
        let mut plain = r.clone();
        plain.precision = None;
        assert_eq!(plus_minus(&plain, "rtt_ns", m).as_deref(), Some("±10%"));
    }

    #[test]
    fn not_reached_names_the_cap_and_quick_runs_say_it_once() {
        let capped = result(false, Some("repetition cap 20"));
        assert_eq!(
            not_reached(&capped).as_deref(),
            Some("precision not reached: ±3% (asked 2%; repetition cap 20)")
        );
        assert_eq!(not_reached(&result(true, None)), None);
        let quick = result(false, Some(crate::plan::precision::SUITE_STOP));
        assert_eq!(not_reached(&quick), None);
        let legend = legend(&[&quick, &result(true, None)]).unwrap();
        assert_eq!(
            legend,
            "± is the headline median's 95% bootstrap interval (--precision 2%); \
             not reached by 1 of 2: a suite runs no further batch"
        );
        assert_eq!(super::legend(&[]), None);
    }

    #[test]
    fn the_noise_cell_is_empty_when_clean() {
        let mut r = result(true, None);
        let mut n = crate::report::fixtures::noise(Grade::Clean, &[]);
        r.noise = Some(n.clone());
        assert_eq!(noise_cell(&r), "");
        n.grade = Grade::Noisy;
        n.causes = vec!["steal 8%".into()];
        r.noise = Some(n);
        assert_eq!(noise_cell(&r), "noisy");
        let legend = legend(&[&r]).unwrap();
        assert_eq!(
            notes(&[&r]),
            vec!["pipe noisy: steal 8%".to_string(), legend]
        );
    }
}
