use super::merge;
use crate::measure::metric::metric;
use crate::model::{CaseResult, CpuUsage, Flag, LatencyKind, Side, Verified};
use crate::stats::histogram::Latencies;
use std::collections::BTreeMap;

fn cpu(user_s: f64, csw: u64) -> CpuUsage {
    CpuUsage {
        user_s,
        sys_s: user_s / 2.0,
        voluntary_csw: csw,
        involuntary_csw: 1,
    }
}

/// A batch: `reps` of the headline, a once-per-batch per-op figure, a
/// histogram of `latencies`, `messages` verified.
fn batch(
    reps: &[f64],
    per_op: f64,
    latencies: &[u64],
    messages: u64,
    cpus: &[usize],
) -> CaseResult {
    let mut r = CaseResult::new("pingpong", "pipe/same-cpu", BTreeMap::new());
    r.metrics
        .insert("rtt_ns".into(), metric(reps.to_vec(), "ns"));
    r.metrics.insert(
        "csw_per_op".into(),
        crate::model::Metric {
            reps: vec![],
            ..metric(vec![per_op], "")
        },
    );
    r.headline = Some("rtt_ns".into());
    let mut lat = Latencies::new();
    latencies.iter().for_each(|&ns| lat.record(ns));
    r.latency = Some(lat.summary(LatencyKind::RoundTrip));
    r.histogram = Some(lat.to_v2());
    r.verified = Some(Verified {
        ok: true,
        messages,
        bytes: messages * 8,
    });
    r.cpu = Some(cpu(1.0, 10));
    r.sides = vec![Side {
        role: "client".into(),
        cpus: cpus.to_vec(),
        cpu: cpu(0.5, 4),
    }];
    r
}

#[test]
fn repetitions_concatenate_and_the_median_is_recomputed() {
    let mut r = batch(&[10.0, 12.0, 11.0], 2.0, &[100, 200], 30, &[0]);
    merge(&mut r, batch(&[20.0, 21.0, 22.0], 4.0, &[300], 30, &[0]), 1).unwrap();
    let m = &r.metrics["rtt_ns"];
    assert_eq!(m.reps, vec![10.0, 12.0, 11.0, 20.0, 21.0, 22.0]);
    assert_eq!(m.value, 16.0);
    assert_eq!((m.min, m.max), (Some(10.0), Some(22.0)));
    assert_eq!(r.metrics["csw_per_op"].value, 3.0);
    merge(&mut r, batch(&[30.0], 6.0, &[], 30, &[0]), 2).unwrap();
    assert_eq!(r.metrics["csw_per_op"].value, 4.0);
    assert_eq!(r.metrics["rtt_ns"].reps.len(), 7);
}

#[test]
fn histograms_add_and_the_summary_follows() {
    let mut r = batch(&[1.0, 2.0], 1.0, &[100, 100, 100], 30, &[0]);
    merge(&mut r, batch(&[1.0, 2.0], 1.0, &[1_000_000], 30, &[0]), 1).unwrap();
    let l = r.latency.as_ref().unwrap();
    assert_eq!(l.count, 4);
    assert_eq!(l.kind, LatencyKind::RoundTrip);
    assert!(l.max >= 999_000, "{}", l.max);
    let stored = Latencies::from_v2(r.histogram.as_ref().unwrap()).unwrap();
    assert_eq!(stored.count(), 4);
}

#[test]
fn counts_and_cpu_sum_and_sides_keep_every_cpu() {
    let mut r = batch(&[1.0, 2.0], 1.0, &[100], 30, &[0]);
    let mut second = batch(&[1.0, 2.0], 1.0, &[100], 40, &[1]);
    second.verified.as_mut().unwrap().ok = false;
    second.flags.push(Flag {
        name: "not_really_moved".into(),
        reason: "fast".into(),
    });
    merge(&mut r, second, 1).unwrap();
    let v = r.verified.as_ref().unwrap();
    assert_eq!((v.ok, v.messages, v.bytes), (false, 70, 560));
    let c = r.cpu.as_ref().unwrap();
    assert_eq!((c.user_s, c.voluntary_csw, c.involuntary_csw), (2.0, 20, 2));
    assert_eq!(r.sides.len(), 1);
    assert_eq!(r.sides[0].cpus, vec![0, 1]);
    assert_eq!(r.sides[0].cpu.voluntary_csw, 8);
    assert_eq!(r.flags.len(), 1);
}
