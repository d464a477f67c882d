//! The fleet view's small multiples (`iolab report --fleet`): one small
//! chart per case, its headline metric on a linear (or, past a 30x span,
//! log) x axis and one row per host and kernel that measured it: a dot at
//! the median of the repetitions, a whisker over the 95% interval of the
//! median (or, where none was computed, the repetitions' min to max). Dots
//! only, so no bar ever stands on a log axis; the dot has its mechanism's
//! colour as on every chart; a case measured on more than `MAX_SERIES`
//! hosts and kernels gets one small chart per eight.

use super::frame::{self, Frame};
use super::marks::{self, Marker, SeriesMarks};
use super::panels::MAX_SERIES;
use super::{ident, palette, Axis, Chart, Labels};
use crate::format::{case_label, human, human_range, printable};
use crate::model::{CaseResult, Status};

/// A small chart's width; two fit side by side on the page.
const SMALL_WIDTH: u32 = 470;
/// Pixels kept free right of the plot, where the last tick's text ends.
const RIGHT_ROOM: u32 = 24;
/// A longer host and kernel label is cut on the axis (its hover title has it whole).
const LABEL_CHARS: usize = 28;
/// What the y axis lists.
const HOSTS_AXIS: &str = "host (kernel)";

/// One host and kernel: its label ("alpha (6.1.0)") and its run's results.
pub(crate) struct Host<'a> {
    pub(crate) label: String,
    pub(crate) results: &'a [CaseResult],
}

/// The small charts of one scenario, in the order its cases first appear
/// (scenarios in the order of their first case).
#[derive(Debug, serde::Serialize)]
pub(crate) struct ScenarioCharts {
    pub(crate) scenario: String,
    pub(crate) charts: Vec<Chart>,
}

/// What the charts of `hosts` show, by scenario, and how many cases were
/// left out because fewer than two hosts and kernels measured them (with
/// one host and kernel in all, every case it measured is drawn).
pub(crate) fn across_hosts(hosts: &[Host]) -> anyhow::Result<(Vec<ScenarioCharts>, usize)> {
    let needed = hosts.len().min(2);
    let mut out: Vec<ScenarioCharts> = Vec::new();
    let mut left_out = 0;
    for (scenario, case) in cases(hosts) {
        let points = points(hosts, &scenario, &case);
        if points.is_empty() {
            continue;
        }
        if points.len() < needed {
            left_out += 1;
            continue;
        }
        let group = match out.iter().position(|s| s.scenario == scenario) {
            Some(i) => i,
            None => {
                out.push(ScenarioCharts {
                    scenario: scenario.clone(),
                    charts: Vec::new(),
                });
                out.len() - 1
            }
        };
        let charts = &mut out[group].charts;
        let parts = points.len().div_ceil(MAX_SERIES);
        for (i, chunk) in points.chunks(MAX_SERIES).enumerate() {
            let part = match parts {
                1 => String::new(),
                n => format!(" ({} of {n})", i + 1),
            };
            charts.push(draw(&scenario, &case, chunk, &part)?);
        }
    }
    Ok((out, left_out))
}

/// Every (scenario, case) any host measured, in order of first appearance.
fn cases(hosts: &[Host]) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = Vec::new();
    for r in hosts.iter().flat_map(|h| h.results) {
        if !all.iter().any(|(s, c)| *s == r.scenario && *c == r.case) {
            all.push((r.scenario.clone(), r.case.clone()));
        }
    }
    all
}

