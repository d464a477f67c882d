//! The classic graphs of `iolab report --html` (E5, E6b, E4, E3), read back
//! from the SVG: each is there with its axis titles and units, a series or
//! bar per poller, backend, copier or mechanism, the original's figure
//! marked and named in the legend, and the charts' common structure (at
//! most 8 series a frame, one colour per mechanism). On runs shaped like
//! the seeds suite's results, and on a real small poll-scale run.

mod common;
#[path = "common/runs.rs"]
mod runs;
#[path = "common/svg.rs"]
mod svg;

use common::Sandbox;
use iolab::measure::metric::metric;
use iolab::model::CaseResult;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use svg::{chart_titled, check, report, values};

const POLLERS: [&str; 5] = ["select", "poll", "epoll-lt", "epoll-et", "io-uring"];
const COPIERS: [&str; 5] = ["read-write", "mmap-write", "sendfile", "splice", "io-uring"];
const MECHS: [&str; 5] = ["fifo", "pipe", "eventfd", "udp", "unix-dgram"];
const E5_IDLE: [u64; 12] = [0, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240];

fn case(scenario: &str, params: &[(&str, Value)], metrics: &[(&str, f64, &str)]) -> CaseResult {
    let name: Vec<String> = params.iter().map(|(_, v)| v.to_string()).collect();
    let params = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let mut r = CaseResult::new(scenario, &name.join("/").replace('"', ""), params);
    for (name, v, unit) in metrics {
        r.metrics
            .insert(name.to_string(), metric(vec![*v, v * 1.02], unit));
    }
    r.headline = metrics.first().map(|m| m.0.to_string());
    r
}

/// The seeds suite's poll-scale (select only within FD_SETSIZE) and event-bench.
fn sweeps() -> Vec<CaseResult> {
    let mut out = Vec::new();
    for (i, poller) in POLLERS.iter().enumerate() {
        for idle in E5_IDLE
            .into_iter()
            .filter(|n| *poller != "select" || *n < 1000)
        {
            let params = [
                ("poller", json!(poller)),
                ("transport", json!("tcp")),
                ("idle", json!(idle)),
            ];
            let s = 1.0 + i as f64 * 0.1 + idle as f64 * 1e-4;
            out.push(case("poll-scale", &params, &[("seconds", s, "s")]));
        }
        for fds in [100u64, 1000, 5000, 7500] {
            for active in [1u64, 100] {
                let params = [
                    ("poller", json!(poller)),
                    ("dispatch", json!("nonblocking")),
                    ("pair", json!("socketpair")),
                    ("fds", json!(fds)),
                    ("active", json!(active)),
                ];
                let us = fds as f64 * 0.01 * (i + 1) as f64;
                out.push(case("event-bench", &params, &[("us_per_loop", us, "us")]));
            }
        }
    }
    out
}

/// The seeds suite's file-transfer: three sizes, plain and cork, loopback and 100 Mbit.
fn transfers() -> Vec<CaseResult> {
    let mut out = Vec::new();
    for link in ["loopback", "100mbit"] {
        for copier in COPIERS {
            for size in [9u64 << 20, 32 << 20, 64 << 20] {
                for tcp in ["plain", "cork"] {
                    let mut params = vec![
                        ("copier", json!(copier)),
                        ("file-size", json!(size)),
                        ("tcp", json!(tcp)),
                        ("cache", json!("warm")),
                        ("sink", json!("discard")),
                        ("link", json!(link)),
                    ];
                    if copier == "read-write" {
                        params.push(("buf", json!(4096)));
                    }
                    let wall = size as f64 / if link == "loopback" { 2e9 } else { 12e6 };
                    let metrics = [
                        ("wall_s", wall, "s"),
                        ("sender_cpu_s", wall * 0.3, "s"),
                        ("receiver_cpu_s", wall * 0.5, "s"),
                    ];
                    out.push(case("file-transfer", &params, &metrics));
                }
            }
        }
    }
    out
}

/// The seeds suite's contention: five mechanisms, four tests.
fn contention() -> Vec<CaseResult> {
    let mut out = Vec::new();
    for (i, mech) in MECHS.iter().enumerate() {
        for test in ["reader-only", "writer-only", "both", "both+hogs"] {
            let params = [
                ("mech", json!(mech)),
                ("placement", json!("unpinned")),
                ("mode", json!("processes")),
                ("test", json!(test)),
            ];
            let slow = if test.starts_with("both") {
                2.0 + i as f64 * 3.0
            } else {
                1.0
            };
            let metrics = [
                ("reader_mean_ns", 400.0 * slow, "ns"),
                ("writer_mean_ns", 500.0 * slow, "ns"),
            ];
            out.push(case("contention", &params, &metrics));
        }
    }
    out
}

