//! The reports of real suite runs as a reader gets them: the quick suite
//! and the seeds suite (at its quick sizes) run for real, then their HTML
//! reports are checked for what a reader needs first (the findings before
//! any table, every claim with its verdict), for the charts' one language
//! (at most 8 series a frame, one colour per mechanism, units on every
//! axis, a title on every mark), for size and self-containment, and
//! rendered by headless Chromium to a first screen that is not blank.

#[path = "common/browser.rs"]
mod browser;
mod common;
#[path = "common/svg.rs"]
mod svg;

use browser::{assert_no_external_references, picture_stats, screenshot, BROWSERS};
use common::Sandbox;

/// The first screen a reader sees.
const SCREEN: (u32, u32) = (1280, 900);
/// The ceiling for a full seeds report; a quick one is far below.
const MAX_BYTES: u64 = 5 << 20;

/// Runs `suite` into the sandbox's store and writes its report; returns
/// the page.
fn suite_report(sb: &Sandbox, suite: &[&str]) -> (std::path::PathBuf, String) {
    let db = sb.db();
    let mut run = vec!["run"];
    run.extend(suite);
    run.extend(["--db", db.to_str().unwrap(), "--quiet"]);
    sb.iolab(&run).assert().success();
    let html = sb.dir.path().join("report.html");
    sb.iolab(&[
        "report",
        "latest",
        "--db",
        db.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ])
    .assert()
    .success();
    let page = std::fs::read_to_string(&html).unwrap();
    (html, page)
}

/// What the top of the page must hold: the findings, before any table,
/// naming every claim with its verdict and linking to the evidence.
fn check_findings_first(page: &str, claims: usize) {
    let findings = page.find("id=\"findings\"").expect("a findings section");
    let first_table = page.find("<table").expect("tables");
    assert!(findings < first_table, "a table comes before the findings");
    let end = page[findings..]
        .find("</section>")
        .map_or(page.len(), |e| findings + e);
    let top = &page[findings..end];
    let verdicts = [
        "verdict-holds",
        "verdict-does-not-hold",
        "verdict-inconclusive",
    ];
    let given: usize = verdicts.iter().map(|v| top.matches(v).count()).sum();
    assert!(
        given >= claims,
        "{given} verdicts in the findings, {claims} claims"
    );
    assert!(top.contains("href=\"#scenario-"), "no link to the evidence");
}

fn check_page(sb: &Sandbox, html: &std::path::Path, page: &str, claims: usize) {
    check_findings_first(page, claims);
    let (frames, _) = svg::check(page);
    assert!(!frames.is_empty(), "a report without charts");
    assert_no_external_references(page);
    let bytes = std::fs::metadata(html).unwrap().len();
    assert!(bytes < MAX_BYTES, "{bytes} bytes");
    let Some(browser) = common::find_program(&BROWSERS) else {
        common::require(
            false,
            "needs a headless browser on PATH (apt-get install chromium)",
        );
        return;
    };
    let png = sb.dir.path().join("first-screen.png");
    screenshot(&browser, html, &png, sb.dir.path(), SCREEN);
    let (width, height, distinct, ink) = picture_stats(&png);
    assert_eq!((width, height), SCREEN);
    assert!(
        distinct >= 20,
        "only {distinct} colours: a blank first screen?"
    );
    assert!(
        ink > 0.02,
        "only {:.1}% of the first screen is not white",
        ink * 100.0
    );
}

#[test]
fn the_quick_suite_report_opens_with_what_it_found() {
    let sb = Sandbox::new();
    let (html, page) = suite_report(&sb, &[]);
    check_page(&sb, &html, &page, 15);
    sb.assert_tmp_empty();
}

#[test]
fn the_seeds_suite_report_opens_with_what_it_found() {
    let sb = Sandbox::new();
    let (html, page) = suite_report(&sb, &["seeds", "--quick"]);
    check_page(&sb, &html, &page, 15);
    sb.assert_tmp_empty();
}
