//! Fabricated stored runs for the report and compare tests: `Run` values
//! built in code and saved with `Store::save`, so the binary reads them
//! back through `--db` exactly as it would a measured run.

#![allow(dead_code)]

use iolab::measure::metric::metric;
use iolab::model::{CaseResult, Environment, LatencyKind, Run, IOLAB_VERSION};
use iolab::stats::histogram::Latencies;
use iolab::store::Store;
use serde_json::json;
use std::path::Path;

/// A pingpong case with `rtt` per repetition and a latency histogram
/// around its median.
pub fn pingpong(mech: &str, size: u64, rtt: &[f64]) -> CaseResult {
    let case = format!("{mech}/cross-cpu/processes/{size}B");
    let params = [
        ("mech", json!(mech)),
        ("placement", json!("cross-cpu")),
        ("mode", json!("processes")),
        ("size", json!(size)),
    ];
    let params = params
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut r = CaseResult::new("pingpong", &case, params);
    let m = metric(rtt.to_vec(), "ns");
    let mut hist = Latencies::new();
    for i in 0..5000u64 {
        hist.record(m.value as u64 + (i % 50) * 20 + if i % 499 == 0 { 200_000 } else { 0 });
    }
    r.latency = Some(hist.summary(LatencyKind::RoundTrip));
    r.histogram = Some(hist.to_v2());
    r.metrics.insert("rtt_ns".into(), m);
    r.headline = Some("rtt_ns".into());
    r
}

/// Two mechanisms over three sizes, each at `scale` times a base latency.
pub fn pingpong_sweep(scale: f64) -> Vec<CaseResult> {
    let mut results = Vec::new();
    for (mech, base) in [("pipe", 5000.0), ("unix-stream", 9000.0)] {
        for (i, size) in [64u64, 4096, 65536].into_iter().enumerate() {
            let v = base * scale * (1.0 + i as f64);
            results.push(pingpong(
                mech,
                size,
                &[v * 0.99, v, v * 1.01, v * 1.005, v * 0.995],
            ));
        }
    }
    results
}

pub fn run(id: &str, started_at: &str, label: &str, results: Vec<CaseResult>) -> Run {
    Run {
        iolab_version: IOLAB_VERSION.to_string(),
        run_id: id.into(),
        started_at: started_at.into(),
        finished_at: None,
        label: Some(label.into()),
        suite: Some("quick".into()),
        environment: Environment {
            kernel: "Linux 6.8.0-test".into(),
            cpu_model: "Test CPU".into(),
            cpus: 2,
            ..Environment::default()
        },
        results,
        verdicts: Vec::new(),
        claims: Vec::new(),
    }
}

pub fn save(db: &Path, runs: &[Run]) {
    let mut store = Store::open(db).unwrap();
    for run in runs {
        store.save(run).unwrap();
    }
}

/// A result carrying two time series, as the contention scenario will.
pub fn with_series() -> CaseResult {
    use iolab::model::Series;
    let mut r = CaseResult::new("contention", "tcp/4-writers", Default::default());
    r.metrics
        .insert("bytes_per_s".into(), metric(vec![1e9, 1.1e9], "bytes/s"));
    r.headline = Some("bytes_per_s".into());
    r.series = (0..2)
        .map(|w| Series {
            name: format!("writer {w}"),
            unit: "bytes/s".into(),
            points: (0..20)
                .map(|t| [t as f64 * 0.25, 4e8 + f64::from(w * 7 + t % 5) * 3e7])
                .collect(),
        })
        .collect();
    r
}

/// `r` with a profile of `folded` stacks, as `run --profile` keeps them
/// (set through the JSON, the profile's fields being the crate's own).
/// `r` explained, with only its off-CPU folded stacks (ns).
#[allow(dead_code)]
pub fn with_offcpu(r: CaseResult, folded: &[&str]) -> CaseResult {
    let mut value = serde_json::to_value(&r).unwrap();
    value["explain"] = json!({
        "ops": 100,
        "op_ns": 50.0,
        "components": [],
        "missing": [],
        "unattributed": {"name": "unattributed", "unit": "ns", "value": 0.0},
        "offcpu_folded": folded,
    });
    serde_json::from_value(value).unwrap()
}

pub fn with_profile(r: CaseResult, folded: &[&str]) -> CaseResult {
    let mut value = serde_json::to_value(&r).unwrap();
    value["profile"] = json!({
        "method": "fabricated",
        "samples": 100,
        "top_kernel": [],
        "top_user": [],
        "folded": folded,
    });
    serde_json::from_value(value).unwrap()
}
