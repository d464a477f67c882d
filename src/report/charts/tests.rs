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
