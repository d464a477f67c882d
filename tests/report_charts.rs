//! The charts of `iolab report --html` read their SVG back and check its
//! structure (not its looks): no frame draws more than 8 series, a
//! mechanism has one colour on every chart, every axis is titled with a
//! unit, every point and bar has a hover `<title>`. On a run shaped like
//! the quick suite's (20 pingpong cases, 2-point contention series, a
//! stream size sweep, pollers over idle connections) and on a real small run.

mod common;
#[path = "common/runs.rs"]
mod runs;
#[path = "common/svg.rs"]
mod svg;

use common::Sandbox;
use iolab::measure::metric::metric;
use iolab::model::{CaseResult, Series};
use serde_json::json;
use svg::{check, report};

const PINGPONG: [&str; 10] = [
    "pipe",
    "fifo",
    "eventfd",
    "unix-stream",
    "unix-dgram",
    "udp",
    "tcp",
    "shm",
    "shm",
    "mq",
];
const PLACEMENTS: [&str; 2] = ["same-cpu", "cross-cpu"];

fn case(scenario: &str, name: &str, params: &[(&str, serde_json::Value)]) -> CaseResult {
    let params = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    CaseResult::new(scenario, name, params)
}

/// The quick suite's pingpong: ten mechanisms (shm twice: spin, futex) on two placements.
fn pingpong() -> Vec<CaseResult> {
    let mut out = Vec::new();
    for placement in PLACEMENTS {
        for (i, mech) in PINGPONG.iter().enumerate() {
            let mut r = runs::pingpong(mech, 1, &[1000.0 * (i + 1) as f64; 3]);
            r.params.insert("placement".into(), json!(placement));
            if *mech == "shm" {
                let wake = if i == 7 { "spin" } else { "futex" };
                r.params.insert("wake".into(), json!(wake));
            }
            // The case name is set through the JSON, which leaves the histogram out.
            let histogram = r.histogram.take();
            let mut value = serde_json::to_value(&r).unwrap();
            value["case"] = json!(format!("{mech}/{placement}/processes/1B/{i}"));
            let mut r: CaseResult = serde_json::from_value(value).unwrap();
            r.histogram = histogram;
            out.push(r);
        }
    }
    out
}

/// The quick suite's contention: five mechanisms, four tests, series of two points.
fn contention() -> Vec<CaseResult> {
    let mut out = Vec::new();
    for test in ["reader-only", "writer-only", "both", "both+hogs"] {
        for mech in ["pipe", "fifo", "eventfd", "unix-dgram", "udp"] {
            let params = [
                ("mech", json!(mech)),
                ("placement", json!("unpinned")),
                ("mode", json!("processes")),
                ("test", json!(test)),
            ];
            let mut r = case("contention", &format!("{mech}/unpinned/{test}"), &params);
            r.metrics
                .insert("mean_ns".into(), metric(vec![900.0, 1100.0], "ns"));
            r.headline = Some("mean_ns".into());
            for role in ["reader", "writer"] {
                for (what, unit) in [("mean_ns", "ns"), ("max_ns", "ns"), ("slow_calls", "calls")] {
                    r.series.push(Series {
                        name: format!("{role}_{what}"),
                        unit: unit.into(),
                        points: vec![[0.0, 1000.0], [0.1, 2000.0]],
                    });
                }
            }
            out.push(r);
        }
    }
    out
}

/// stream over three sizes, and poll-scale's pollers over idle connections.
fn sweeps() -> Vec<CaseResult> {
    let mut out = Vec::new();
    for placement in PLACEMENTS {
        for mech in [
            "pipe",
            "fifo",
            "unix-stream",
            "unix-dgram",
            "udp",
            "tcp",
            "mq",
        ] {
            for size in [64u64, 4096, 65536] {
                let params = [
                    ("mech", json!(mech)),
                    ("placement", json!(placement)),
                    ("mode", json!("processes")),
                    ("size", json!(size)),
                    ("messages_per_rep", json!(size * 7)),
                ];
                let mut r = case("stream", &format!("{mech}/{placement}/{size}B"), &params);
                let v = size as f64 * 1e4;
                r.metrics
                    .insert("bytes_per_s".into(), metric(vec![v, v * 1.1], "bytes/s"));
                r.headline = Some("bytes_per_s".into());
                out.push(r);
            }
        }
    }
    for poller in ["select", "poll", "epoll-lt", "epoll-et", "io-uring"] {
        for idle in [0u64, 100] {
            let params = [("poller", json!(poller)), ("idle", json!(idle))];
            let mut r = case("poll-scale", &format!("{poller}/idle={idle}"), &params);
            r.metrics
                .insert("seconds".into(), metric(vec![0.1, 0.12], "s"));
            r.headline = Some("seconds".into());
            out.push(r);
        }
    }
    out
}

#[test]
fn quick_shaped_charts_are_small_multiples_in_one_language() {
    let sb = Sandbox::new();
    let mut results = pingpong();
    results.extend(contention());
    results.extend(sweeps());
    let a = runs::run("a", "2024-01-01T00:00:00Z", "a", results.clone());
    let b = runs::run("b", "2024-01-02T00:00:00Z", "b", results);
    runs::save(&sb.db(), &[a, b]);
    let page = report(&sb, &["latest"]);
    let (frames, colors) = check(&page);
    assert!(
        frames.iter().any(|&n| n >= 3),
        "pingpong's 20 lines split: {frames:?}"
    );
    assert!(colors >= 9, "mechanisms share colours: {colors}");
    // Series of two points are dots: no line joins them.
    let series_chart = page
        .split("<div class=\"chart\">")
        .find(|c| c.contains("over time"));
    let series_chart = series_chart.expect("a time series chart");
    let series: Vec<&str> = series_chart.split("<g class=\"series\"").skip(1).collect();
    assert!(!series.is_empty());
    for s in series {
        assert!(
            !s[..s.find("</g>").unwrap()].contains("<polyline"),
            "{s:.300}"
        );
    }
    // The legend says what each style means.
    for entry in ["cross-cpu: dashed", "wake=spin: square", "pipe</li>"] {
        assert!(page.contains(entry), "legend without {entry}");
    }
    // Hover titles are escaped, `/` too.
    let hover = "<title>pipe/same-cpu/processes/1 B/0: p99 = ".replace('/', "&#x2f;");
    assert!(page.contains(&hover), "{hover}");

    let both = report(&sb, &["--compare", "a", "b"]);
    check(&both);
    assert!(both.contains("run A (baseline, lighter, hollow markers)"));
}

#[test]
fn a_real_small_run_draws_the_same_language() {
    let sb = Sandbox::new();
    let db = sb.db();
    let run = [
        "run",
        "pingpong",
        "--mech",
        "pipe,eventfd,unix-stream,udp,tcp",
        "--param",
        "count=200",
        "--repeat",
        "2",
        "--quiet",
        "--db",
    ];
    let mut args = run.to_vec();
    args.push(db.to_str().unwrap());
    sb.iolab(&args).assert().success();
    let page = report(&sb, &["latest"]);
    let (frames, colors) = check(&page);
    assert!(frames.len() >= 2, "percentiles and bars: {frames:?}");
    assert!(colors >= 5, "five mechanisms, five colours: {colors}");
}
