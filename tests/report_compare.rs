//! `iolab report` and `iolab compare` through the binary, on fabricated
//! stored runs: files written, labels escaped, regressions decided, JSON
//! shaped. No timing involved.

mod common;
#[path = "common/runs.rs"]
mod runs;

use common::{json, Sandbox};
use runs::{pingpong_sweep, run, save};

const OLD: &str = "2024-01-01T00:00:00Z";
const NEW: &str = "2024-01-02T00:00:00Z";

fn db(sb: &Sandbox) -> String {
    sb.db().to_str().unwrap().to_string()
}

fn stdout(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let out = cmd.assert().code(code).get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn compare_fails_on_a_clear_regression_only() {
    let sb = Sandbox::new();
    let slower = {
        let mut results = pingpong_sweep(1.0);
        results[1] = runs::pingpong(
            "pipe",
            4096,
            &[15_000.0, 15_100.0, 14_900.0, 15_050.0, 14_950.0],
        );
        results
    };
    save(
        &sb.db(),
        &[
            run("base", OLD, "base", pingpong_sweep(1.0)),
            run("same", NEW, "same", pingpong_sweep(1.0)),
            run("slow", "2024-01-03T00:00:00Z", "slow", slower),
        ],
    );
    let db = db(&sb);
    let text = stdout(
        &mut sb.iolab(&[
            "compare",
            "base",
            "same",
            "--db",
            &db,
            "--fail-on-regression",
            "10",
        ]),
        0,
    );
    assert!(text.contains("bootstrap"), "names the test: {text}");
    assert_eq!(text.matches("same (n.s.)").count(), 6, "{text}");
    assert!(text.contains("no case got significantly worse by more than 10%"));

    let text = stdout(&mut against_latest(&sb, "10"), 1);
    assert!(text.contains("pipe/cross-cpu/processes/4 KiB"), "{text}");
    assert!(text.contains("worse by 50% *"), "{text}");
    assert!(text.contains("REGRESSION: 1 case significantly"), "{text}");
    // A regression smaller than the threshold passes.
    against_latest(&sb, "60").assert().code(0);
}

/// Every case of `pingpong_sweep(scale)` with repetitions spread +-6%:
/// a tight core and one outlier each way.
fn noisy_sweep(scale: f64) -> Vec<iolab::model::CaseResult> {
    pingpong_sweep(scale)
        .into_iter()
        .map(|r| {
            let size = r.params["size"].as_u64().unwrap();
            let mech = r.params["mech"].as_str().unwrap().to_string();
            let v = r.metrics["rtt_ns"].value;
            let reps = [0.94, 0.99, 0.995, 1.0, 1.005, 1.01, 1.06].map(|f| v * f);
            runs::pingpong(&mech, size, &reps)
        })
        .collect()
}

#[test]
fn compare_calls_a_shift_inside_the_noise_no_change_and_2x_a_regression() {
    let sb = Sandbox::new();
    save(
        &sb.db(),
        &[
            run("base", OLD, "base", noisy_sweep(1.0)),
            run("drift", NEW, "drift", noisy_sweep(1.03)),
            run("slow", "2024-01-03T00:00:00Z", "slow", pingpong_sweep(2.0)),
        ],
    );
    let db = db(&sb);
    let fail_1 = |b: &str| {
        sb.iolab(&[
            "compare",
            "base",
            b,
            "--db",
            &db,
            "--fail-on-regression",
            "1",
        ])
    };
    let text = stdout(&mut fail_1("drift"), 0);
    assert_eq!(text.matches("same (n.s.)").count(), 6, "{text}");
    assert!(text.contains("no case got significantly worse by more than 1%"));
    assert!(text.contains("minimum effect"), "names the rule: {text}");

    let text = stdout(&mut fail_1("slow"), 1);
    assert_eq!(text.matches("worse by 100% *").count(), 6, "{text}");
    assert!(text.contains("REGRESSION: 6 cases significantly"), "{text}");

    let out = stdout(
        &mut sb.iolab(&[
            "compare",
            "base",
            "drift",
            "--db",
            &db,
            "--min-effect",
            "0",
            "--json",
            "-",
        ]),
        0,
    );
    let c = json(out.as_bytes());
    assert_eq!(c["min_effect_pct"], 0.0);
    for case in c["cases"].as_array().unwrap() {
        // The interval alone would call it a change; the spread does not.
        assert!(case["ci_low"].as_f64().unwrap() > 1.0, "{case}");
        assert_eq!(case["ranges_overlap"], true, "{case}");
        assert_eq!(case["change"], "not-significant", "{case}");
    }
}

#[test]
fn compare_warns_when_a_run_is_compared_with_itself() {
    let sb = Sandbox::new();
    save(
        &sb.db(),
        &[
            run("a", OLD, "a", pingpong_sweep(1.0)),
            run("b", NEW, "b", pingpong_sweep(1.0)),
        ],
    );
    let db = db(&sb);
    let stderr = |a: &str, b: &str| {
        let out = sb.iolab(&["compare", a, b, "--db", &db]).assert().code(0);
        String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    let warning = "warning: A and B are the same run a: it is compared with itself\n";
    assert_eq!(stderr("a", "a"), warning);
    assert_eq!(
        stderr("a", "latest~1"),
        warning,
        "selectors resolve to one run"
    );
    assert_eq!(stderr("latest", "b"), warning.replace("run a", "run b"));
    assert_eq!(stderr("a", "b"), "");
}

/// `iolab compare base latest --fail-on-regression PCT`.
fn against_latest(sb: &Sandbox, pct: &str) -> assert_cmd::Command {
    let db = db(sb);
    sb.iolab(&[
        "compare",
        "base",
        "latest",
        "--db",
        &db,
        "--fail-on-regression",
        pct,
    ])
}

#[test]
fn compare_json_lists_matches_and_the_unmatched() {
    let sb = Sandbox::new();
    let mut fewer = pingpong_sweep(1.0);
    fewer.pop();
    save(
        &sb.db(),
        &[
            run("a", OLD, "a", pingpong_sweep(1.0)),
            run("b", NEW, "b", fewer),
        ],
    );
    let out = stdout(
        &mut sb.iolab(&[
            "compare",
            "latest~1",
            "latest",
            "--db",
            &db(&sb),
            "--json",
            "-",
        ]),
        0,
    );
    let c = json(out.as_bytes());
    assert_eq!(c["a"]["run_id"], "a");
    assert_eq!(c["cases"].as_array().unwrap().len(), 5);
    assert_eq!(
        c["only_in_a"][0]["case"],
        "unix-stream/cross-cpu/processes/65536B"
    );
    let first = &c["cases"][0];
    for key in [
        "ratio",
        "ci_low",
        "ci_high",
        "significant",
        "direction",
        "change",
    ] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    assert_eq!(first["direction"], "lower-is-better");
}

#[test]
fn bad_compare_input_is_a_usage_error() {
    let sb = Sandbox::new();
    save(&sb.db(), &[run("a", OLD, "a", pingpong_sweep(1.0))]);
    let db = db(&sb);
    let err = sb
        .iolab(&["compare", "a", "latest~5", "--db", &db])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8(err).unwrap().contains("latest~5"));
    sb.iolab(&[
        "compare",
        "a",
        "a",
        "--db",
        &db,
        "--fail-on-regression",
        "-3",
    ])
    .assert()
    .code(2);
    let err = sb
        .iolab(&["compare", "a", "a", "--db", &db, "--min-effect=-3"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert_eq!(
        String::from_utf8(err).unwrap(),
        "error: bad --min-effect '-3': expected a percentage of 0 or more, e.g. 5\n"
    );
    sb.iolab(&["report", "--db", &db]).assert().code(2);
}

#[test]
fn report_writes_html_and_markdown_and_escapes_the_label() {
    let sb = Sandbox::new();
    let evil = "<script>alert(1)</script>";
    save(
        &sb.db(),
        &[
            run("a", OLD, "a", pingpong_sweep(1.0)),
            run("b", NEW, evil, pingpong_sweep(1.1)),
        ],
    );
    let html = sb.dir.path().join("r.html");
    let md = sb.dir.path().join("r.md");
    let db = db(&sb);
    sb.iolab(&[
        "report",
        "--db",
        &db,
        "--html",
        html.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ])
    .assert()
    .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains("<script"), "the label became markup");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
    assert_eq!(
        page.matches("<svg width=\"960\"").count(),
        3,
        "percentiles, bars, sweep"
    );
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("&lt;script&gt;") && !text.contains("<script"));

    let both = sb.dir.path().join("c.html");
    let page = stdout(
        &mut sb.iolab(&[
            "report",
            "--db",
            &db,
            "--compare",
            "a",
            "b",
            "--html",
            both.to_str().unwrap(),
        ]),
        0,
    );
    assert!(page.is_empty());
    let page = std::fs::read_to_string(&both).unwrap();
    assert!(
        page.contains("<h2 id=\"comparison\">Comparison</h2>") && page.contains("hollow markers")
    );
}

/// A poll-scale `poll/tcp/idle=0` result at `active` connections and
/// `requests`, `seconds` per repetition.
fn poll_case(active: u64, requests: u64, seconds: f64) -> iolab::model::CaseResult {
    let params = [
        ("poller", serde_json::json!("poll")),
        ("transport", serde_json::json!("tcp")),
        ("idle", serde_json::json!(0)),
        ("active", serde_json::json!(active)),
        ("requests", serde_json::json!(requests)),
        ("repeat", serde_json::json!(3)),
    ];
    let params = params.into_iter().map(|(k, v)| (k.to_string(), v));
    let mut r = iolab::model::CaseResult::new("poll-scale", "poll/tcp/idle=0", params.collect());
    let reps = vec![seconds * 0.99, seconds, seconds * 1.01];
    r.metrics
        .insert("seconds".into(), iolab::measure::metric::metric(reps, "s"));
    r.headline = Some("seconds".into());
    r
}

#[test]
fn cases_named_alike_are_told_apart_in_show_report_and_compare() {
    let sb = Sandbox::new();
    let cases = || vec![poll_case(10, 2000, 0.5), poll_case(100, 2000, 0.7)];
    save(
        &sb.db(),
        &[run("a", OLD, "a", cases()), run("b", NEW, "b", cases())],
    );
    let db = db(&sb);
    let shown = stdout(&mut sb.iolab(&["show", "latest", "--db", &db]), 0);
    for name in ["poll/tcp/idle=0/active=10 ", "poll/tcp/idle=0/active=100 "] {
        assert_eq!(shown.matches(name).count(), 1, "{name} in {shown}");
    }
    let md = sb.dir.path().join("r.md");
    let args = ["report", "--db", &db, "--markdown", md.to_str().unwrap()];
    sb.iolab(&args).assert().success();
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("poll/tcp/idle=0/active=100"), "{text}");

    let compared = stdout(&mut sb.iolab(&["compare", "a", "b", "--db", &db]), 0);
    assert_eq!(compared.matches("same (n.s.)").count(), 2, "{compared}");
    assert!(
        compared.contains("poll/tcp/idle=0/active=100 "),
        "{compared}"
    );
    assert!(!compared.contains("unmatched"), "{compared}");
}
