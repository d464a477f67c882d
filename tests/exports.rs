//! The run's figures for the tools that track them, from real runs:
//! OpenMetrics text that promtool accepts, every sample labelled with its
//! scenario, mechanism and placement, read end to end by a real
//! node_exporter (its textfile collector) scraped by a real Prometheus and
//! found through Prometheus's query API; Bencher Metric Format and
//! github-action-benchmark JSON as their tools document them, one entry
//! per headline with its interval; and `report` exporting a stored run as
//! `run` did. What is missing (promtool, node_exporter, prometheus) skips
//! its test, saying why (`require`).

mod common;

use common::net::{free_port, http_get};
use common::{find_program, pipe_pingpong, require, results, Sandbox};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A real run of pingpong and stream over a pipe on one CPU, quick, with
/// `more`; its JSON.
fn real_run(sb: &Sandbox, more: &[&str]) -> Value {
    let mut args = pipe_pingpong(&["stream", "--quick", "--json", "-"]);
    args.extend(more);
    sb.run_json(&args)
}

fn path_in(sb: &Sandbox, name: &str) -> PathBuf {
    sb.dir.path().join(name)
}

/// The samples of OpenMetrics text: (family, labels, value).
fn samples(text: &str) -> Vec<(String, String, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect(line);
            let (name, labels) = series.split_once('{').expect(line);
            let labels = labels.strip_suffix('}').expect(line);
            (
                name.to_string(),
                labels.to_string(),
                value.parse().expect(line),
            )
        })
        .collect()
}

#[test]
fn openmetrics_of_a_real_run_passes_promtool_with_every_sample_labelled() {
    let sb = Sandbox::new();
    let file = path_in(&sb, "iolab.prom");
    let run = real_run(&sb, &["--openmetrics", file.to_str().unwrap()]);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("# EOF\n"), "{text}");
    let left: Vec<_> = std::fs::read_dir(sb.dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with(".iolab-"))
        .collect();
    assert!(left.is_empty(), "temp files left: {left:?}");
    let samples = samples(&text);
    assert!(samples.len() > 10, "{text}");
    for (name, labels, _) in &samples {
        assert!(name.starts_with("iolab_"), "{name}");
        assert!(
            text.contains(&format!("# TYPE {name} gauge\n")),
            "{name} is no gauge"
        );
        for label in [
            "scenario",
            "mechanism",
            "placement",
            "size",
            "host",
            "kernel",
        ] {
            let at = labels
                .find(&format!("{label}=\""))
                .map(|at| at + label.len() + 2);
            let value = at.map(|at| &labels[at..]).filter(|v| !v.starts_with('"'));
            assert!(value.is_some(), "{name}{{{labels}}} lacks {label}");
        }
    }
    // pingpong's pipe round trip, in seconds, with its interval and grade.
    let ping = &results(&run)[0];
    assert_eq!(ping["scenario"], "pingpong");
    let case = format!("case=\"{}\"", ping["case"].as_str().unwrap());
    let rtt_ns = ping["metrics"]["rtt_ns"]["value"].as_f64().unwrap();
    let of = |family: &str| -> Vec<f64> {
        samples
            .iter()
            .filter(|(name, labels, _)| name == family && labels.contains(&case))
            .map(|(_, _, value)| *value)
            .collect()
    };
    let rtt = of("iolab_pingpong_rtt_seconds");
    assert_eq!(rtt.len(), 1, "{text}");
    assert!(
        (rtt[0] - rtt_ns / 1e9).abs() <= 1e-15,
        "{} vs {rtt_ns} ns",
        rtt[0]
    );
    let ci = &ping["precision"]["ci"];
    let interval = of("iolab_pingpong_rtt_interval_seconds");
    assert_eq!(interval.len(), 2, "{text}");
    assert!((interval[0] - ci[0].as_f64().unwrap() / 1e9).abs() <= 1e-15);
    let grades = ["clean", "noisy", "disturbed"];
    let grade = grades.iter().position(|g| ping["noise"]["grade"] == *g);
    assert_eq!(of("iolab_noise_grade"), [grade.unwrap() as f64]);
    assert!(text.contains("# UNIT iolab_stream_bytes_per_second bytes_per_second\n"));
    if !require(
        find_program(&["promtool"]).is_some(),
        "promtool, to check the OpenMetrics text (Debian: apt-get install prometheus)",
    ) {
        return;
    }
    let out = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "promtool: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An ok result's headline, as the benchmark formats carry it.
