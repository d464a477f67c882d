//! `iolab report --fleet --html FILE`: every host and kernel of a store on
//! one page, from the newest run of each. On SQLite (no server needed) and,
//! with the `fleet` feature, on a real PostgreSQL that two hosts pushed to
//! (`tests/common/postgres.rs` starts it), rendered in headless Chromium:
//! both hosts shown, the claim whose verdict differs marked on its row and
//! on the cells that differ, the small multiples within eight series each,
//! nothing loaded from elsewhere. Bad input is refused with exit 2.

#[path = "common/browser.rs"]
mod browser;
mod common;
#[cfg(feature = "fleet")]
#[path = "common/postgres.rs"]
mod postgres_server;
#[path = "common/runs.rs"]
mod runs;
#[path = "common/svg.rs"]
mod svg;

use browser::assert_no_external_references;
use common::Sandbox;
use iolab::model::{ClaimVerdict, Run};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A claim's verdict as a run stores it.
fn claim(id: &str, verdict: &str) -> ClaimVerdict {
    serde_json::from_value(json!({
        "id": id,
        "source": &id[..2],
        "claim": format!("the claim {id}"),
        "verdict": verdict,
        "figure": format!("{id} figure, {verdict}"),
        "original": "the original's figure",
        "scenario": "pingpong",
    }))
    .unwrap()
}

/// A fabricated pingpong run made on `host` running `kernel`, with the
/// verdicts E1-pipe and E2-poll got there.
fn run_on(id: &str, at: &str, (host, kernel): (&str, &str), verdicts: [&str; 2]) -> Run {
    let scale = if host == "beta" { 1.4 } else { 1.0 };
    let mut run = runs::run(id, at, host, runs::pingpong_sweep(scale));
    run.environment.hostname = host.into();
    run.environment.kernel = kernel.into();
    run.claims = vec![claim("E2-poll", verdicts[1]), claim("E1-pipe", verdicts[0])];
    run
}

/// `iolab report --fleet --html FILE --db DB`, which must succeed; the page.
fn fleet_page(sb: &Sandbox, db: &str, name: &str) -> (PathBuf, String) {
    let html = sb.dir.path().join(name);
    let path = html.to_str().unwrap();
    sb.iolab(&["report", "--fleet", "--html", path, "--db", db])
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    (html, page)
}

/// The `<tr>` of claim `id` in the grid: its opening tag's classes and
/// the classes of its cells, in column order.
fn claim_row(page: &str, id: &str) -> (String, Vec<String>) {
    let row = page
        .split(&format!("<tr id=\"fleet-claim-{id}\""))
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .unwrap_or_else(|| panic!("no row for {id}"));
    let cells = row
        .split("<td ")
        .skip(1)
        .map(|td| svg::attr(&format!(" {td}"), "class").to_string())
        .collect();
    (svg::attr(row, "class").to_string(), cells)
}

/// The grid's column headers, in order.
fn column_headers(page: &str) -> Vec<String> {
    let head = page.split("<table class=\"fleet-grid\">").nth(1).unwrap();
    let head = &head[..head.find("</thead>").unwrap()];
    head.split("<th class=\"host")
        .skip(1)
        .map(String::from)
        .collect()
}

/// What every fleet page keeps: self-contained, its charts within the
/// report's rules (at most 8 series a frame, a unit on every axis, a title
/// on every dot, one colour per mechanism), no bar at all.
fn check_structure(page: &str) {
    assert_no_external_references(page);
    let (frames, colours) = svg::check(page);
    assert!(!frames.is_empty(), "small multiples drawn");
    assert!(frames.iter().all(|f| *f == 1));
    assert_eq!(colours, 2, "pipe and unix-stream, one colour each");
    assert!(!page.contains("class=\"bar\""), "dots only, never a bar");
}

#[test]
fn a_sqlite_store_of_two_hosts_gets_a_fleet_page() {
    let sb = Sandbox::new();
    runs::save(
        &sb.db(),
        &[
            // alpha's older run on 6.1, whose verdict differed, is not shown.
            run_on(
                "a61-old",
                "2024-01-01T00:00:00Z",
                ("alpha", "6.1.0"),
                ["does not hold", "holds"],
            ),
            run_on(
                "a61",
                "2024-02-01T00:00:00Z",
                ("alpha", "6.1.0"),
                ["holds", "holds"],
            ),
            run_on(
                "a68",
                "2024-01-15T00:00:00Z",
                ("alpha", "6.8.0"),
                ["holds", "holds"],
            ),
            run_on(
                "b68",
                "2024-01-20T00:00:00Z",
                ("beta", "6.8.0"),
                ["does not hold", "holds"],
            ),
        ],
    );
    let (_, page) = fleet_page(&sb, sb.db().to_str().unwrap(), "fleet.html");
    check_structure(&page);
    let headers = column_headers(&page);
    assert_eq!(headers.len(), 3, "one column per host and kernel");
    for (header, (host, kernel)) in
        headers
            .iter()
            .zip([("alpha", "6.1.0"), ("alpha", "6.8.0"), ("beta", "6.8.0")])
    {
        assert!(header.contains(host) && header.contains(kernel), "{header}");
    }
    assert!(
        headers[2].starts_with(" disagrees\""),
        "beta is marked: {}",
        headers[2]
    );
    assert!(!headers[0].starts_with(" disagrees"));
    assert!(page.contains("a61") && page.contains("b68") && !page.contains("a61-old"));
    // beta alone says E1-pipe does not hold: its cell is marked, the row too.
    let (class, cells) = claim_row(&page, "E1-pipe");
    assert_eq!(class, "claim-row disagrees opposite");
    assert_eq!(
        cells,
        [
            "cell mark-holds",
            "cell mark-holds",
            "cell mark-does-not-hold disagrees"
        ]
    );
    let (class, cells) = claim_row(&page, "E2-poll");
    assert_eq!(class, "claim-row");
    assert!(cells.iter().all(|c| c == "cell mark-holds"), "{cells:?}");
    // E1 before E2, whatever order the runs stored them in.
    assert!(page.find("fleet-claim-E1-pipe").unwrap() < page.find("fleet-claim-E2-poll").unwrap());
    // Six pingpong cases, each a small chart with a dot per host and kernel.
    assert_eq!(svg::charts(&page).len(), 6);
    for chart in svg::charts(&page) {
        assert_eq!(chart.matches("<g class=\"series\"").count(), 3);
        for host in ["alpha (6.1.0)", "alpha (6.8.0)", "beta (6.8.0)"] {
            assert!(chart.contains(host), "{host} has a row");
        }
    }
}

