//! Interleaved rounds (`iolab ab`): when results carry their headline per
//! round (`CaseResult.rounds`), one chart of each case's headline round by
//! round. Cases measured in the same rounds move together when the host
//! changes speed; the gap between their lines is what the paired ratio
//! weighs. Drawn for the cases of one comparison (one headline unit, at
//! most `MAX_CASES`); a seeds run's many groups of rounds are not.

use super::lines::{self, LineChart};
use super::{ident, line, Axis, Chart, Labels, Line, Source};
use crate::format::{case_label, human};

/// The most cases one chart of rounds draws.
const MAX_CASES: usize = 8;

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let mut lines: Vec<Line> = Vec::new();
    let mut units: Vec<String> = Vec::new();
    let mut unit = String::new();
    for source in sources {
        for r in source.ok() {
            let (Some(rounds), Some((_, headline))) = (&r.rounds, r.headline_metric()) else {
                continue;
            };
            unit.clone_from(&headline.unit);
            units.push(unit.clone());
            let mut line = line(r, case_label(&r.case), source, "");
            line.points = (1..)
                .map(f64::from)
                .zip(rounds.values.iter().copied())
                .collect();
            line.marks = line
                .points
                .iter()
                .map(|&(round, v)| {
                    let what = format!("{} in round {round}", line.name);
                    (round, v, ident::hover(&line.tag, &what, human(v, &unit)))
                })
                .collect();
            lines.push(line);
        }
    }
    units.dedup();
    if lines.is_empty() || lines.len() > MAX_CASES || units.len() > 1 {
        return Ok(Vec::new());
    }
    let spec = LineChart {
        title: "headline per interleaved round".into(),
        x: Axis::new("round (number)", Labels::Unit(String::new())),
        y: Axis::new(format!("headline ({unit})"), Labels::Unit(unit.clone())),
        lines,
        joined: true,
        original: None,
    };
    Ok(vec![lines::draw(spec, sources)?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CaseResult;
    use crate::report::fixtures::in_rounds;

    #[test]
    fn each_case_of_the_rounds_is_a_line_over_the_round_numbers() {
        let (a, b) = (
            in_rounds("pipe", &[20e3, 21e3, 40e3]),
            in_rounds("eventfd", &[19e3, 20e3, 39e3]),
        );
        let plain = CaseResult::new("pingpong", "tcp/cross-cpu", Default::default());
        let source = Source {
            tag: String::new(),
            results: vec![&a, &b, &plain],
            baseline: false,
        };
        let charts = charts(&[source]).unwrap();
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].title, "headline per interleaved round");
        // The SVG escapes the case's slash.
        for case in ["pipe&#x2f;cross-cpu", "eventfd&#x2f;cross-cpu"] {
            let hover = format!("{case} in round 3: ");
            assert!(charts[0].svg.contains(&hover), "{hover}: {}", charts[0].svg);
        }
        assert!(!charts[0].svg.contains("tcp&#x2f;cross-cpu"));
        let none = Source {
            tag: String::new(),
            results: vec![&plain],
            baseline: false,
        };
        assert!(super::charts(&[none]).unwrap().is_empty());
    }
}
