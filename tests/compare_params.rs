//! `iolab compare` of two measured runs whose only difference is a count
//! parameter: the case is listed as unmatched with the parameter named,
//! never compared, so `--fail-on-regression` passes. Two tiny poll-scale
//! runs; nothing here reads a timing.

mod common;
use common::{json, results, Sandbox};

/// `poll-scale` over poll at no idle connection, `requests` round trips.
fn poll_scale(sb: &Sandbox, requests: &str) {
    let requests = format!("requests={requests}");
    let ran = sb.run_json(&[
        "run",
        "poll-scale",
        "--param",
        "poller=poll",
        "--param",
        "idle=0",
        "--param",
        &requests,
        "--repeat",
        "2",
        "--json",
        "-",
    ]);
    assert_eq!(results(&ran).len(), 1);
}

fn compare(sb: &Sandbox, more: &[&str]) -> (i32, String) {
    let args = [&["compare", "latest~1", "latest"], more].concat();
    let out = sb.iolab(&args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    (out.status.code().unwrap(), text)
}

#[test]
fn runs_with_other_requests_are_unmatched_and_never_a_regression() {
    let sb = Sandbox::new();
    poll_scale(&sb, "100");
    poll_scale(&sb, "300");

    let (code, text) = compare(&sb, &["--fail-on-regression", "0"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("unmatched: poll-scale poll/tcp/idle=0: requests 100 vs 300"),
        "{text}"
    );
    assert!(
        !text.contains("== poll-scale =="),
        "no case compared: {text}"
    );
    assert!(text.contains("no case got significantly worse by more than 0%"));

    let (code, out) = compare(&sb, &["--fail-on-regression", "0", "--json", "-"]);
    assert_eq!(code, 0, "{out}");
    let c = json(out.as_bytes());
    assert_eq!(c["cases"].as_array().unwrap().len(), 0);
    assert_eq!(c["regressions"].as_array().unwrap().len(), 0);
    let mismatched = c["mismatched"].as_array().unwrap();
    assert_eq!(mismatched.len(), 1);
    assert_eq!(mismatched[0]["name"], "poll/tcp/idle=0");
    let differences = mismatched[0]["differences"].as_array().unwrap();
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert_eq!(differences[0]["param"], "requests");
    assert_eq!(differences[0]["a"], "100");
    assert_eq!(differences[0]["b"], "300");
}
