//! Flame graphs in the HTML report: one per profiled case, an off-CPU one
//! per case explained with its off-CPU stacks, the differential one on
//! `--diff`, its refusals, and the graph as headless Chromium draws it
//! (inferno's script runs and every frame is there).

mod common;
#[path = "common/runs.rs"]
mod runs;

use common::Sandbox;
use std::path::PathBuf;
use std::time::Duration;

const PIPE: &str = "pipe/cross-cpu/processes/64B";
const EVENTFD: &str = "eventfd/cross-cpu/processes/64B";

/// A run with two profiled pingpong cases and one without a profile but
/// with its off-CPU stacks.
fn store_run(sb: &Sandbox) {
    let pipe = runs::with_profile(
        runs::pingpong("pipe", 64, &[1000.0]),
        &[
            "iolab;[kernel];ksys_write;pipe_write 30",
            "iolab;main_loop 10",
        ],
    );
    let eventfd = runs::with_profile(
        runs::pingpong("eventfd", 64, &[900.0]),
        &["iolab;[kernel];ksys_write;eventfd_write 20", "[cat] 5"],
    );
    let tcp = runs::with_offcpu(
        runs::pingpong("tcp", 64, &[5000.0]),
        &[
            "initiator;[kernel];tcp_recvmsg;schedule 4000",
            "echoer;[kernel];schedule 1000",
        ],
    );
    let run = runs::run(
        "r1",
        "2024-01-01T00:00:00Z",
        "flames",
        vec![pipe, eventfd, tcp],
    );
    runs::save(&sb.db(), &[run]);
}

fn report(sb: &Sandbox, extra: &[&str]) -> (PathBuf, assert_cmd::assert::Assert) {
    let html = sb.dir.path().join("report.html");
    let db = sb.db();
    let mut args = vec![
        "report",
        "--db",
        db.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let assert = sb.iolab(&args).assert();
    (html, assert)
}

/// The srcdoc documents of the page's flame graph frames, unescaped.
fn flame_documents(page: &str) -> Vec<String> {
    page.split("srcdoc=\"")
        .skip(1)
        .map(|rest| {
            rest[..rest.find('"').unwrap()]
                .replace("&quot;", "\"")
                .replace("&#x27;", "'")
                .replace("&#x2f;", "/")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect()
}

#[test]
fn each_profiled_case_has_its_flame_graph_and_diff_adds_one() {
    let sb = Sandbox::new();
    store_run(&sb);
    let (html, assert) = report(&sb, &[]);
    assert.success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<iframe sandbox=\"allow-scripts\"").count(), 3);
    assert!(
        page.contains(
            "<h3>flame graph: pingpong pipe&#x2f;cross-cpu&#x2f;processes&#x2f;64 B</h3>"
        ),
        "{page}"
    );
    assert!(page.contains(
        "<h3>flame graph: pingpong eventfd&#x2f;cross-cpu&#x2f;processes&#x2f;64 B</h3>"
    ));
    assert!(!page.contains("Differential flame graph"));
    let docs = flame_documents(&page);
    assert!(docs[0].starts_with("<svg"), "{}", &docs[0][..60]);
    assert!(docs[0].contains("<title>pipe_write (30 samples, 75.00%)</title>"));
    assert!(docs[1].contains("<title>[cat] (5 samples, 20.00%)</title>"));
    assert!(page.contains(
        "<h3>flame graph: pingpong tcp&#x2f;cross-cpu&#x2f;processes&#x2f;64 B off-CPU</h3>"
    ));
    assert!(
        docs[2].contains("<title>tcp_recvmsg (4,000 ns, 80.00%)</title>"),
        "{}",
        docs[2]
    );

    let (html, assert) = report(&sb, &["--diff", PIPE, EVENTFD]);
    assert.success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Differential flame graph"));
    let docs = flame_documents(&page);
    assert_eq!(docs.len(), 4);
    assert!(
        docs[3].contains("eventfd_write"),
        "the diff draws the second case"
    );
}

#[test]
fn diff_refuses_a_case_without_profile_or_unknown_and_writes_nothing() {
    let sb = Sandbox::new();
    store_run(&sb);
    let html = sb.dir.path().join("report.html");
    let db = sb.db();
    let base = [
        "report",
        "--db",
        db.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--diff",
        PIPE,
    ];
    let err = sb.usage_error(&[&base[..], &["tcp/cross-cpu/processes/64B"]].concat());
    assert!(err.contains("--diff: case tcp/cross-cpu/processes/64B has no profile; profiled cases of run r1: pingpong/pipe/cross-cpu/processes/64B, pingpong/eventfd/cross-cpu/processes/64B"), "{err}");
    let err = sb.usage_error(&[&base[..], &["nope"]].concat());
    assert!(
        err.contains("--diff: no case nope in run r1; profiled cases: "),
        "{err}"
    );
    assert!(!html.exists(), "nothing written");
}

#[test]
fn flame_graph_frames_render_in_headless_chromium() {
    let browsers = ["chromium", "chromium-browser", "google-chrome"];
    let Some(browser) = common::find_program(&browsers) else {
        common::require(
            false,
            "needs a headless browser on PATH (apt-get install chromium)",
        );
        return;
    };
    let sb = Sandbox::new();
    store_run(&sb);
    let (html, assert) = report(&sb, &[]);
    assert.success();
    let doc = &flame_documents(&std::fs::read_to_string(html).unwrap())[0];
    let page = sb.dir.path().join("flame.html");
    std::fs::write(
        &page,
        format!("<!DOCTYPE html><html><body>{doc}</body></html>"),
    )
    .unwrap();
    let out = assert_cmd::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
        ])
        .arg(format!(
            "--user-data-dir={}",
            sb.dir.path().join("chromium").display()
        ))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .timeout(Duration::from_secs(120))
        .output()
        .expect("chromium starts");
    let dom = String::from_utf8_lossy(&out.stdout);
    let svg_tag = &dom[dom.find("<svg").expect("an svg")..];
    let svg_tag = &svg_tag[..svg_tag.find('>').unwrap()];
    assert!(
        !svg_tag.contains(" width="),
        "inferno's script ran (fluid width): {svg_tag}"
    );
    for frame in [
        "all",
        "iolab",
        "[kernel]",
        "ksys_write",
        "pipe_write",
        "main_loop",
    ] {
        assert!(
            dom.contains(&format!("<title>{frame} (")),
            "frame {frame} missing"
        );
    }
    assert_eq!(dom.matches("<g><title>").count(), 6, "one group per frame");
}
