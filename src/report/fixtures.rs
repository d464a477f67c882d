//! A fabricated run shared by the report tests: one scenario group with an
//! ok result (metrics, latency, sides, limit ratio), a failed one and an
//! unsupported one, a second group, and verdicts. No timing involved.

use crate::model::*;
use serde_json::json;
use std::collections::BTreeMap;

pub(crate) const OK_CASE: &str = "unix-stream/cross-cpu/processes/65536B";
pub(crate) const FAILED_CASE: &str = "pipe/cross-cpu/processes/1B";
pub(crate) const UNSUPPORTED_CASE: &str = "shm-futex/same-cpu/threads/1B";
pub(crate) const STREAM_CASE: &str = "pipe/cross-cpu/threads/65536B";
pub(crate) const FAILED_REASON: &str = "sequence gap: expected message 4097, got 4099";
pub(crate) const UNSUPPORTED_REASON: &str = "futex wake-up needs CONFIG_FUTEX";
pub(crate) const CLAIM_FIGURE: &str = "pipe 4.82 us (4.70-4.90, 5 reps) (the claim: 1-10)";
pub(crate) const VERDICT: &str = "unix-stream is 1.08x slower than pipe (5.21 us vs 4.82 us)";

pub(crate) fn run() -> Run {
    Run {
        iolab_version: IOLAB_VERSION.to_string(),
        run_id: "r-20240101-0001".into(),
        started_at: "2024-01-01T00:00:00Z".into(),
        finished_at: Some("2024-01-01T00:01:00Z".into()),
        label: Some("fixture".into()),
        suite: Some("quick".into()),
        environment: environment(),
        results: vec![
            ok_result(),
            failed_result(),
            unsupported_result(),
            stream_result(),
        ],
        verdicts: vec![
            Verdict {
                scenario: "pingpong".into(),
                text: VERDICT.into(),
                ..Verdict::default()
            },
            Verdict {
                scenario: "stream".into(),
                text: "only one case".into(),
                ..Verdict::default()
            },
        ],
        claims: vec![ClaimVerdict {
            id: "E9-fixture".into(),
            source: "E9".into(),
            claim: "pipes are fast".into(),
            verdict: ClaimStatus::Holds,
            figure: CLAIM_FIGURE.into(),
            original: "about 5 us".into(),
            scenario: "pingpong".into(),
            kernel_evidence: None,
            margin: Some(3.2),
            near_boundary: false,
            precision: Some("±1.0% after 5 repetitions".into()),
            to_decide: None,
            form: String::new(),
            weighed: Some(crate::model::Weighed {
                value: 1.3,
                lo: 1.25,
                hi: 1.35,
                edges: vec![1.1],
                verdicts: vec![ClaimStatus::DoesNotHold, ClaimStatus::Holds],
            }),
            noise: None,
            parts: Vec::new(),
            host: None,
            not_judged: None,
        }],
    }
}

fn environment() -> Environment {
    Environment {
        kernel: "Linux 6.8.0".into(),
        cpu_model: "Fixture CPU".into(),
        cpus: 2,
        cpus_online: "0-1".into(),
        ..Environment::default()
    }
}

