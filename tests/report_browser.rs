//! The HTML report as a person sees it: headless Chromium renders a report
//! of fabricated runs (one case profiled, so a flame graph is embedded) to
//! PNG, and the picture must not be blank; the page must load nothing from
//! elsewhere. Without a browser on PATH the test is
//! skipped, or fails under IOLAB_STRICT_TESTS=1 (CI installs `chromium`).

#[path = "common/browser.rs"]
mod browser;
mod common;
#[path = "common/runs.rs"]
mod runs;

use browser::{assert_no_external_references, assert_not_blank, browser_or_skip, screenshot};
use common::Sandbox;
use std::path::PathBuf;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 3000;

#[test]
fn report_renders_in_headless_chromium() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let sb = Sandbox::new();
    let html = write_report(&sb);
    let page = std::fs::read_to_string(&html).unwrap();
    assert_no_external_references(&page);
    assert!(page.contains("srcdoc="), "a flame graph is embedded");
    let png = sb.dir.path().join("report.png");
    screenshot(&browser, &html, &png, sb.dir.path(), (WIDTH, HEIGHT));
    assert_not_blank(&png, (WIDTH, HEIGHT));
}

/// Two runs, a comparison report with every chart kind.
fn write_report(sb: &Sandbox) -> PathBuf {
    let mut a = runs::pingpong_sweep(1.0);
    a.push(runs::with_series());
    let mut b = runs::pingpong_sweep(1.2);
    b.push(runs::with_series());
    b[0] = runs::with_profile(
        b[0].clone(),
        &["iolab;[kernel];pipe_write 3", "iolab;main 1"],
    );
    runs::save(
        &sb.db(),
        &[
            runs::run("a", "2024-01-01T00:00:00Z", "before", a),
            runs::run("b", "2024-01-02T00:00:00Z", "<script>alert(1)</script>", b),
        ],
    );
    let html = sb.dir.path().join("report.html");
    let db = sb.db();
    sb.iolab(&[
        "report",
        "--db",
        db.to_str().unwrap(),
        "--compare",
        "latest~1",
        "latest",
        "--html",
        html.to_str().unwrap(),
    ])
    .assert()
    .success();
    html
}