#[derive(Debug)]
struct Headline {
    /// `SCENARIO/CASE`.
    name: String,
    metric: String,
    unit: String,
    value: f64,
    /// The 95% interval of its median, when the run has it.
    ci: Option<[f64; 2]>,
}

/// The ok results' headlines of a run.
fn headlines(run: &Value) -> Vec<Headline> {
    results(run)
        .iter()
        .filter(|r| r["status"] == "ok")
        .map(|r| {
            let metric = r["headline"].as_str().unwrap().to_string();
            let m = &r["metrics"][&metric];
            let ci = r["precision"]["ci"]
                .as_array()
                .map(|ci| [ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap()]);
            let name = format!(
                "{}/{}",
                r["scenario"].as_str().unwrap(),
                r["case"].as_str().unwrap()
            );
            let unit = m["unit"].as_str().unwrap().to_string();
            let value = m["value"].as_f64().unwrap();
            Headline {
                name,
                metric,
                unit,
                value,
                ci,
            }
        })
        .collect()
}

fn read_json(path: &Path) -> Value {
    common::json(&std::fs::read(path).unwrap())
}

#[test]
fn bmf_and_github_action_benchmark_files_hold_one_entry_per_headline() {
    let sb = Sandbox::new();
    let [bmf, smaller, bigger] =
        ["bmf.json", "smaller.json", "bigger.json"].map(|n| path_in(&sb, n));
    let run = real_run(
        &sb,
        &[
            "--bmf",
            bmf.to_str().unwrap(),
            "--smaller-is-better",
            smaller.to_str().unwrap(),
            "--bigger-is-better",
            bigger.to_str().unwrap(),
        ],
    );
    let headlines = headlines(&run);
    assert!(headlines.len() >= 4, "{headlines:?}");
    assert!(
        headlines.iter().any(|h| h.ci.is_some()),
        "no interval at all"
    );
    // BMF: {benchmark: {measure: {value, lower_value?, upper_value?}}}.
    let bmf = read_json(&bmf);
    let benchmarks = bmf.as_object().expect("BMF is an object");
    assert_eq!(benchmarks.len(), headlines.len(), "{bmf:#}");
    for Headline {
        name,
        metric,
        value,
        ci,
        ..
    } in &headlines
    {
        let measures = benchmarks[name]
            .as_object()
            .expect("a benchmark is an object");
        assert_eq!(measures.len(), 1, "{name}: {measures:?}");
        let figures = measures[metric]
            .as_object()
            .expect("a measure is an object");
        assert_eq!(figures["value"].as_f64(), Some(*value), "{name}");
        for key in figures.keys() {
            assert!(
                ["value", "lower_value", "upper_value"].contains(&key.as_str()),
                "{key}"
            );
        }
        let bounds = ["lower_value", "upper_value"].map(|k| figures.get(k).and_then(Value::as_f64));
        match ci {
            Some([lo, hi]) => assert_eq!(bounds, [Some(*lo), Some(*hi)], "{name}"),
            None => assert_eq!(bounds, [None, None], "{name}"),
        }
    }
    // github-action-benchmark: [{name, unit, value, range?, extra?}], times
    // in one file, rates in the other.
    let mut entries = Vec::new();
    for (file, units) in [(&smaller, &["ns"][..]), (&bigger, &["bytes/s", "1/s"][..])] {
        let list = read_json(file);
        for e in list.as_array().expect("an array") {
            let obj = e.as_object().unwrap();
            for key in obj.keys() {
                let known = ["name", "unit", "value", "range", "extra"];
                assert!(known.contains(&key.as_str()), "{key}");
            }
            assert!(e["name"].is_string() && e["value"].is_number(), "{e}");
            assert!(units.contains(&e["unit"].as_str().unwrap()), "{e}");
            assert!(e["extra"].is_string(), "{e}");
            assert!(
                e.get("range")
                    .is_none_or(|r| r.as_str().unwrap().starts_with("± ")),
                "{e}"
            );
            entries.push(e.clone());
        }
    }
    assert_eq!(entries.len(), headlines.len(), "{entries:?}");
    for Headline {
        name,
        unit,
        value,
        ci,
        ..
    } in &headlines
    {
        let found: Vec<_> = entries.iter().filter(|e| e["name"] == **name).collect();
        assert_eq!(found.len(), 1, "{name}");
        assert_eq!(found[0]["unit"], **unit);
        assert_eq!(found[0]["value"].as_f64(), Some(*value));
        assert_eq!(found[0].get("range").is_some(), ci.is_some(), "{name}");
    }
}

