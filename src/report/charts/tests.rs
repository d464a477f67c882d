//! How lines are split into small charts and styled, on the shapes of the
//! quick suite: pingpong's 20 cases and contention's 2-point series.

use super::panels::{self, MAX_SERIES, SERIES};
use super::style::Styles;
use super::Line;

fn line(key: &str, dims: &[(&str, &str)]) -> Line {
    Line {
        name: format!("{key}/{dims:?}"),
        key: key.into(),
        dims: dims
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        tag: String::new(),
        baseline: false,
        points: vec![(0.0, 1.0)],
        marks: Vec::new(),
    }
}

/// Ten mechanisms (shm with two wake modes) on two placements.
fn pingpong() -> Vec<Line> {
    let mut out = Vec::new();
    for placement in ["same-cpu", "cross-cpu"] {
        for mech in [
            "pipe",
            "fifo",
            "eventfd",
            "unix-stream",
            "unix-dgram",
            "udp",
            "tcp",
        ] {
            out.push(line(mech, &[("placement", placement)]));
        }
        for wake in ["spin", "futex"] {
            out.push(line("shm", &[("placement", placement), ("wake", wake)]));
        }
        out.push(line("mq", &[("placement", placement)]));
    }
    out
}

#[test]
fn pingpong_splits_into_whole_mechanisms_with_placement_dashed() {
    let lines = pingpong();
    let split = panels::split(&lines);
    let titles: Vec<&str> = split.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "pipe, fifo, eventfd, unix-stream",
            "unix-dgram, udp, tcp",
            "shm, mq"
        ]
    );
    assert!(split.iter().all(|p| p.lines.len() <= MAX_SERIES));
    let all: usize = split.iter().map(|p| p.lines.len()).sum();
    assert_eq!(all, lines.len(), "every line drawn once");
    let styles = Styles::of(&lines, true, &split);
    assert_eq!(styles.dash(&lines[0]), "");
    assert_eq!(styles.dash(&lines[10]), "7 4", "cross-cpu is dashed");
    assert_ne!(
        styles.marker(&lines[7]),
        styles.marker(&lines[8]),
        "shm's wakes"
    );
    assert_eq!(styles.marker(&lines[0]), styles.marker(&lines[9]));
}

#[test]
fn series_of_different_quantities_get_frames_of_their_own() {
    let mut lines = Vec::new();
    for test in ["reader-only", "both", "both+hogs"] {
        for mech in ["pipe", "fifo", "eventfd", "unix-dgram", "udp"] {
            for what in ["reader_mean_ns", "reader_max_ns"] {
                lines.push(line(mech, &[("test", test), (SERIES, what)]));
            }
        }
    }
    let split = panels::split(&lines);
    assert_eq!(split.len(), 6, "{split:?}");
    assert_eq!(split[0].title, "reader_mean_ns, test=reader-only");
    for p in &split {
        assert_eq!(p.lines.len(), 5);
        let keys: std::collections::BTreeSet<&str> =
            p.lines.iter().map(|&i| lines[i].key.as_str()).collect();
        assert_eq!(keys.len(), 5, "one dot per mechanism in each frame");
    }
    // Nothing varies within a colour in a frame: one marker, no dashes.
    let styles = Styles::of(&lines, false, &split);
    assert!(lines
        .iter()
        .all(|l| styles.marker(l) == styles.marker(&lines[0])));
}

#[test]
fn a_few_lines_stay_in_one_frame() {
    let lines: Vec<Line> = pingpong().into_iter().take(MAX_SERIES).collect();
    let split = panels::split(&lines);
    assert_eq!(split.len(), 1);
    assert_eq!(split[0].title, "");
}

/// Two pingpong cases whose round trips are `ratio` apart.
fn two_cases(ratio: f64) -> Vec<crate::model::CaseResult> {
    let fast = crate::report::fixtures::ok_result();
    let mut slow = fast.clone();
    slow.case = "pipe/cross-cpu/processes/1B".into();
    let m = slow.metrics.get_mut("rtt_ns").unwrap();
    m.value *= ratio;
    m.min = m.min.map(|v| v * ratio);
    m.max = m.max.map(|v| v * ratio);
    vec![fast, slow]
}

/// The headline charts of `results`, as one run.
fn headline_svg(results: &[crate::model::CaseResult]) -> String {
    let source = super::Source {
        tag: String::new(),
        results: results.iter().collect(),
        baseline: false,
    };
    let charts = super::bars::charts(&[source]).unwrap();
    assert_eq!(charts.len(), 1);
    charts[0].svg.clone()
}

#[test]
fn headlines_over_decades_are_dots_on_a_log_axis_never_bars() {
    let log = headline_svg(&two_cases(1000.0));
    assert!(log.contains("log scale"), "the axis says it is logarithmic");
    assert_eq!(log.matches("class=\"dot\"").count(), 2);
    assert!(!log.contains("class=\"bar\""), "no bar on a log axis");
    let linear = headline_svg(&two_cases(1.5));
    assert!(!linear.contains("log scale"));
    assert_eq!(linear.matches("class=\"bar\"").count(), 2);
}

#[test]
fn series_that_never_span_time_get_no_time_chart() {
    let spanning = crate::report::fixtures::series_result();
    let mut instant = spanning.clone();
    for s in &mut instant.series {
        s.points.iter_mut().for_each(|p| p[0] = 0.0);
    }
    let drawn = |r: &crate::model::CaseResult| {
        let source = super::Source {
            tag: String::new(),
            results: vec![r],
            baseline: false,
        };
        super::series::charts(&[source]).unwrap().len()
    };
    assert_eq!(drawn(&spanning), 1);
    assert_eq!(
        drawn(&instant),
        0,
        "every point at one instant: no time axis"
    );
}