/// Parameter `key` of `r` as text.
fn param(r: &CaseResult, key: &str) -> String {
    match r.params.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The axis titles of each frame of `chart`.
fn axes(chart: &str) -> BTreeSet<(String, String)> {
    chart
        .split("<g class=\"panel\"")
        .skip(1)
        .map(|p| (svg::attr(p, "data-x").into(), svg::attr(p, "data-y").into()))
        .collect()
}

#[test]
fn seeds_shaped_runs_draw_the_classic_graphs_with_the_originals_figures() {
    let sb = Sandbox::new();
    let mut results = sweeps();
    results.extend(transfers());
    results.extend(contention());
    let a = runs::run("a", "2024-01-01T00:00:00Z", "a", results.clone());
    let b = runs::run("b", "2024-01-02T00:00:00Z", "b", results);
    runs::save(&sb.db(), &[a, b]);
    let page = report(&sb, &["latest"]);
    check(&page);

    let e5 = chart_titled(&page, "E5:");
    assert_eq!(values(e5, "<g class=\"series\"", "data-key"), set(&POLLERS));
    let e5_axes = (
        "idle (count)".to_string(),
        "time for 40000 round trips (s)".to_string(),
    );
    assert_eq!(axes(e5), BTreeSet::from([e5_axes]));
    assert!(e5.contains("original (2006, 40,000 requests, the post&#x27;s graph)"));
    assert!(!e5.contains("class=\"note\""), "12 points: nothing missing");
    assert!(
        !page.contains("<h3>seconds by idle"),
        "the plain sweep would repeat E5"
    );

    let e6 = chart_titled(&page, "E6b:");
    assert_eq!(values(e6, "<g class=\"series\"", "data-key"), set(&POLLERS));
    assert!(
        e6.matches("<g class=\"panel\"").count() >= 2,
        "10 lines split"
    );
    assert!(e6.contains("<g class=\"reference\""), "7,500 fds marked");
    assert!(e6.contains("<li>") && e6.contains("event ports about 10x faster"));

    let e4 = chart_titled(&page, "E4:");
    assert_eq!(values(e4, "<rect class=\"bar\"", "data-key"), set(&COPIERS));
    let titles = values(e4, "<g class=\"panel\"", "data-title");
    let want = [
        "link=loopback, file-size 64 MiB",
        "link=100mbit, file-size 64 MiB",
    ];
    assert_eq!(titles, set(&want));
    let e4_axes = ("what was timed (a bar per copier)", "time per file (s)");
    assert!(axes(e4)
        .iter()
        .all(|(x, y)| (x.as_str(), y.as_str()) == e4_axes));
    assert_eq!(
        e4.matches("<g class=\"reference\"").count(),
        1,
        "100 Mbit only"
    );
    assert!(e4.contains("original (2006, 100 Mbit): about 5.4 s for 64 MB"));
    // One bar per copier, figure and link: wall, sender CPU, receiver CPU.
    assert_eq!(e4.matches("<rect class=\"bar\"").count(), 2 * 5 * 3);

    let e3 = chart_titled(&page, "E3:");
    assert_eq!(values(e3, "<rect class=\"bar\"", "data-key"), set(&MECHS));
    assert_eq!(e3.matches("<rect class=\"bar\"").count(), 5 * 4);
    let y = svg::attr(&e3[e3.find("<g class=\"panel\"").unwrap()..], "data-y");
    assert_eq!(y, "mean call time, together over alone (x)");
    assert!(e3.contains("<title>fifo, reader, both: 2.0x: reader_mean_ns = 808 ns with both, 404 ns with reader-only"));
    assert!(e3.contains("about 10-15x slower"));
    assert_eq!(e3.matches("<g class=\"reference\"").count(), 1);

    let both = report(&sb, &["--compare", "a", "b"]);
    check(&both);
    let e3 = chart_titled(&both, "E3:");
    assert_eq!(
        e3.matches("<rect class=\"bar\"").count(),
        2 * 5 * 4,
        "both runs"
    );
}

#[test]
fn a_quick_shaped_run_says_what_a_full_sweep_would_show() {
    let sb = Sandbox::new();
    let mut results: Vec<CaseResult> = sweeps()
        .into_iter()
        .filter(|r| ["0", "10"].contains(&param(r, "idle").as_str()))
        .collect();
    results.retain(|r| r.scenario != "event-bench");
    results.extend(
        transfers()
            .into_iter()
            .filter(|r| param(r, "link") == "loopback"),
    );
    results.extend(
        contention()
            .into_iter()
            .filter(|r| param(r, "test") != "writer-only"),
    );
    runs::save(
        &sb.db(),
        &[runs::run("a", "2024-01-01T00:00:00Z", "a", results)],
    );
    let page = report(&sb, &["latest"]);
    check(&page);
    let e5 = chart_titled(&page, "E5:");
    assert!(e5.contains("This run has 2 of the original&#x27;s 12 values of idle"));
    let e4 = chart_titled(&page, "E4:");
    assert!(e4.contains("none of the cases the original&#x27;s figure is about"));
    assert!(!e4.contains("<g class=\"reference\""));
    let e3 = chart_titled(&page, "E3:");
    assert!(e3.contains("This run has no writer, both, writer, both+hogs bars"));
}

#[test]
fn a_real_small_poll_scale_run_draws_the_e5_graph() {
    let sb = Sandbox::new();
    let db = sb.db();
    let args = [
        "run",
        "poll-scale",
        "--param",
        "idle=0,10,20",
        "--param",
        "requests=2000",
        "--repeat",
        "1",
        "--quiet",
        "--db",
        db.to_str().unwrap(),
    ];
    sb.iolab(&args).assert().success();
    let page = report(&sb, &["latest"]);
    check(&page);
    let e5 = chart_titled(&page, "E5:");
    let drawn = values(e5, "<g class=\"series\"", "data-key");
    assert!(
        drawn.len() >= 3 && drawn.is_subset(&set(&POLLERS)),
        "{drawn:?}"
    );
    for s in e5.split("<g class=\"series\"").skip(1) {
        assert_eq!(s[..s.find("</g>").unwrap()].matches("<circle").count(), 3);
    }
    assert!(e5.contains("This run has 3 of the original&#x27;s 12 values of idle"));
    assert!(e5.contains("epoll&#x27;s stays flat</li>"));
}
