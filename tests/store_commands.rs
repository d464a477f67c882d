//! A run is stored, `history` lists it, and `show latest --json -`
//! reproduces its results.

mod common;
use common::{json, results, Sandbox};

#[test]
fn history_lists_the_run_and_show_reproduces_it() {
    let sb = Sandbox::new();
    let ran = sb.run_json(&[
        "run",
        "pingpong",
        "stream",
        "--mech",
        "pipe,unix-stream",
        "--param",
        "count=100",
        "--param",
        "bytes=64k",
        "--repeat",
        "2",
        "--label",
        "first run",
        "--json",
        "-",
    ]);
    assert!(sb.db().exists(), "the run was stored in the default place");

    let history = sb
        .iolab(&["history"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let history = String::from_utf8(history).unwrap();
    let run_id = ran["run_id"].as_str().unwrap();
    assert!(history.contains(run_id), "{history}");
    assert!(history.contains("first run"));
    assert!(history.contains("pingpong stream"));

    let shown = sb
        .iolab(&["show", "latest", "--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let shown = json(&shown);
    assert_eq!(shown["run_id"], ran["run_id"]);
    assert_eq!(results(&shown), results(&ran));
    assert_eq!(shown["environment"], ran["environment"]);
    // pingpong 2 mechanisms x 2 placements, stream 2 x 2 x 3 sizes
    assert_eq!(results(&ran).len(), 4 + 12);

    let table = sb
        .iolab(&["show", run_id])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).unwrap();
    assert!(table.contains("pipe/same-cpu/processes/1 B"), "{table}");
    assert!(table.contains("16 results"), "{table}");
    sb.assert_tmp_empty();
}

#[test]
fn json_and_csv_files_follow_the_contract() {
    let sb = Sandbox::new();
    let json_path = sb.dir.path().join("run.json");
    let csv_path = sb.dir.path().join("run.csv");
    sb.iolab(&[
        "run",
        "pingpong",
        "--mech",
        "pipe",
        "--placement",
        "same-cpu",
        "--param",
        "count=100",
        "--repeat",
        "1",
        "--json",
        json_path.to_str().unwrap(),
        "--csv",
        csv_path.to_str().unwrap(),
        "--no-store",
        "--quiet",
    ])
    .assert()
    .success()
    .stdout("");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    for key in [
        "iolab_version",
        "run_id",
        "started_at",
        "environment",
        "results",
    ] {
        assert!(run.get(key).is_some(), "missing {key}");
    }
    let r = &results(&run)[0];
    for key in [
        "scenario", "case", "params", "status", "reason", "verified", "metrics", "latency", "cpu",
    ] {
        assert!(r.get(key).is_some(), "result missing {key}");
    }
    for key in [
        "count", "mean", "p50", "p90", "p99", "p99_9", "max", "kind", "unit",
    ] {
        assert!(r["latency"].get(key).is_some(), "latency missing {key}");
    }
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
    assert!(csv.contains("pipe/same-cpu/processes/1B"));
}

/// A stored run in every format `run` writes: `show --csv` and
/// `--markdown` give what `run` gave, and `--hdr` each pingpong case's
/// histogram as an HdrHistogram interval log whose counts are the cases'.
#[test]
fn show_writes_a_stored_run_as_csv_markdown_and_an_hdr_log() {
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    let sb = Sandbox::new();
    let [csv, md] = ["run.csv", "run.md"].map(|n| sb.dir.path().join(n));
    let ran = sb.run_json(&common::pipe_pingpong(&[
        "--quick",
        "--json",
        "-",
        "--csv",
        csv.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]));
    let id = ran["run_id"].as_str().unwrap();
    assert_eq!(
        sb.stdout(&["show", id, "--csv", "-"]),
        std::fs::read_to_string(&csv).unwrap()
    );
    let markdown = sb.stdout(&["show", "latest", "--markdown", "-"]);
    assert_eq!(markdown, std::fs::read_to_string(&md).unwrap());
    assert!(markdown.contains("| "), "{markdown}");
    let log = sb.stdout(&["show", "latest", "--hdr", "-"]);
    let intervals: Vec<_> = IntervalLogIterator::new(log.as_bytes())
        .map(|e| e.unwrap())
        .filter_map(|e| match e {
            LogEntry::Interval(i) => Some(i),
            _ => None,
        })
        .collect();
    let cases = results(&ran);
    assert_eq!(intervals.len(), cases.len(), "{log}");
    for (interval, case) in intervals.iter().zip(cases) {
        let tag = format!("pingpong/{}", case["case"].as_str().unwrap());
        assert_eq!(interval.tag().unwrap().as_str(), tag.replace(' ', "_"));
        let max_ns = case["latency"]["max"].as_f64().unwrap();
        // The log's max is HdrHistogram's, within its 3 significant digits.
        assert!(
            (interval.max() - max_ns).abs() <= max_ns / 500.0,
            "{} vs {max_ns}",
            interval.max()
        );
    }
    let both = sb.usage_error(&["show", "latest", "--csv", "-", "--hdr", "-"]);
    assert!(
        both.contains("would both write to standard output"),
        "{both}"
    );
}
