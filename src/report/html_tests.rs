//! The HTML page on fabricated runs: every chart kind the data supports,
//! escaping of everything that came from the user or the system, nothing
//! fetched from elsewhere, and a comparison on shared charts.

use crate::model::Run;
use crate::report::fixtures::{chart_run, SERIES_CASE};
use crate::report::{HtmlReporter, Reporter};

fn render(run: &Run, baseline: Option<&Run>) -> String {
    let mut out = Vec::new();
    HtmlReporter {
        baseline,
        diff: None,
    }
    .write(run, &mut out)
    .unwrap();
    String::from_utf8(out).unwrap()
}

/// The titles of the charts, in page order.
fn chart_titles(html: &str) -> Vec<String> {
    html.split("<div class=\"chart\">\n<h3>")
        .skip(1)
        .map(|s| s.split("</h3>").next().unwrap().to_string())
        .collect()
}

#[test]
fn every_chart_kind_the_data_supports() {
    let html = render(&chart_run(), None);
    let titles = chart_titles(&html);
    let want = [
        "round-trip latency by percentile",
        "rtt_ns: median of repetitions, whiskers min to max",
        "bytes_per_s: median of repetitions, whiskers min to max",
        "bytes_per_s by size",
        "bytes_per_s: median of repetitions, whiskers min to max",
        "writer 0 over time",
    ];
    // The series names differ (writer 0, writer 1): the title falls back.
    let want: Vec<String> = want
        .iter()
        .map(|t| t.replace("writer 0 over time", "series value over time"))
        .collect();
    assert_eq!(titles, want, "{titles:?}");
    assert_eq!(html.matches("<svg width=\"960\"").count(), want.len());
    // minijinja escapes `/` too.
    let series_line = format!("{SERIES_CASE} writer 1").replace('/', "&#x2f;");
    assert!(html.contains(&series_line), "{series_line}");
    assert!(html.contains("percentile") && html.contains("p99.9"));
    assert!(html.contains("size (bytes), log scale") && html.contains("64 KiB"));
}

#[test]
fn user_and_system_strings_are_escaped() {
    let mut run = chart_run();
    let evil = "<script>alert(1)</script>";
    run.label = Some(evil.into());
    run.environment.kernel = format!("Linux {evil}");
    run.results[0].case = format!("pipe/{evil}");
    run.results[2].reason = Some(evil.into());
    let html = render(&run, None);
    assert!(!html.contains("<script"), "raw markup leaked");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.matches("&lt;script&gt;").count() >= 5, "{html}");
}

#[test]
fn nothing_is_fetched_from_elsewhere() {
    let html = render(&chart_run(), Some(&chart_run()));
    // Links within the page (claims to their scenario) fetch nothing.
    let html = html.replace("href=\"#", "");
    for bad in ["src=", "href=", "url(", "@import", "<script", "<link"] {
        assert!(!html.contains(bad), "found {bad}");
    }
}

#[test]
fn comparison_shares_the_charts() {
    let a = chart_run();
    let mut b = chart_run();
    b.run_id = "r-b".into();
    let html = render(&b, Some(&a));
    assert!(html.contains("<h2>Comparison</h2>"));
    assert!(html.contains("<h3>run A</h3>") && html.contains("<h3>run B</h3>"));
    assert!(html.contains("run A (baseline, lighter, hollow markers)"));
    assert_eq!(
        chart_titles(&html).len(),
        chart_titles(&render(&b, None)).len()
    );
    assert!(html.contains("run B (full colour, filled markers)"));
}

#[test]
#[ignore = "writes the fixture page for eyes: cargo test write_fixture_page -- --ignored"]
fn write_fixture_page() {
    let path = std::env::temp_dir().join("iolab-fixture-report.html");
    std::fs::write(&path, render(&chart_run(), None)).unwrap();
    println!("{}", path.display());
}

#[test]
fn claims_section_links_each_claim_to_its_scenario() {
    let html = render(&crate::report::fixtures::run(), None);
    assert!(html.contains("<h2 id=\"claims\">Claims</h2>"));
    assert!(html.contains("<a href=\"#scenario-pingpong\">E9-fixture</a>"));
    assert!(html.contains("<h2 id=\"scenario-pingpong\">pingpong</h2>"));
    assert!(html.contains("class=\"verdict-holds\">holds</td>"));
    assert!(html.contains(crate::report::fixtures::CLAIM_FIGURE));
}

#[test]
fn claims_section_shows_the_kernel_evidence_under_the_figure() {
    let mut run = crate::report::fixtures::run();
    let plain = render(&run, None);
    assert!(!plain.contains("class=\"kernel-evidence\">"));
    run.claims[0].kernel_evidence =
        Some("kernel profile: touch_atime in 11.0% <of> samples".into());
    let html = render(&run, None);
    assert!(html.contains(&format!(
        "{}<br><span class=\"kernel-evidence\">kernel profile: touch_atime in 11.0% &lt;of&gt; samples</span></td>",
        crate::report::fixtures::CLAIM_FIGURE
    )));
}