/// One host's figure of a case.
#[derive(Debug, Clone, PartialEq)]
struct Point {
    host: String,
    /// The mechanism (poller, copier) that decides the colour.
    key: String,
    metric: String,
    unit: String,
    value: f64,
    /// The whisker and what it is.
    interval: Option<(f64, f64, &'static str)>,
    noise: Option<String>,
}

/// The headline of `case` on each host that measured it ok (a `probe`
/// case, which only counts its observations, has none); the metric is the
/// headline of the first host's result, so every row shows the same one.
fn points<'a>(hosts: &[Host<'a>], scenario: &str, case: &str) -> Vec<Point> {
    let found = |h: &Host<'a>| -> Option<&'a CaseResult> {
        h.results.iter().find(|r| {
            r.scenario == scenario
                && r.case == case
                && r.status == Status::Ok
                && r.observations.is_empty()
        })
    };
    let Some((metric, _)) = hosts
        .iter()
        .find_map(|h| found(h).and_then(CaseResult::headline_metric))
    else {
        return Vec::new();
    };
    let metric = metric.to_string();
    let point = |h: &Host<'a>| -> Option<Point> {
        let r = found(h)?;
        let m = r.metrics.get(&metric).filter(|m| m.value.is_finite())?;
        let ci = r.precision.as_ref().filter(|p| p.metric == metric);
        let interval = match (ci, m.min, m.max) {
            (Some(p), _, _) => Some((p.ci[0], p.ci[1], "95% interval of the median")),
            (None, Some(lo), Some(hi)) => Some((lo, hi, "repetitions min to max")),
            _ => None,
        };
        Some(Point {
            host: h.label.clone(),
            key: ident::family(r).unwrap_or_else(|| r.scenario.clone()),
            metric: metric.clone(),
            unit: m.unit.clone(),
            value: m.value,
            interval,
            noise: r.noise.as_ref().map(|n| n.label()),
        })
    };
    hosts.iter().filter_map(point).collect()
}

/// One small chart of `points` (at most `MAX_SERIES`), a row each.
fn draw(scenario: &str, case: &str, points: &[Point], part: &str) -> anyhow::Result<Chart> {
    let first = &points[0];
    let (metric, unit) = (first.metric.as_str(), first.unit.as_str());
    let values: Vec<f64> = points
        .iter()
        .flat_map(|p| {
            let (lo, hi) = p
                .interval
                .map_or((p.value, p.value), |(lo, hi, _)| (lo, hi));
            [p.value, lo, hi]
        })
        .collect();
    let x_title = ident::metric_title(scenario, metric, unit);
    let mut x = Axis::new(x_title, Labels::Unit(unit.into())).auto_log(values.iter().copied());
    let x_range = x.range(values.iter().copied());
    if !x.log {
        x.fixed = Some(few_ticks(x_range));
    }
    let n = points.len();
    // Row 0 at the top: row i is drawn at y = n - 1 - i.
    let names: Vec<String> = points
        .iter()
        .rev()
        .map(|p| printable(&p.host, LABEL_CHARS))
        .collect();
    let widest = names.iter().map(|h| h.chars().count()).max().unwrap_or(4);
    let mut y = Axis::new(HOSTS_AXIS, Labels::Names(names));
    y.fixed = Some((0..n).map(|i| i as f64).collect());
    let frame = Frame {
        x: &x,
        x_range,
        y: &y,
        y_range: (-0.6, n as f64 - 0.4),
        y_label_width: frame::label_width(widest),
        caption: "",
    };
    let height = 84 + 26 * n as u32;
    let mut drawn = Vec::new();
    let mut out = String::new();
    {
        use plotters::prelude::*;
        let whole = SVGBackend::with_string(&mut out, (SMALL_WIDTH, height)).into_drawing_area();
        whole.fill(&WHITE)?;
        // Room on the right for the last tick's text.
        let root = whole.margin(0, 0, 0, RIGHT_ROOM);
        let plot = frame::plot(&root, &frame)?;
        for (i, p) in points.iter().enumerate() {
            drawn.extend(mark(&plot, &x, (n - 1 - i) as f64, p));
        }
        whole.present()?;
    }
    let drawn = marks::panel("", &x.desc, &y.desc, &drawn);
    Ok(Chart {
        title: format!("{}: {metric}{part}", case_label(case)),
        note: String::new(),
        svg: marks::append(out, &drawn),
        legend: Vec::new(),
    })
}

/// At most five round ticks (1, 2 or 5 times a power of ten apart) over
/// `lo..hi`: a small chart's axis has room for no more texts.
fn few_ticks((lo, hi): (f64, f64)) -> Vec<f64> {
    super::axis::round_ticks(lo, hi, 4.0)
}