#[test]
fn bad_fleet_input_is_refused() {
    let sb = Sandbox::new();
    let html = sb.dir.path().join("f.html");
    let path = html.to_str().unwrap();
    let db = sb.db();
    let db = db.to_str().unwrap();
    // clap's errors: the first line names what is wrong, usage follows.
    for (args, says) in [
        (&["report", "--fleet", "--db", db][..], "--html <FILE>"),
        (
            &["report", "--fleet", "--markdown", path, "--db", db],
            "'--fleet' cannot be used with '--markdown",
        ),
        (
            &["report", "--fleet", "latest", "--html", path, "--db", db],
            "'--fleet' cannot be used with '[RUN]'",
        ),
        (
            &[
                "report",
                "--fleet",
                "--html",
                path,
                "--compare",
                "a",
                "b",
                "--db",
                db,
            ],
            "'--fleet' cannot be used with '--compare",
        ),
        (
            &[
                "report", "--fleet", "--html", path, "--diff", "x", "y", "--db", db,
            ],
            "'--fleet' cannot be used with '--diff",
        ),
        (
            &[
                "report",
                "--fleet",
                "--html",
                path,
                "--openmetrics",
                "f.prom",
                "--db",
                db,
            ],
            "'--fleet' cannot be used with '--openmetrics",
        ),
    ] {
        let err = sb.usage_error(args);
        let first = err.lines().next().unwrap();
        assert!(
            first.starts_with("error: ") && err.contains(says),
            "{args:?}: {err}"
        );
    }
    // An empty store: one line.
    runs::save(&sb.db(), &[]);
    let err = sb.usage_error(&["report", "--fleet", "--html", path, "--db", db]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("the store is empty"), "{err}");
    assert!(!Path::new(path).exists(), "nothing written");
}

#[cfg(feature = "fleet")]
#[test]
fn two_hosts_pushed_to_postgres_disagree_on_one_claim_in_chromium() {
    use browser::{assert_not_blank, browser_or_skip, screenshot};
    use postgres_server::{local, push, stdout, Server};
    let Some(pg) = Server::start() else { return };
    let url = pg.database("fleetview");
    let sb = Sandbox::new();
    // Each host measures into its own store and pushes its run.
    let alpha = run_on(
        "alpha-1",
        "2024-03-01T00:00:00Z",
        ("alpha", "6.1.0-18-amd64"),
        ["holds", "holds"],
    );
    let beta = run_on(
        "beta-1",
        "2024-03-02T00:00:00Z",
        ("beta", "6.8.0-40"),
        ["holds", "does not hold"],
    );
    for (name, run) in [("alpha.db", &alpha), ("beta.db", &beta)] {
        let db = local(&sb, name, std::slice::from_ref(run));
        let pushed = stdout(&mut push(&sb, &db, &["latest"], &url));
        assert!(pushed.contains("stored run"), "{pushed}");
    }
    let (html, page) = fleet_page(&sb, &url, "fleet.html");
    check_structure(&page);
    let headers = column_headers(&page);
    assert_eq!(headers.len(), 2);
    assert!(headers[0].contains("alpha") && headers[1].contains("beta"));
    let (class, cells) = claim_row(&page, "E2-poll");
    assert_eq!(class, "claim-row disagrees opposite");
    assert_eq!(
        cells,
        [
            "cell mark-holds disagrees",
            "cell mark-does-not-hold disagrees"
        ]
    );
    assert_eq!(claim_row(&page, "E1-pipe").0, "claim-row");
    // The same runs in one SQLite store make the same page.
    let both = local(&sb, "both.db", &[alpha, beta]);
    assert_eq!(
        fleet_page(&sb, both.to_str().unwrap(), "sqlite.html").1,
        page
    );

    let Some(chromium) = browser_or_skip() else {
        return;
    };
    let png = sb.dir.path().join("fleet.png");
    screenshot(&chromium, &html, &png, sb.dir.path(), (1400, 900));
    assert_not_blank(&png, (1400, 900));
    // The first screen shows both verdicts' colours and the mark.
    let seen = colours(&png);
    for (what, rgb) in [
        ("holds", [0x1a, 0x7f, 0x37]),
        ("does not hold", [0xaa, 0x33, 0x33]),
        ("the disagreement outline", [0xe6, 0x9f, 0x00]),
    ] {
        assert!(
            seen.contains(&rgb),
            "no {what} colour {rgb:?} on the first screen"
        );
    }
}

/// The distinct RGB colours of a screenshot.
#[cfg(feature = "fleet")]
fn colours(png: &Path) -> std::collections::HashSet<[u8; 3]> {
    browser::pixels(png).2.into_iter().collect()
}
