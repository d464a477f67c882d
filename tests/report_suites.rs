//! The reports of real suite runs as a reader gets them: the quick suite
//! and the seeds suite (at its quick sizes) run for real, then their HTML
//! reports are checked for what a reader needs first (the findings before
//! any table, every claim with its verdict), for the charts' one language
//! (at most 8 series a frame, one colour per mechanism, units on every
//! axis, a title on every mark, no bar on a log axis), for size and
//! self-containment, and rendered by headless Chromium to a first screen
//! that is not blank. The seeds report is also read back from the DOM the
//! browser built: the claims at a glance with one mark per claim of
//! docs/claims.md linking to it, each claim's evidence folded, and the
//! charts' checks again on what the browser holds.

#[path = "common/browser.rs"]
mod browser;
mod common;
#[path = "common/svg.rs"]
mod svg;

use browser::{
    assert_no_external_references, assert_not_blank, browser_or_skip, dump_dom, screenshot,
};
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

/// Checks the page; returns the browser it was rendered in, None when the
/// test is skipped for want of one.
fn check_page(
    sb: &Sandbox,
    html: &std::path::Path,
    page: &str,
    claims: usize,
) -> Option<std::path::PathBuf> {
    check_findings_first(page, claims);
    let (frames, _) = svg::check(page);
    assert!(!frames.is_empty(), "a report without charts");
    assert_no_external_references(page);
    let bytes = std::fs::metadata(html).unwrap().len();
    assert!(bytes < MAX_BYTES, "{bytes} bytes");
    let browser = browser_or_skip()?;
    let png = sb.dir.path().join("first-screen.png");
    screenshot(&browser, html, &png, sb.dir.path(), SCREEN);
    assert_not_blank(&png, SCREEN);
    Some(browser)
}

#[test]
fn the_quick_suite_report_opens_with_what_it_found() {
    let sb = Sandbox::new();
    let (html, page) = suite_report(&sb, &[]);
    let _ = check_page(&sb, &html, &page, 15);
    nothing_assumed_and_every_case_its_own_id(&sb, &page);
    sb.assert_tmp_empty();
}

/// Every output of the stored run (the terminal's table and claims, the
/// Markdown and HTML reports, the JSON) says nothing it assumed: no
/// interval that was not computed from measurements. And no two results
/// share a case id.
fn nothing_assumed_and_every_case_its_own_id(sb: &Sandbox, page: &str) {
    let db = sb.db();
    let db = db.to_str().unwrap();
    let md = sb.dir.path().join("report.md");
    let said = |args: &[&str]| {
        let out = sb.iolab(args).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let table = said(&["show", "latest", "--db", db]);
    let claims = said(&["claims", "latest", "--db", db]);
    let json = said(&["show", "latest", "--db", db, "--json", "-"]);
    said(&[
        "report",
        "latest",
        "--db",
        db,
        "--markdown",
        md.to_str().unwrap(),
    ]);
    let markdown = std::fs::read_to_string(&md).unwrap();
    std::fs::remove_file(&md).unwrap();
    for (what, text) in [
        ("table", &table),
        ("claims", &claims),
        ("json", &json),
        ("markdown", &markdown),
        ("html", &page.to_string()),
    ] {
        assert!(!text.is_empty(), "{what} is empty");
        let at = text.to_lowercase().find("assumed");
        let context = at.and_then(|i| text.get(i.saturating_sub(120)..i + 20));
        assert_eq!(at, None, "{what} says 'assumed': {context:?}");
    }
    let run: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut ids: Vec<String> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r["scenario"], r["case"]))
        .collect();
    let all = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), all, "two results share a case id");
}

#[test]
fn the_seeds_suite_report_opens_with_what_it_found() {
    let sb = Sandbox::new();
    let (html, page) = suite_report(&sb, &["seeds", "--quick"]);
    if let Some(browser) = check_page(&sb, &html, &page, 15) {
        let dom = dump_dom(&browser, &html, sb.dir.path());
        every_claim_has_one_mark_linking_to_it(&dom);
        every_claim_is_one_line_its_evidence_folded(&dom);
        let (frames, _) = svg::check(&dom);
        assert!(
            frames.len() > 10,
            "{} charts in the browser's DOM",
            frames.len()
        );
    }
    sb.assert_tmp_empty();
}

/// The claims at a glance, in the DOM the browser built: one mark per
/// claim of docs/claims.md, each linking to an element that exists.
fn every_claim_has_one_mark_linking_to_it(dom: &str) {
    let glance = between(dom, "<section id=\"glance\"", "</section>");
    let mut marked: Vec<&str> = values(glance, "href")
        .into_iter()
        .map(|h| h.strip_prefix("#claim-").expect("a mark links to a claim"))
        .collect();
    marked.sort_unstable();
    let mut want = common::claims_md_ids();
    want.sort();
    assert_eq!(marked, want, "one mark per claim of docs/claims.md");
    let ids = values(dom, "id");
    for id in want {
        let target = format!("claim-{id}");
        assert!(ids.contains(&target.as_str()), "#{target} does not exist");
    }
}

/// Each claim a closed `<details>`: its line the summary, its evidence
/// inside; no second table of the same claims.
fn every_claim_is_one_line_its_evidence_folded(dom: &str) {
    let claims: Vec<&str> = dom.split("<details class=\"claim\"").skip(1).collect();
    assert_eq!(claims.len(), common::claims_md_ids().len());
    for c in claims {
        let tag = &c[..c.find('>').unwrap()];
        assert!(!tag.contains("open"), "a claim unfolded: {tag}");
        let folded = &c[c.find("</summary>").unwrap()..c.find("</details>").unwrap()];
        assert!(folded.contains("class=\"evidence\""), "{tag}");
    }
    assert!(!dom.contains("<h2 id=\"claims\""), "no second claims table");
}

/// The text between the first `start` and the next `end`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap_or_else(|| panic!("no {start}"));
    let rest = &text[from..];
    &rest[..rest
        .find(end)
        .unwrap_or_else(|| panic!("no {end} after {start}"))]
}

/// The values of ` attr="..."` in `text`, in order.
fn values<'a>(text: &'a str, attr: &str) -> Vec<&'a str> {
    text.split(&format!(" {attr}=\""))
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect()
}
