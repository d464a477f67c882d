//! The noise guard's grades for the top of a report: one line per cause
//! with how many results it concerns and the range of its figure ("81 of
//! 87: host wake-ups 32-220% slower than its fastest"), and every graded
//! result with its causes in a list the report folds away.

use super::{scenario_link, Line};
use crate::format::case_label;
use crate::model::{CaseResult, Grade, Status};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub(crate) struct NoiseSummary {
    /// "5 of 87 results noisy, 81 disturbed (the noise guard)".
    pub(crate) title: String,
    /// One line per cause, the most frequent first.
    pub(crate) causes: Vec<String>,
    /// Every graded result with its causes, shown on request.
    pub(crate) cases: Vec<Line>,
}

/// The summary of the ok results' grades; None when all are clean.
pub(crate) fn summary(results: &[CaseResult]) -> Option<NoiseSummary> {
    let ok: Vec<&CaseResult> = results.iter().filter(|r| r.status == Status::Ok).collect();
    let graded: Vec<(&CaseResult, &crate::model::Noise)> = ok
        .iter()
        .filter_map(|r| Some((*r, r.noise.as_ref().filter(|n| n.grade != Grade::Clean)?)))
        .collect();
    if graded.is_empty() {
        return None;
    }
    let count = |g: Grade| graded.iter().filter(|(_, n)| n.grade == g).count();
    let title = format!(
        "{} of {} results noisy, {} disturbed (the noise guard)",
        count(Grade::Noisy),
        ok.len(),
        count(Grade::Disturbed)
    );
    let causes = by_kind(graded.iter().flat_map(|(_, n)| &n.causes))
        .into_iter()
        .map(|kind| format!("{} of {}: {}", kind.count, ok.len(), kind.text()))
        .collect();
    let cases = graded
        .iter()
        .map(|(r, n)| Line {
            text: format!("{}: {}", case_label(&r.case), n.label()),
            links: vec![scenario_link(&r.scenario)],
        })
        .collect();
    Some(NoiseSummary {
        title,
        causes,
        cases,
    })
}

/// The causes of one kind: how many, and the range of their figures.
struct Kind<'a> {
    /// The first cause seen, whose figure the range replaces.
    example: &'a str,
    key: String,
    count: usize,
    range: Option<(f64, f64)>,
}

impl Kind<'_> {
    /// "host wake-ups 32-220% slower than its fastest".
    fn text(&self) -> String {
        let (Some((lo, hi)), Some((at, token))) = (self.range, figure_token(self.example)) else {
            return self.example.to_string();
        };
        let unit = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        let range = match lo == hi {
            true => format!("{lo:.0}{unit}"),
            false => format!("{lo:.0}-{hi:.0}{unit}"),
        };
        format!(
            "{}{range}{}",
            &self.example[..at],
            &self.example[at + token.len()..]
        )
    }
}

/// The causes grouped by their words without figures, the most frequent
/// first.
fn by_kind<'a>(causes: impl Iterator<Item = &'a String>) -> Vec<Kind<'a>> {
    let mut kinds: Vec<Kind> = Vec::new();
    for cause in causes {
        let key = crate::report::trust::cause_kind(cause);
        let value = figure_token(cause).and_then(|(_, t)| number(t));
        let kind = match kinds.iter_mut().position(|k| k.key == key) {
            Some(i) => &mut kinds[i],
            None => {
                kinds.push(Kind {
                    example: cause,
                    key,
                    count: 0,
                    range: None,
                });
                kinds.last_mut().expect("just pushed")
            }
        };
        kind.count += 1;
        if let Some(v) = value {
            let (lo, hi) = kind.range.unwrap_or((v, v));
            kind.range = Some((lo.min(v), hi.max(v)));
        }
    }
    kinds.sort_by_key(|k| std::cmp::Reverse(k.count));
    kinds
}

/// The first word of `cause` that starts with a digit, and where it is.
fn figure_token(cause: &str) -> Option<(usize, &str)> {
    cause
        .split(' ')
        .scan(0, |at, word| {
            let start = *at;
            *at += word.len() + 1;
            Some((start, word))
        })
        .find(|(_, word)| word.starts_with(|c: char| c.is_ascii_digit()))
}

fn number(token: &str) -> Option<f64> {
    let end = token
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(token.len());
    token[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn graded(grade: Grade, causes: &[&str]) -> CaseResult {
        CaseResult {
            noise: Some(crate::model::Noise::graded(grade, causes)),
            ..fixtures::ok_result()
        }
    }

    #[test]
    fn grades_are_counted_by_cause_with_the_range_of_their_figures() {
        let wake = |pct: u32| format!("host wake-ups {pct}% slower than its fastest");
        let results = vec![
            graded(Grade::Disturbed, &[&wake(132), "3 other runnable tasks"]),
            graded(Grade::Disturbed, &[&wake(220), "migrated"]),
            graded(Grade::Noisy, &[&wake(32)]),
            graded(Grade::Noisy, &["steal 8%"]),
            graded(Grade::Clean, &[]),
            fixtures::failed_result(),
        ];
        let s = summary(&results).expect("a summary");
        assert_eq!(
            s.title,
            "2 of 5 results noisy, 2 disturbed (the noise guard)"
        );
        assert_eq!(
            s.causes,
            [
                "3 of 5: host wake-ups 32-220% slower than its fastest",
                "1 of 5: 3 other runnable tasks",
                "1 of 5: migrated",
                "1 of 5: steal 8%",
            ]
        );
        assert_eq!(s.cases.len(), 4, "every graded result, folded away");
        assert!(s.cases[0]
            .text
            .ends_with(&format!("disturbed: {}, 3 other runnable tasks", wake(132))));
    }

    #[test]
    fn clean_results_need_no_summary() {
        let results = vec![graded(Grade::Clean, &[]), fixtures::ok_result()];
        assert!(summary(&results).is_none());
    }
}
