//! The comparison of `iolab ab` in one picture: the ratio B/A of each
//! interleaved round as a dot on one axis, the paired interval as a shaded
//! band with its median, and 1 (no difference) marked. Drawn when a run's
//! results are exactly two cases measured in the same rounds, the shape an
//! `ab` run stores; the spread of the dots is the noise the interval
//! already weighs. Rounds too few for an interval are drawn without one.

use super::frame::{self, Frame};
use super::{marks, Axis, Chart, Labels, Source};
use crate::format::{case_label, ratio};
use crate::model::CaseResult;
use crate::stats::paired;
use plotters::prelude::*;

const HEIGHT: u32 = 170;
const BAND: RGBColor = RGBColor(31, 119, 180);

pub(crate) fn charts(sources: &[Source]) -> anyhow::Result<Vec<Chart>> {
    let [source] = sources else {
        return Ok(Vec::new());
    };
    let compared: Vec<&CaseResult> = source.ok().filter(|r| r.rounds.is_some()).collect();
    let [a, b] = compared[..] else {
        return Ok(Vec::new());
    };
    let values = |r: &CaseResult| {
        r.rounds
            .as_ref()
            .map(|x| x.values.clone())
            .unwrap_or_default()
    };
    let per_round = paired::per_round(&values(a), &values(b));
    if per_round.is_empty() {
        return Ok(Vec::new());
    }
    let interval = paired::ratio(&values(a), &values(b));
    let (a_name, b_name) = (case_label(&a.case), case_label(&b.case));
    let title = format!("B/A per interleaved round: B = {b_name}, A = {a_name}");
    Ok(vec![draw(&per_round, interval.as_ref(), title)?])
}

fn draw(
    per_round: &[f64],
    interval: Option<&paired::PairedRatio>,
    title: String,
) -> anyhow::Result<Chart> {
    let x = Axis::new(
        "B/A (ratio of the round's headlines)",
        Labels::Unit(String::new()),
    );
    let bounds = interval.map(|p| [p.lo, p.hi]).unwrap_or([1.0, 1.0]);
    let x_range = x.range(per_round.iter().copied().chain([1.0]).chain(bounds));
    let mut y = Axis::new("", Labels::Names(vec![String::new()]));
    y.fixed = Some(vec![0.0]);
    let frame = Frame {
        x: &x,
        x_range,
        y: &y,
        y_range: (-1.0, 1.0),
        y_label_width: frame::label_width(2),
        caption: "",
    };
    let n = per_round.len();
    let mut dots = Vec::new();
    let svg = frame::svg(HEIGHT, |root| {
        let mut plot = frame::plot(root, &frame)?;
        if let Some(p) = interval {
            plot.draw_series([Rectangle::new(
                [(p.lo, -0.8), (p.hi, 0.8)],
                BAND.mix(0.18).filled(),
            )])?;
            plot.draw_series([PathElement::new(
                [(p.median, -0.8), (p.median, 0.8)],
                BAND.stroke_width(2),
            )])?;
        }
        plot.draw_series([PathElement::new(
            [(1.0, -0.9), (1.0, 0.9)],
            BLACK.stroke_width(1),
        )])?;
        for (i, r) in per_round.iter().enumerate() {
            // Rounds spread over the row in order, so none hides another.
            let row = -0.6 + 1.2 * i as f64 / n.max(2).saturating_sub(1) as f64;
            let title = format!("round {}: B/A = {}", i + 1, ratio(*r));
            let centre = plot.backend_coord(&(*r, row));
            dots.push(marks::dot(centre, "ratio", "#333333", 0.7, &title));
        }
        Ok(())
    })?;
    let drawn = marks::panel("", &x.desc, "round (in order)", &dots);
    Ok(Chart {
        title,
        note: match interval {
            Some(p) => format!(
                "{n} rounds; shaded: the paired interval {}-{} around the median {} (blue line); black line: no difference",
                ratio(p.lo),
                ratio(p.hi),
                ratio(p.median)
            ),
            None => format!(
                "{n} rounds: too few for an interval (it needs {}); black line: no difference",
                crate::stats::looks::FIRST_LOOK
            ),
        },
        svg: marks::append(svg, &drawn),
        legend: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::in_rounds;

    #[test]
    fn an_ab_run_draws_one_dot_per_round_inside_its_interval_chart() {
        let a = in_rounds(
            "pipe",
            &[20e3, 21e3, 40e3, 22e3, 20e3, 21e3, 20e3, 22e3, 21e3],
        );
        let b = in_rounds(
            "eventfd",
            &[19e3, 20e3, 39e3, 20e3, 19e3, 20e3, 19e3, 21e3, 20e3],
        );
        let source = Source {
            tag: String::new(),
            results: vec![&a, &b],
            baseline: false,
        };
        let charts = charts(&[source]).unwrap();
        assert_eq!(charts.len(), 1);
        let c = &charts[0];
        assert!(c.title.contains("B = eventfd"), "{}", c.title);
        assert_eq!(
            c.svg.matches("class=\"dot\"").count(),
            9,
            "one dot per round"
        );
        assert!(c.svg.contains("round 3: B&#x2f;A = "), "the hover escaped");
        assert!(
            c.note.starts_with("9 rounds; shaded: the paired interval "),
            "{}",
            c.note
        );
        let three = in_rounds("tcp", &[30e3; 5]);
        let crowd = Source {
            tag: String::new(),
            results: vec![&a, &b, &three],
            baseline: false,
        };
        assert!(charts_of(crowd).is_empty(), "not an ab run: no strip");
    }

    #[test]
    fn rounds_too_few_for_an_interval_are_drawn_without_one() {
        let a = in_rounds("pipe", &[20e3, 21e3]);
        let b = in_rounds("eventfd", &[19e3, 20e3]);
        let chart = charts_of(Source {
            tag: String::new(),
            results: vec![&a, &b],
            baseline: false,
        });
        assert_eq!(chart[0].svg.matches("class=\"dot\"").count(), 2);
        assert_eq!(
            chart[0].note,
            "2 rounds: too few for an interval (it needs 9); black line: no difference"
        );
    }

    fn charts_of(source: Source) -> Vec<Chart> {
        charts(&[source]).unwrap()
    }
}