/// A host's whisker and titled dot as SVG, or nothing where the axis
/// cannot show its value.
fn mark(plot: &frame::Plot, x: &Axis, row: f64, p: &Point) -> Option<String> {
    let at = plot.backend_coord(&(x.to_plot(p.value)?, row));
    let mut svg = String::new();
    if let Some((lo, hi, _)) = p.interval {
        if let (Some(lo), Some(hi)) = (x.to_plot(lo), x.to_plot(hi)) {
            let ends = [
                plot.backend_coord(&(lo, row)),
                plot.backend_coord(&(hi, row)),
            ];
            svg.push_str(&marks::whisker(ends));
        }
    }
    let series = SeriesMarks {
        key: &p.key,
        name: &p.host,
        color: palette::color(&p.key),
        dash: "",
        marker: Marker::Circle,
        baseline: false,
    };
    svg.push_str(&series.svg(&[], &[(at.0, at.1, hover(p))]));
    Some(svg)
}

/// `alpha (6.1): rtt_ns = 5.00 us (4.95-5.05, 95% interval of the median)`.
fn hover(p: &Point) -> String {
    let mut text = format!("{}: {} = {}", p.host, p.metric, human(p.value, &p.unit));
    if let Some((lo, hi, what)) = p.interval {
        let range = human_range(p.value, lo, hi, &p.unit);
        text.push_str(&format!(" ({range}, {what})"));
    }
    if let Some(noise) = &p.noise {
        text.push_str(&format!("; noise: {noise}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn hosts(n: usize, results: &[CaseResult]) -> Vec<Host<'_>> {
        (0..n)
            .map(|i| Host {
                label: format!("host{i} (6.{i})"),
                results,
            })
            .collect()
    }

    #[test]
    fn a_case_gets_one_row_per_host_and_a_chart_per_eight() {
        let run = fixtures::run();
        let results = &run.results;
        let (groups, left_out) = across_hosts(&hosts(3, results)).unwrap();
        assert_eq!(left_out, 0);
        let charts: Vec<&Chart> = groups.iter().flat_map(|g| &g.charts).collect();
        assert!(!charts.is_empty());
        for c in &charts {
            assert_eq!(
                c.svg.matches("<g class=\"series\"").count(),
                3,
                "{}",
                c.title
            );
            assert!(c.svg.contains("data-y=\"host (kernel)\""));
            assert!(!c.svg.contains("class=\"bar\""), "dots only");
        }
        let (groups, _) = across_hosts(&hosts(11, results)).unwrap();
        let counts: Vec<usize> = groups[0]
            .charts
            .iter()
            .take(2)
            .map(|c| c.svg.matches("<g class=\"series\"").count())
            .collect();
        assert_eq!(counts, [8, 3]);
        assert!(groups[0].charts[0].title.ends_with(" (1 of 2)"));
    }

    #[test]
    fn a_small_axis_has_few_round_ticks() {
        assert_eq!(few_ticks((0.0, 6.3e9)), [0.0, 2e9, 4e9, 6e9]);
        assert_eq!(few_ticks((0.0, 530.0)), [0.0, 200.0, 400.0]);
        assert_eq!(few_ticks((0.0, 100.0)), [0.0, 50.0, 100.0]);
        assert!((1..=5).contains(&few_ticks((0.0, 1234.5)).len()));
    }

    #[test]
    fn a_case_one_host_measured_is_left_out_of_a_fleet() {
        let run = fixtures::run();
        let none: Vec<CaseResult> = Vec::new();
        let hosts = [
            Host {
                label: "a (1)".into(),
                results: &run.results,
            },
            Host {
                label: "b (1)".into(),
                results: &none,
            },
        ];
        let (groups, left_out) = across_hosts(&hosts).unwrap();
        assert!(groups.is_empty());
        assert!(left_out > 0);
        // Alone, a host's cases are all drawn.
        let (groups, left_out) = across_hosts(&hosts[..1]).unwrap();
        assert!(!groups.is_empty() && left_out == 0);
    }
}