/// A pingpong run has times alone: `--bigger-is-better` would be an empty
/// list, on which github-action-benchmark fails. The run is still measured,
/// written and stored; that file is refused in one line (exit 2), and
/// `report` refuses it likewise before writing anything.
#[test]
fn an_export_with_nothing_its_way_is_refused_in_one_line_and_not_written() {
    let sb = Sandbox::new();
    let [bigger, smaller] = ["bigger.json", "smaller.json"].map(|n| path_in(&sb, n));
    let out = sb
        .iolab(&pipe_pingpong(&[
            "--quick",
            "--json",
            "-",
            "--bigger-is-better",
            bigger.to_str().unwrap(),
            "--smaller-is-better",
            smaller.to_str().unwrap(),
        ]))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let line = err.lines().find(|l| l.starts_with("error:")).expect(&err);
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(
        line.contains(&format!("nothing to write to {}", bigger.display())),
        "{line}"
    );
    assert!(
        line.contains("pingpong rtt_ns") && line.contains("--smaller-is-better"),
        "{line}"
    );
    assert!(!bigger.exists());
    let run = common::json(&out.stdout);
    let written = read_json(&smaller).as_array().unwrap().len();
    assert_eq!(written, headlines(&run).len(), "the other file is written");
    let history = sb.stdout(&["history"]);
    assert!(
        history.contains(run["run_id"].as_str().unwrap()),
        "{history}"
    );
    let err = sb.usage_error(&["report", "latest", "--bigger-is-better", "-"]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("nothing to write to -"), "{err}");
}

#[test]
fn report_exports_a_stored_run_as_the_run_did() {
    let sb = Sandbox::new();
    let [a, b] = ["run.prom", "run.bmf"].map(|n| path_in(&sb, n));
    let run = sb.run_json(&[
        "run",
        "limits",
        "--param",
        "probe=clock",
        "--json",
        "-",
        "--openmetrics",
        a.to_str().unwrap(),
        "--bmf",
        b.to_str().unwrap(),
    ]);
    let id = run["run_id"].as_str().unwrap();
    let prom = sb.stdout(&["report", id, "--openmetrics", "-"]);
    assert_eq!(prom, std::fs::read_to_string(&a).unwrap());
    assert!(prom.contains("iolab_limits_clock_seconds{"), "{prom}");
    let bmf = sb.stdout(&["report", "latest", "--bmf", "-"]);
    assert_eq!(bmf, std::fs::read_to_string(&b).unwrap());
}

/// node_exporter and Prometheus, killed and their temp dir (textfile
/// directory, config, storage, logs) removed when dropped, also when the
/// test fails.
struct Servers {
    children: Vec<Child>,
    dir: tempfile::TempDir,
}