fn params(mech: &str, placement: &str, size: u64) -> BTreeMap<String, serde_json::Value> {
    [
        ("mech", json!(mech)),
        ("placement", json!(placement)),
        ("size", json!(size)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

fn metric(value: f64, unit: &str, range: Option<(f64, f64)>) -> Metric {
    Metric {
        value,
        unit: unit.into(),
        min: range.map(|r| r.0),
        max: range.map(|r| r.1),
        reps: range.map(|r| vec![r.0, value, r.1]).unwrap_or_default(),
    }
}

fn side(role: &str, cpus: Vec<usize>, user_s: f64, sys_s: f64) -> Side {
    let cpu = CpuUsage {
        user_s,
        sys_s,
        voluntary_csw: 10,
        involuntary_csw: 1,
    };
    Side {
        role: role.into(),
        cpus,
        cpu,
    }
}

pub(crate) fn ok_result() -> CaseResult {
    let mut r = CaseResult::new(
        "pingpong",
        OK_CASE,
        params("unix-stream", "cross-cpu", 65536),
    );
    r.verified = Some(Verified {
        ok: true,
        messages: 100_000,
        bytes: 6_553_600_000,
    });
    r.metrics.insert(
        "rtt_ns".into(),
        metric(5210.0, "ns", Some((5054.0, 5366.0))),
    );
    r.metrics
        .insert("msgs_per_s".into(), metric(191_900.0, "1/s", None));
    r.metrics.insert("csw_per_op".into(), metric(2.0, "", None));
    r.headline = Some("rtt_ns".into());
    r.latency = Some(LatencySummary {
        kind: LatencyKind::RoundTrip,
        unit: "ns".into(),
        count: 100_000,
        mean: 5300.5,
        p50: 5120,
        p90: 6000,
        p99: 12_345,
        p99_9: 40_960,
        max: 1_250_000,
    });
    r.cpu = Some(CpuUsage {
        user_s: 0.12,
        sys_s: 0.40,
        voluntary_csw: 200_010,
        involuntary_csw: 7,
    });
    r.sides = vec![
        side("client", vec![0], 0.06, 0.2),
        side("server", vec![0, 1], 0.06, 0.2),
    ];
    r.limit_ratio = Some(LimitRatio {
        limit: "wake_rtt_ns".into(),
        ratio: 3.24,
    });
    r
}

pub(crate) fn failed_result() -> CaseResult {
    let mut r = CaseResult::new("pingpong", FAILED_CASE, params("pipe", "cross-cpu", 1));
    r.status = Status::Failed;
    r.reason = Some(FAILED_REASON.into());
    r.verified = Some(Verified {
        ok: false,
        messages: 4098,
        bytes: 4098,
    });
    // A failed case may still carry numbers; reports must not show them.
    r.metrics
        .insert("rtt_ns".into(), metric(777.0, "ns", Some((700.0, 800.0))));
    r.headline = Some("rtt_ns".into());
    r.cpu = Some(CpuUsage {
        user_s: 0.01,
        sys_s: 0.02,
        voluntary_csw: 3,
        involuntary_csw: 0,
    });
    r
}

pub(crate) fn unsupported_result() -> CaseResult {
    let mut r = CaseResult::new("pingpong", UNSUPPORTED_CASE, params("shm", "same-cpu", 1));
    r.status = Status::Unsupported;
    r.reason = Some(UNSUPPORTED_REASON.into());
    r
}

pub(crate) fn stream_result() -> CaseResult {
    let mut r = CaseResult::new("stream", STREAM_CASE, params("pipe", "cross-cpu", 65536));
    r.verified = Some(Verified {
        ok: true,
        messages: 16_384,
        bytes: 1_073_741_824,
    });
    r.metrics.insert(
        "bytes_per_s".into(),
        metric(2.345e9, "bytes/s", Some((2.2e9, 2.4e9))),
    );
    r.headline = Some("bytes_per_s".into());
    r.cpu = Some(CpuUsage {
        user_s: 0.05,
        sys_s: 0.81,
        voluntary_csw: 12,
        involuntary_csw: 3,
    });
    r.sides = vec![
        side("writer", vec![0], 0.02, 0.4),
        side("reader", vec![1], 0.03, 0.41),
    ];
    r
}

/// The fixture run with the numbers that are easy to print wrong: a
/// single repetition, a 4 MiB message, ratios far from 1 (122.49, 0.0063),
/// a time stored in microseconds (2640 us) and a count of one call.
pub(crate) fn numbers_run() -> Run {
    let mut run = run();
    let mut big = ok_result();
    big.case = "pipe/cross-cpu/processes/4194304B".into();
    big.params = params("pipe", "cross-cpu", 4_194_304);
    let one_rep = crate::measure::metric::metric(vec![2_640_000.0], "ns");
    big.metrics.insert("rtt_ns".into(), one_rep);
    big.limit_ratio.as_mut().unwrap().ratio = 122.49;
    run.results.insert(1, big);
    let mut bench = CaseResult::new("event-bench", "epoll/n=100", params("pipe", "unpinned", 1));
    bench.metrics.insert(
        "us_per_loop".into(),
        metric(2640.0, "us", Some((2600.0, 2700.0))),
    );
    bench.headline = Some("us_per_loop".into());
    bench.limit_ratio = Some(LimitRatio {
        limit: "syscall_ns".into(),
        ratio: 0.0063,
    });
    run.results.push(bench);
    let mut stalls = CaseResult::new("contention", "fifo/both", params("fifo", "unpinned", 1));
    stalls
        .metrics
        .insert("slow_calls".into(), metric(1.0, "calls", Some((1.0, 1.0))));
    stalls.headline = Some("slow_calls".into());
    run.results.push(stalls);
    run
}

/// A run whose data supports every chart kind: latency histograms, a size
/// sweep over two mechanisms, headlines with spreads, and a time series.
pub(crate) fn chart_run() -> Run {
    let mut run = run();
    run.results[0].histogram = Some(histogram(5000));
    let mut second = ok_result();
    second.case = "pipe/cross-cpu/processes/65536B".into();
    second.params = params("pipe", "cross-cpu", 65536);
    second.histogram = Some(histogram(3000));
    run.results.insert(1, second);
    run.results.retain(|r| r.scenario != "stream");
    for mech in ["pipe", "unix-stream"] {
        for (i, size) in [64u64, 4096, 65536].into_iter().enumerate() {
            run.results
                .push(sweep_point(mech, size, 1e7 * 10f64.powi(i as i32)));
        }
    }
    run.results.push(series_result());
    run
}

/// Latencies around `base` ns with a long tail.
fn histogram(base: u64) -> Vec<u8> {
    let mut l = crate::stats::histogram::Latencies::new();
    for i in 0..10_000u64 {
        l.record(base + (i % 100) * 10 + if i % 997 == 0 { 500_000 } else { 0 });
    }
    l.to_v2()
}

fn sweep_point(mech: &str, size: u64, rate: f64) -> CaseResult {
    let case = format!("{mech}/cross-cpu/threads/{size}B");
    let mut r = CaseResult::new("stream", &case, params(mech, "cross-cpu", size));
    r.metrics.insert(
        "bytes_per_s".into(),
        metric(rate, "bytes/s", Some((rate * 0.9, rate * 1.1))),
    );
    r.headline = Some("bytes_per_s".into());
    r
}

pub(crate) const SERIES_CASE: &str = "tcp/4-writers";

pub(crate) fn series_result() -> CaseResult {
    let mut r = CaseResult::new("contention", SERIES_CASE, params("tcp", "unpinned", 4));
    r.metrics
        .insert("bytes_per_s".into(), metric(1e9, "bytes/s", None));
    r.headline = Some("bytes_per_s".into());
    r.series = (0..2)
        .map(|w| Series {
            name: format!("writer {w}"),
            unit: "bytes/s".into(),
            points: (0..10)
                .map(|t| [t as f64 * 0.5, 1e9 + (w * 1000 + t) as f64 * 1e6])
                .collect(),
        })
        .collect();
    r
}

/// A pingpong case of `mech` measured in interleaved rounds (`iolab ab`),
/// its headline `values` one per round.
pub(crate) fn in_rounds(mech: &str, values: &[f64]) -> CaseResult {
    let params = [("mech".to_string(), serde_json::json!(mech))];
    let mut r = CaseResult::new("pingpong", &format!("{mech}/cross-cpu"), params.into());
    r.metrics.insert(
        "rtt_ns".into(),
        crate::measure::metric::metric(values.to_vec(), "ns"),
    );
    r.headline = Some("rtt_ns".into());
    r.rounds = Some(crate::model::Rounds {
        seed: 7,
        interleaved: true,
        values: values.to_vec(),
        positions: vec![0; values.len()],
        ..crate::model::Rounds::default()
    });
    r
}

/// `--precision`'s record for the fixture run's first result: rtt_ns
/// reached ±1.9% (interval 5100-5300 ns) after 10 repetitions.
pub(crate) fn rtt_precision() -> crate::model::Precision {
    crate::model::Precision {
        metric: "rtt_ns".into(),
        target_pct: 2.0,
        ci: [5100.0, 5300.0],
        half_width_pct: 1.9,
        reached: true,
        reps: 10,
        batches: 2,
        stopped_by: None,
    }
}
