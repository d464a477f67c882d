//! The HTML page on fabricated runs: every chart kind the data supports,
//! escaping of everything that came from the user or the system, nothing
//! fetched from elsewhere, a comparison on shared charts, and the page's
//! structure: findings first, contents whose links resolve, tables
//! collapsed below the charts, a print stylesheet.

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
        "round-trip time: median of repetitions, whiskers min to max",
        "throughput at the receiver: median of repetitions, whiskers min to max",
        "throughput at the receiver by size",
        "bytes per s: median of repetitions, whiskers min to max",
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
    assert!(html.contains("<h2 id=\"comparison\">Comparison</h2>"));
    assert!(html.contains("<summary>Run A: ") && html.contains("<summary>Run B: "));
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
fn each_claim_is_one_line_its_evidence_folded_and_linked_to_its_scenario() {
    let html = render(&crate::report::fixtures::run(), None);
    let claim = between(
        &html,
        "<details class=\"claim\" id=\"claim-E9-fixture\">",
        "</details>",
    );
    let summary = between(claim, "<summary", "</summary>");
    assert!(summary.contains("<span class=\"verdict-holds\">holds</span> <b>E9-fixture</b>"));
    assert!(!summary.contains("<br>"), "one line: {summary}");
    assert!(!summary.contains(" reps)"), "the plain figure: {summary}");
    let evidence = between(claim, "<div class=\"evidence\">", "</div>");
    assert!(evidence.contains(crate::report::fixtures::CLAIM_FIGURE));
    assert!(evidence.contains("<a class=\"ev\" href=\"#scenario-pingpong\">pingpong</a>"));
    assert!(evidence.contains("<p class=\"original\">The original: "));
    assert!(html.contains("<h2 id=\"scenario-pingpong\">pingpong</h2>"));
    assert!(
        !html.contains("<details class=\"claim\" open"),
        "folded by default"
    );
    assert_eq!(html.matches("E9-fixture</b>").count(), 1, "the claim once");
}

#[test]
fn a_claim_shows_the_kernel_evidence_under_the_figure() {
    let mut run = crate::report::fixtures::run();
    let plain = render(&run, None);
    assert!(!plain.contains("class=\"kernel-evidence\">kernel"));
    run.claims[0].kernel_evidence =
        Some("kernel profile: touch_atime in 11.0% <of> samples".into());
    let html = render(&run, None);
    assert!(html.contains(
        "<p class=\"kernel-evidence\">kernel profile: touch_atime in 11.0% &lt;of&gt; samples</p>"
    ));
}

#[test]
fn a_claim_shows_the_margin_and_what_would_decide_it() {
    let mut run = crate::report::fixtures::run();
    let html = render(&run, None);
    assert!(html.contains(&format!(
        "{}<br><span class=\"margin\">margin 3.2; ±1.0% after 5 repetitions</span>",
        crate::report::fixtures::CLAIM_FIGURE
    )));
    let c = &mut run.claims[0];
    c.verdict = crate::model::ClaimStatus::Inconclusive;
    c.near_boundary = true;
    c.to_decide = Some("needs ±1.0% on both".into());
    let html = render(&run, None);
    assert!(html.contains("class=\"verdict-inconclusive\">inconclusive: near the boundary</span>"));
    assert!(html.contains("<span class=\"to-decide\">to decide: needs ±1.0% on both</span>"));
}

#[test]
fn a_claim_read_from_graded_results_carries_the_grade_mark() {
    use crate::model::{ClaimNoise, Grade};
    let mut run = crate::report::fixtures::run();
    assert!(!render(&run, None).contains("class=\"grade grade-disturbed\" title="));
    run.claims[0].noise = Some(ClaimNoise {
        grade: Grade::Disturbed,
        causes: vec![
            "host wake-ups 132% slower than its fastest".into(),
            "migrated".into(),
        ],
        graded: 1,
        read: 2,
    });
    let html = render(&run, None);
    let glance = between(&html, "<section id=\"glance\"", "</section>");
    let claim = between(&html, "<details class=\"claim\"", "</summary>");
    for place in [glance, claim] {
        assert!(
            place.contains(
                "<span class=\"grade grade-disturbed\" title=\"disturbed: the noise guard graded 1 \
                 of the 2 results read worse than clean (host wake-ups slower, migrated)\">!</span>"
            ),
            "{place}"
        );
    }
}

/// The text between the first `start` at or after `from` and the next `end`.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html.find(start).unwrap_or_else(|| panic!("no {start}"));
    let rest = &html[from..];
    &rest[..rest
        .find(end)
        .unwrap_or_else(|| panic!("no {end} after {start}"))]
}

fn findings(html: &str) -> &str {
    between(html, "<section id=\"findings\"", "</section>")
}

/// The values of `attr="..."` in `html`, in order.
fn attrs<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    html.split(&format!(" {attr}=\""))
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect()
}

