//! How far to trust each figure, in words every format shares: the `±` of
//! a figure, which has one meaning everywhere (half the 95% interval of
//! its median, bootstrapped over its repetitions), the legend that says
//! so, the cases whose precision was not reached, and the noise guard's
//! grade.

use crate::model::RUN_WIDE_STOPS;
use crate::model::{CaseResult, ClaimVerdict, Grade, Metric, Status};
use crate::stats::bootstrap::median_half_width_pct;
use serde::Serialize;

/// A stop every case of the run shares: said once, in the legend.
fn run_wide(stopped_by: Option<&str>) -> Option<&str> {
    stopped_by.filter(|s| RUN_WIDE_STOPS.contains(s))
}

/// `±0.8%`: half the 95% interval of the figure's median, as `--precision`
/// computed it or from its repetitions; None for a single repetition and
/// for a figure that did not vary (a count).
pub(crate) fn plus_minus(r: &CaseResult, name: &str, metric: &Metric) -> Option<String> {
    if metric.reps.len() == 1 {
        return Some("1 rep".to_string());
    }
    let half_width = match r.precision.as_ref().filter(|p| p.metric == name) {
        Some(p) => p.half_width_pct,
        None => median_half_width_pct(&metric.reps)?,
    };
    (half_width > 0.0).then(|| pct(half_width))
}

/// What `±` means, in every format that shows one.
pub(crate) const LEGEND: &str =
    "± is half the 95% interval of the median (bootstrap over the repetitions)";

fn pct(value: f64) -> String {
    if value < 1.0 {
        format!("±{value:.1}%")
    } else {
        format!("±{value:.0}%")
    }
}

/// A noise cause without its figures: `host wake-ups slower`.
pub(crate) fn cause_kind(cause: &str) -> String {
    cause
        .split_whitespace()
        .filter(|w| !w.starts_with(|c: char| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" than its fastest", "")
}

/// A claim's noise mark: the worst grade of the results it read, the
/// symbol the report draws beside its figure and the hover text that says
/// why.
#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct GradeMark {
    /// `noisy` or `disturbed`: the CSS class suffix too.
    pub(crate) grade: &'static str,
    pub(crate) symbol: &'static str,
    pub(crate) title: String,
}

/// The mark of `c`, None when every result it read was clean.
pub(crate) fn claim_grade(c: &ClaimVerdict) -> Option<GradeMark> {
    let n = c.noise.as_ref()?;
    let mut kinds: Vec<String> = Vec::new();
    for kind in n.causes.iter().map(|cause| cause_kind(cause)) {
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Some(GradeMark {
        grade: n.grade.as_str(),
        symbol: match n.grade {
            Grade::Disturbed => "!",
            _ => "~",
        },
        title: format!(
            "{}: the noise guard graded {} of the {} results read worse than clean ({})",
            n.grade.as_str(),
            n.graded,
            n.read,
            kinds.join(", ")
        ),
    })
}

/// The noise column: the grade when not clean (its causes are a note).
pub(crate) fn noise_cell(r: &CaseResult) -> String {
    match &r.noise {
        Some(n) if n.grade != Grade::Clean => n.grade.as_str().to_string(),
        _ => String::new(),
    }
}

/// The line under a table that says what `±` is, when some result shows
/// one; the precision asked for and how many did not reach it follow.
pub(crate) fn legend(results: &[&CaseResult]) -> Option<String> {
    let shows = |r: &&&CaseResult| {
        r.status == Status::Ok
            && r.headline_metric()
                .and_then(|(name, m)| plus_minus(r, name, m))
                .is_some_and(|pm| pm.starts_with('±'))
    };
    results.iter().find(shows)?;
    let with: Vec<_> = results
        .iter()
        .filter_map(|r| r.precision.as_ref())
        .collect();
    let mut text = LEGEND.to_string();
    if let Some(first) = with.first() {
        text.push_str(&format!("; --precision {}%", first.target_pct));
    }
    let short: Vec<&str> = with
        .iter()
        .filter(|p| !p.reached)
        .filter_map(|p| run_wide(p.stopped_by.as_deref()))
        .collect();
    if let Some(why) = short.first() {
        text.push_str(&format!(
            " not reached by {} of {}: {why}",
            short.len(),
            with.len()
        ));
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
            crate::measure::metric::metric(vec![90.0, 110.0], "ns"),
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
        let from_reps = plus_minus(&plain, "rtt_ns", m).unwrap();
        assert!(from_reps.starts_with('±'), "{from_reps}");
        let mut count = plain.clone();
        let same = crate::measure::metric::metric(vec![2.0, 2.0, 2.0], "observations");
        count.metrics.insert("seen".into(), same.clone());
        assert_eq!(plus_minus(&count, "seen", &same), None);
    }

    #[test]
    fn not_reached_names_the_cap_and_quick_runs_say_it_once() {
        let capped = result(false, Some("repetition cap 20"));
        assert_eq!(
            not_reached(&capped).as_deref(),
            Some("precision not reached: ±3% (asked 2%; repetition cap 20)")
        );
        assert_eq!(not_reached(&result(true, None)), None);
        let quick = result(false, Some(crate::model::SUITE_STOP));
        assert_eq!(not_reached(&quick), None);
        let legend = legend(&[&quick, &result(true, None)]).unwrap();
        assert_eq!(
            legend,
            "± is half the 95% interval of the median (bootstrap over the repetitions); \
             --precision 2% not reached by 1 of 2: a suite runs no further batch"
        );
        assert_eq!(super::legend(&[]), None);
    }

    #[test]
    fn the_noise_cell_is_empty_when_clean() {
        let mut r = result(true, None);
        let mut n = crate::model::Noise::graded(Grade::Clean, &[]);
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