impl Servers {
    fn spawn(&mut self, program: &Path, args: &[String], log: &str) {
        let log = std::fs::File::create(self.dir.path().join(log)).unwrap();
        let child = Command::new(program)
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.children.push(child);
    }

    fn logs(&self) -> String {
        ["node_exporter.log", "prometheus.log"]
            .iter()
            .map(|log| {
                let text = std::fs::read_to_string(self.dir.path().join(log)).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(15).collect();
                format!(
                    "{log}:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `text` percent-encoded for a URL's query.
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn prometheus_finds_the_runs_pipe_rtt_through_node_exporter() {
    let exporter = find_program(&["prometheus-node-exporter", "node_exporter"]);
    let prometheus = find_program(&["prometheus"]);
    let (Some(exporter), Some(prometheus)) = (exporter, prometheus) else {
        require(
            false,
            "prometheus-node-exporter and prometheus, to scrape iolab's OpenMetrics \
             (Debian: apt-get install prometheus prometheus-node-exporter)",
        );
        return;
    };
    let dir = tempfile::Builder::new()
        .prefix("iolab-prom-")
        .tempdir()
        .unwrap();
    let textfiles = dir.path().join("textfile");
    std::fs::create_dir(&textfiles).unwrap();
    let mut servers = Servers {
        children: Vec::new(),
        dir,
    };
    // The run writes straight into the directory node_exporter reads.
    let sb = Sandbox::new();
    let file = textfiles.join("iolab.prom");
    let run = sb.run_json(&pipe_pingpong(&[
        "--quick",
        "--no-store",
        "--json",
        "-",
        "--openmetrics",
        file.to_str().unwrap(),
    ]));
    let ping = &results(&run)[0];
    let rtt_s = ping["metrics"]["rtt_ns"]["value"].as_f64().unwrap() / 1e9;
    let (exporter_port, prometheus_port) = (free_port(), free_port());
    servers.spawn(
        &exporter,
        &[
            format!("--web.listen-address=127.0.0.1:{exporter_port}"),
            "--collector.disable-defaults".into(),
            "--collector.textfile".into(),
            format!("--collector.textfile.directory={}", textfiles.display()),
        ],
        "node_exporter.log",
    );
    let config = servers.dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: iolab\n    static_configs:\n\
             \x20     - targets: ['127.0.0.1:{exporter_port}']\n"
        ),
    )
    .unwrap();
    let storage = servers.dir.path().join("data");
    servers.spawn(
        &prometheus,
        &[
            format!("--config.file={}", config.display()),
            format!("--storage.tsdb.path={}", storage.display()),
            format!("--web.listen-address=127.0.0.1:{prometheus_port}"),
        ],
        "prometheus.log",
    );
    let query = format!(
        "iolab_pingpong_rtt_seconds{{mechanism=\"pipe\",placement=\"same-cpu\",case=\"{}\"}}",
        ping["case"].as_str().unwrap()
    );
    let path = format!("/api/v1/query?query={}", encoded(&query));
    let deadline = Instant::now() + Duration::from_secs(90);
    let found = loop {
        let answer = http_get(prometheus_port, &path).map(|body| common::json(body.as_bytes()));
        let series = answer
            .as_ref()
            .and_then(|a| a["data"]["result"].as_array().cloned());
        if let Some(series) = series.filter(|s| !s.is_empty()) {
            break series;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus never had {query}: {answer:?}\n{}",
            servers.logs()
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(found.len(), 1, "{found:?}");
    let series = &found[0];
    assert_eq!(series["metric"]["job"], "iolab");
    assert_eq!(series["metric"]["scenario"], "pingpong");
    assert_eq!(series["metric"]["host"], run["environment"]["hostname"]);
    let value: f64 = series["value"][1].as_str().unwrap().parse().unwrap();
    assert!((value - rtt_s).abs() <= 1e-15, "{value} vs {rtt_s}");
}
