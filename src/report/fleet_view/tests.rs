use super::*;
use crate::model::ClaimStatus;
use crate::report::fixtures;

/// The fixture run as made on `host`, its one claim judged `verdict`.
fn on(host: &str, kernel: &str, verdict: ClaimStatus) -> Run {
    let mut run = fixtures::run();
    run.run_id = format!("run-{host}");
    run.environment.hostname = host.into();
    run.environment.kernel = kernel.into();
    run.claims[0].verdict = verdict;
    run
}

fn page(runs: &[Run]) -> String {
    render(&build(runs).unwrap()).unwrap()
}

#[test]
fn the_page_wears_the_reports_verdict_and_chart_styles() {
    let css = report_style();
    for rule in [
        ".mark-holds",
        ".mark-does-not-hold",
        ".mark-inconclusive",
        ".chart svg",
        "@media print",
    ] {
        assert!(css.contains(rule), "the report's stylesheet lost {rule}");
    }
    assert!(!css.contains("<style") && !css.contains("</style"));
}

#[test]
fn two_hosts_that_disagree_are_both_shown_and_marked() {
    let html = page(&[
        on("alpha", "6.1.0", ClaimStatus::Holds),
        on("beta", "6.8.0", ClaimStatus::DoesNotHold),
    ]);
    assert!(html.contains("alpha (6.1.0)") && html.contains("beta (6.8.0)"));
    assert!(
        html.contains("2 host&#x2f;kernel pairs: the verdicts on 1 of 1 claim differ between them"),
        "{html}"
    );
    let row = html
        .split("<tr id=\"fleet-claim-E9-fixture\"")
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .expect("the claim's row");
    assert!(
        row.starts_with(" class=\"claim-row disagrees opposite\""),
        "{row}"
    );
    assert_eq!(
        row.matches("class=\"cell mark-holds disagrees\"").count(),
        1,
        "{row}"
    );
    assert_eq!(
        row.matches("class=\"cell mark-does-not-hold disagrees\"")
            .count(),
        1
    );
    assert!(row.contains("&ne;"));
    // One small chart per case both measured, a dot per host.
    let charts = html.matches("<div class=\"chart\">").count();
    assert_eq!(charts, 2, "pingpong and stream");
    assert_eq!(html.matches("<g class=\"series\"").count(), 4);
}

#[test]
fn hosts_that_agree_are_not_marked() {
    let html = page(&[
        on("alpha", "6.1.0", ClaimStatus::Holds),
        on("beta", "6.8.0", ClaimStatus::Holds),
    ]);
    assert!(!html.contains(" disagrees\""), "nothing differs");
    assert!(!html.contains("class=\"claim-row disagrees"));
    assert!(html.contains("class=\"cell mark-holds\""));
}

#[test]
fn stored_names_are_escaped() {
    let html = page(&[
        on(
            "<script>alert(1)</script>",
            "6.1\u{1b}[2J",
            ClaimStatus::Holds,
        ),
        on("beta", "6.8.0", ClaimStatus::Inconclusive),
    ]);
    assert!(!html.contains("<script>"), "escaped");
    assert!(!html.contains('\u{1b}'));
    assert!(html.contains("&lt;script&gt;"));
}