/// The fixture run with one claim of each verdict and more unsupported
/// cases sharing a reason.
fn findings_run() -> Run {
    use crate::model::{CaseResult, ClaimStatus, Status};
    let mut run = chart_run();
    let claim = run.claims[0].clone();
    for (id, verdict) in [
        ("E8-no", ClaimStatus::DoesNotHold),
        ("E7-maybe", ClaimStatus::Inconclusive),
    ] {
        let mut c = claim.clone();
        c.id = id.into();
        c.verdict = verdict;
        run.claims.push(c);
    }
    for case in ["a", "b"] {
        let mut r = CaseResult::new("stream", case, Default::default());
        r.status = Status::Unsupported;
        r.reason = Some("io_uring disabled".into());
        run.results.push(r);
    }
    run
}

#[test]
fn findings_come_first_before_any_table() {
    for html in [
        render(&findings_run(), None),
        render(&findings_run(), Some(&chart_run())),
    ] {
        let start = html.find("<section id=\"findings\"").unwrap();
        let end = start + findings(&html).len();
        let first_table = html.find("<table").unwrap();
        assert!(end < first_table, "a table before the findings ends");
        assert!(start < html.find("<h2 id=\"environment\"").unwrap());
        let contents = html.find("<nav id=\"contents\"").unwrap();
        assert!(end < contents && contents < first_table);
    }
}

#[test]
fn findings_hold_every_verdict_claim_and_grouped_reason() {
    let run = findings_run();
    let html = render(&run, None);
    let found = findings(&html);
    for v in &run.verdicts {
        assert!(
            found.contains(&format!("<dd>{}</dd>", v.text)),
            "{}",
            v.text
        );
    }
    for (class, verdict, id) in [
        ("holds", "holds", "E9-fixture"),
        ("does-not-hold", "does not hold", "E8-no"),
        ("inconclusive", "inconclusive", "E7-maybe"),
    ] {
        let claim = between(
            found,
            &format!("<details class=\"claim\" id=\"claim-{id}\">"),
            "</summary>",
        );
        let line = format!("<span class=\"verdict-{class}\">{verdict}</span> <b>{id}</b>");
        assert!(claim.contains(&line), "{line}");
    }
    assert!(found.contains("<p class=\"warning\">3 cases unsupported</p>"));
    assert!(found.contains("io_uring disabled (2) <a class=\"ev\" href=\"#scenario-stream\">"));
    assert!(found.contains("<p class=\"warning\">1 case failed</p>"));
    assert!(found.contains(crate::report::fixtures::CLAIM_FIGURE));
}

#[test]
fn every_link_in_the_page_resolves_and_contents_cover_all() {
    let run = findings_run();
    for html in [render(&run, None), render(&run, Some(&chart_run()))] {
        let ids = attrs(&html, "id");
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "duplicate ids: {ids:?}");
        let hrefs = attrs(&html, "href");
        assert!(hrefs.len() > 20, "{hrefs:?}");
        for href in hrefs {
            let target = href.strip_prefix('#').expect("a link within the page");
            assert!(ids.contains(&target), "#{target} has no id");
        }
        let toc = between(&html, "<nav id=\"contents\"", "</nav>");
        let toc_links = attrs(toc, "href");
        for want in ["#findings", "#environment", "#claims", "#scenario-pingpong"] {
            assert!(toc_links.contains(&want), "{want} not in {toc_links:?}");
        }
        for c in &run.claims {
            assert!(toc_links.contains(&format!("#claim-{}", c.id).as_str()));
        }
        let sections = attrs(&html, "id")
            .into_iter()
            .filter(|id| id.starts_with("scenario-"))
            .count();
        let toc_sections = toc_links
            .iter()
            .filter(|l| l.starts_with("#scenario-"))
            .count();
        assert_eq!(sections, toc_sections);
    }
}

#[test]
fn scenario_tables_are_collapsed_below_the_charts() {
    let html = render(&chart_run(), Some(&chart_run()));
    let sections: Vec<&str> = html
        .split("<section class=\"scenario\">")
        .skip(1)
        .map(|s| s.split("</section>").next().unwrap())
        .collect();
    assert_eq!(sections.len(), 3, "pingpong, stream, contention");
    for s in sections {
        let details: Vec<&str> = s
            .split("<details class=\"tables\">")
            .skip(1)
            .map(|d| d.split("</details>").next().unwrap())
            .collect();
        assert_eq!(details.len(), 2, "a table per run, each collapsible");
        assert_eq!(s.matches("<table").count(), 2, "no table outside them");
        assert!(details.iter().all(|d| d.contains("<table")));
        let first_details = s.find("<details").unwrap();
        let last_chart = s.rfind("<div class=\"chart\">").unwrap();
        assert!(last_chart < first_details, "charts come first");
        assert!(!s[..first_details].contains(" open"), "closed by default");
    }
}

