//! Every claim of a run at a glance, for the top of the HTML report: per
//! seed, each claim whose rule weighed a figure as one row (its verdict,
//! its id, and a strip with the rule's bands shaded by the verdict each
//! gives, the boundaries drawn, the figure as a dot with its interval),
//! and the claims decided by counts or the kernel's answers as a grid of
//! marks. Each row and mark links to the claim's evidence.

use crate::format::{human, human_range};
use crate::model::{ClaimStatus, ClaimVerdict, Weighed};
use plotters::prelude::*;
use serde::Serialize;

/// A strip's size in pixels.
const STRIP: (u32, u32) = (220, 14);

#[derive(Debug, Serialize)]
pub(crate) struct Seed {
    /// "E1".
    pub(crate) name: String,
    pub(crate) rows: Vec<Row>,
    pub(crate) marks: Vec<Mark>,
}

/// A claim whose figure was weighed against its bands.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) mark: Mark,
    /// "1.07 (1.05-1.09)".
    pub(crate) figure: String,
    pub(crate) strip: String,
}

/// A claim as a link to its evidence, coloured by its verdict.
#[derive(Debug, Serialize)]
pub(crate) struct Mark {
    pub(crate) id: String,
    pub(crate) claim: String,
    pub(crate) verdict: String,
    /// The verdict's CSS class suffix.
    pub(crate) class: String,
    pub(crate) anchor: String,
    /// The noise guard's mark, when a result the claim read was not clean.
    pub(crate) grade: Option<super::trust::GradeMark>,
}

/// The claims by seed, in the seeds' order.
pub(crate) fn build(claims: &[ClaimVerdict]) -> anyhow::Result<Vec<Seed>> {
    let mut seeds: Vec<Seed> = Vec::new();
    for c in crate::claims::render::by_seed(claims) {
        if seeds.last().is_none_or(|s| s.name != c.source) {
            seeds.push(Seed {
                name: c.source.clone(),
                rows: Vec::new(),
                marks: Vec::new(),
            });
        }
        let seed = seeds.last_mut().expect("pushed above");
        match &c.weighed {
            Some(w) => seed.rows.push(Row {
                mark: mark(c),
                figure: format!(
                    "{} ({})",
                    human(w.value, ""),
                    human_range(w.value, w.lo, w.hi, "")
                ),
                strip: strip(w, c.verdict)?,
            }),
            None => seed.marks.push(mark(c)),
        }
    }
    Ok(seeds)
}

fn mark(c: &ClaimVerdict) -> Mark {
    Mark {
        id: c.id.clone(),
        claim: c.claim.clone(),
        verdict: c.verdict_text(),
        class: super::findings::verdict_class(c.verdict),
        anchor: super::findings::claim_anchor(&c.id),
        grade: super::trust::claim_grade(c),
    }
}

/// The colour of a verdict: strong for the figure, pale for its band.
fn colour(status: ClaimStatus, pale: bool) -> RGBColor {
    match (status, pale) {
        (ClaimStatus::Holds, false) => RGBColor(26, 127, 55),
        (ClaimStatus::Holds, true) => RGBColor(214, 238, 220),
        (ClaimStatus::DoesNotHold, false) => RGBColor(170, 51, 51),
        (ClaimStatus::DoesNotHold, true) => RGBColor(244, 214, 214),
        (ClaimStatus::Inconclusive, false) => RGBColor(110, 110, 110),
        (ClaimStatus::Inconclusive, true) => RGBColor(232, 232, 232),
    }
}

/// The x range a strip shows: the interval and every edge, with room.
fn span(w: &Weighed) -> (f64, f64) {
    let points = w.edges.iter().chain([&w.lo, &w.hi, &w.value]);
    let lo = points.clone().copied().fold(f64::INFINITY, f64::min);
    let hi = points.copied().fold(f64::NEG_INFINITY, f64::max);
    let room = match hi > lo {
        true => (hi - lo) * 0.15,
        false => lo.abs().max(1.0) * 0.15,
    };
    (lo - room, hi + room)
}

/// One claim's strip as SVG: its bands, boundaries, interval and figure.
fn strip(w: &Weighed, verdict: ClaimStatus) -> anyhow::Result<String> {
    let (x0, x1) = span(w);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, STRIP).into_drawing_area();
        let mut chart = ChartBuilder::on(&root).build_cartesian_2d(x0..x1, 0.0..1.0)?;
        let mut starts = vec![x0];
        starts.extend(w.edges.iter().map(|e| e.clamp(x0, x1)));
        let ends = starts[1..].iter().copied().chain([x1]);
        let bands = starts.iter().zip(ends).zip(&w.verdicts);
        chart.draw_series(
            bands.map(|((a, b), v)| {
                Rectangle::new([(*a, 0.0), (b, 1.0)], colour(*v, true).filled())
            }),
        )?;
        chart.draw_series(
            w.edges
                .iter()
                .map(|e| PathElement::new(vec![(*e, 0.0), (*e, 1.0)], BLACK.stroke_width(1))),
        )?;
        let strong = colour(verdict, false);
        chart.draw_series([PathElement::new(
            vec![(w.lo, 0.5), (w.hi, 0.5)],
            strong.stroke_width(2),
        )])?;
        chart.draw_series([Circle::new((w.value, 0.5), 4, strong.filled())])?;
        root.present()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    #[test]
    fn a_weighed_claim_is_a_row_and_a_counted_one_a_mark() {
        let mut run = fixtures::run();
        let mut counted = run.claims[0].clone();
        counted.id = "E9-counted".into();
        counted.weighed = None;
        counted.verdict = ClaimStatus::DoesNotHold;
        run.claims.push(counted);
        let seeds = build(&run.claims).unwrap();
        assert_eq!(seeds.len(), 1);
        let seed = &seeds[0];
        assert_eq!(seed.name, "E9");
        assert_eq!(seed.rows.len(), 1);
        assert_eq!(seed.rows[0].mark.anchor, "claim-E9-fixture");
        assert_eq!(seed.rows[0].figure, "1.30 (1.25-1.35)");
        assert_eq!(seed.marks.len(), 1);
        assert_eq!(seed.marks[0].class, "does-not-hold");
    }

    #[test]
    fn a_strip_shades_each_band_and_draws_each_boundary() {
        let w = Weighed {
            value: 1.02,
            lo: 0.99,
            hi: 1.04,
            edges: vec![0.95, 1.05],
            verdicts: vec![
                ClaimStatus::DoesNotHold,
                ClaimStatus::Holds,
                ClaimStatus::DoesNotHold,
            ],
        };
        let svg = strip(&w, ClaimStatus::Holds).unwrap();
        assert_eq!(svg.matches("<rect").count(), 3, "{svg}");
        assert_eq!(svg.matches("<circle").count(), 1);
        assert!(svg.contains("#D6EEDC") || svg.to_lowercase().contains("#d6eedc"));
        assert_eq!(
            svg.matches("<polyline").count() + svg.matches("<path").count(),
            3
        );
    }
}