#[test]
fn print_stylesheet_opens_tables_and_leaves_out_frames() {
    let html = render(&chart_run(), None);
    let style = between(&html, "<style>", "</style>");
    let print: String = style
        .split("@media print {")
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n");
    for want in [
        "details:not([open])::details-content { content-visibility: visible;",
        ".flame iframe { display: none; }",
        "section.scenario { break-before: page; }",
        "body { color: #000;",
        ".print-only { display: block;",
    ] {
        assert!(print.contains(want), "print stylesheet lacks {want}");
    }
    assert!(style.contains(".print-only { display: none; }"));
}

#[test]
fn comparison_lists_regressions_first_by_effect_size() {
    use crate::report::fixtures::{run, OK_CASE, STREAM_CASE};
    let a = run();
    let mut b = run();
    let scale = |r: &mut crate::model::CaseResult, name: &str, f: f64| {
        let m = r.metrics.get_mut(name).unwrap();
        m.value *= f;
        m.min = m.min.map(|x| x * f);
        m.max = m.max.map(|x| x * f);
        m.reps.iter_mut().for_each(|x| *x *= f);
    };
    scale(&mut b.results[0], "rtt_ns", 1.5);
    scale(&mut b.results[3], "bytes_per_s", 0.25);
    let html = render(&b, Some(&a));
    let section = between(
        &html,
        "<h2 id=\"comparison\">",
        "<section class=\"scenario\">",
    );
    assert!(section.contains("2 cases significantly worse, 0 better, 0 within the noise"));
    let rows: Vec<&str> = section.split("<tr class=\"change-").skip(1).collect();
    let cases: Vec<(&str, bool)> = rows
        .iter()
        .map(|r| (r.split('"').next().unwrap(), r.contains("worse by")))
        .collect();
    assert_eq!(cases, [("worse", true), ("worse", true)]);
    let label = |case: &str| crate::format::case_label(case).replace('/', "&#x2f;");
    let stream = rows[0].contains(&label(STREAM_CASE));
    let pingpong = rows[1].contains(&label(OK_CASE));
    assert!(stream && pingpong, "4x before 1.5x: {rows:?}");
    assert!(html.contains("Against run A: 2 cases significantly worse"));
}

#[test]
fn the_noise_shows_one_line_per_cause_and_folds_the_cases_away() {
    use crate::model::Grade;
    use crate::model::Noise;
    let mut run = chart_run();
    let slow = |pct| format!("host wake-ups {pct}% slower than its fastest");
    let graded = [
        (
            Grade::Disturbed,
            vec![slow(130), "4 other runnable tasks".to_string()],
        ),
        (Grade::Disturbed, vec![slow(220)]),
        (Grade::Noisy, vec!["steal 7%".to_string()]),
    ];
    let ok = run
        .results
        .iter_mut()
        .filter(|r| r.status == crate::model::Status::Ok);
    for (r, (grade, causes)) in ok.zip(&graded) {
        let causes: Vec<&str> = causes.iter().map(String::as_str).collect();
        r.noise = Some(Noise::graded(*grade, &causes));
    }
    let html = render(&run, None);
    let shown = between(&html, "<h3>Noise</h3>", "<details class=\"noise-cases\">");
    let folded = between(&html, "<details class=\"noise-cases\">", "</details>");
    assert_eq!(
        shown.matches("<li>").count(),
        3,
        "one line per cause: {shown}"
    );
    assert!(shown.contains("2 of "), "{shown}");
    assert!(shown.contains("host wake-ups 130-220% slower than its fastest"));
    assert_eq!(shown.matches("wake-ups").count(), 1, "{shown}");
    assert_eq!(folded.matches("<li>").count(), 3, "every graded result");
    assert!(!html.contains("<details class=\"noise-cases\" open"));
}

#[test]
fn the_claims_at_a_glance_open_the_page_one_mark_per_claim_each_linking_to_it() {
    let mut run = findings_run();
    run.claims[1].weighed = None;
    let html = render(&run, None);
    let glance = between(&html, "<section id=\"glance\"", "</section>");
    assert!(html.find("<section id=\"glance\"") < html.find("<section id=\"findings\""));
    let anchors: Vec<&str> = glance
        .split("href=\"#")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect();
    let mut want: Vec<String> = run
        .claims
        .iter()
        .map(|c| format!("claim-{}", c.id))
        .collect();
    let mut got: Vec<String> = anchors.iter().map(|a| a.to_string()).collect();
    want.sort();
    got.sort();
    assert_eq!(got, want, "one mark per claim");
    for a in anchors {
        assert!(
            html.contains(&format!("id=\"{a}\"")),
            "{a} links to nothing"
        );
    }
    assert_eq!(glance.matches("class=\"glance-row\"").count(), 2);
    assert_eq!(glance.matches("class=\"glance-mark ").count(), 1);
    assert_eq!(
        glance.matches("<svg").count(),
        2,
        "a strip per weighed claim"
    );
}
