//! Turning the two sides' call reports into a result: verification (the
//! reader never got more than was written, and in order), per-side metrics
//! named `reader_*` / `writer_*`, the headline side's per-call histogram,
//! and the time series of every side that ran.

use super::caller::{CallReport, Interval, Payload};
use crate::exec::peers::SideResult;
use crate::model::Side;
use crate::model::{CaseResult, LatencyKind, Series, Status, Verified};
use crate::scenario::common::side::cpu_usage;
use crate::scenario::MetricSpec;
use crate::stats::histogram::Latencies;
use crate::sys::rusage::Usage;

/// The figures of one side, each declared for the role it is named after
/// (`reader_calls`, `writer_calls`, ...).
pub(crate) struct RoleMetrics {
    pub(crate) role: &'static str,
    pub(crate) calls: MetricSpec,
    pub(crate) transfers: MetricSpec,
    pub(crate) calls_per_s: MetricSpec,
    pub(crate) mean_ns: MetricSpec,
    pub(crate) p99_9_ns: MetricSpec,
    pub(crate) max_ns: MetricSpec,
    pub(crate) slow_calls: MetricSpec,
    pub(crate) cpu_util: MetricSpec,
    pub(crate) voluntary_csw: MetricSpec,
}

macro_rules! role_metrics {
    ($role:literal) => {
        RoleMetrics {
            role: $role,
            calls: MetricSpec {
                name: concat!($role, "_calls"),
                unit: "calls",
                about: concat!("calls the ", $role, " made, EAGAIN included"),
            },
            transfers: MetricSpec {
                name: concat!($role, "_transfers"),
                unit: "calls",
                about: concat!("calls of the ", $role, " that moved a message"),
            },
            calls_per_s: MetricSpec {
                name: concat!($role, "_calls_per_s"),
                unit: "1/s",
                about: concat!("calls per second of the ", $role),
            },
            mean_ns: MetricSpec {
                name: concat!($role, "_mean_ns"),
                unit: "ns",
                about: concat!("mean per-call latency of the ", $role),
            },
            p99_9_ns: MetricSpec {
                name: concat!($role, "_p99_9_ns"),
                unit: "ns",
                about: concat!("99.9th percentile per-call latency of the ", $role),
            },
            max_ns: MetricSpec {
                name: concat!($role, "_max_ns"),
                unit: "ns",
                about: concat!("slowest call of the ", $role),
            },
            slow_calls: MetricSpec {
                name: concat!($role, "_slow_calls"),
                unit: "calls",
                about: concat!("calls of the ", $role, " slower than `slow`"),
            },
            cpu_util: MetricSpec {
                name: concat!($role, "_cpu_util"),
                unit: "ratio",
                about: concat!(
                    "CPU time of the ",
                    $role,
                    " over its wall time (1 = never blocked)"
                ),
            },
            voluntary_csw: MetricSpec {
                name: concat!($role, "_voluntary_csw"),
                unit: "csw",
                about: concat!("times the ", $role, " blocked (voluntary context switches)"),
            },
        }
    };
}

pub(crate) const READER: RoleMetrics = role_metrics!("reader");
pub(crate) const WRITER: RoleMetrics = role_metrics!("writer");

const MEAN_NS: MetricSpec = MetricSpec {
    name: "mean_ns",
    unit: "ns",
    about: "mean per-call latency of the reader (of the writer when it runs alone)",
};
const P99_9_NS: MetricSpec = MetricSpec {
    name: "p99_9_ns",
    unit: "ns",
    about: "99.9th percentile per-call latency of that side",
};
const SLOW_CALLS: MetricSpec = MetricSpec {
    name: "slow_calls",
    unit: "calls",
    about: "calls of that side slower than `slow`",
};
const HOGS_RAN: MetricSpec = MetricSpec {
    name: "hogs",
    unit: "processes",
    about: "CPU-burning processes that ran (both+hogs)",
};

macro_rules! metrics {
    ($($role:ident),*) => {
        pub(crate) const METRICS: &[MetricSpec] = &[
            MEAN_NS,
            P99_9_NS,
            SLOW_CALLS,
            $(
            $role.calls,
            $role.transfers,
            $role.calls_per_s,
            $role.mean_ns,
            $role.p99_9_ns,
            $role.max_ns,
            $role.slow_calls,
            $role.cpu_util,
            $role.voluntary_csw,
            )*
            HOGS_RAN,
        ];
    };
}

metrics!(READER, WRITER);

/// The sides in the order of their reports.
const SIDES: [&RoleMetrics; 2] = [&WRITER, &READER];

/// Checks one repetition; None (and `out` failed) if a side failed or the
/// reader saw something that was not written.
pub(crate) fn settle(
    out: &mut CaseResult,
    reports: [SideResult<CallReport>; 2],
    payload: Payload,
) -> Option<[CallReport; 2]> {
    let [w, r] = reports;
    let (w, r) = match (w, r) {
        (Ok(w), Ok(r)) => (w, r),
        (w, r) => {
            let why = [(w.err(), "writer"), (r.err(), "reader")]
                .into_iter()
                .filter_map(|(e, role)| e.map(|e| format!("{role}: {e}")))
                .collect::<Vec<_>>()
                .join("; ");
            fail(out, why, &r_amount(None), payload);
            return None;
        }
    };
    let problem = r.mismatch.clone().or_else(|| {
        (r.amount > w.amount).then(|| {
            format!(
                "the reader received {} messages but only {} were written",
                r.amount, w.amount
            )
        })
    });
    if let Some(why) = problem {
        fail(
            out,
            format!("verification failed: {why}"),
            &r_amount(Some(&r)),
            payload,
        );
        return None;
    }
    Some([w, r])
}

fn r_amount(r: Option<&CallReport>) -> (u64, u64) {
    r.map_or((0, 0), |r| (r.amount, r.transfers))
}

fn fail(out: &mut CaseResult, why: String, (amount, transfers): &(u64, u64), payload: Payload) {
    out.status = Status::Failed;
    out.reason = Some(why);
    out.verified = Some(verified(false, *amount, *transfers, payload));
}

fn verified(ok: bool, amount: u64, transfers: u64, payload: Payload) -> Verified {
    let per = if payload == Payload::Counter { 8 } else { 1 };
    Verified {
        ok,
        messages: amount,
        bytes: transfers * per,
    }
}

/// Fills metrics, latency, histogram, series, sides and CPU from the
/// verified repetitions.
pub(crate) fn fill(out: &mut CaseResult, reps: &[[CallReport; 2]], payload: Payload, hogs: u64) {
    let amount = reps.iter().map(|[_, r]| r.amount).sum();
    let transfers = reps.iter().map(|[_, r]| r.transfers).sum();
    out.verified = Some(verified(true, amount, transfers, payload));
    let mut total = Usage::default();
    for (i, role) in SIDES.into_iter().enumerate() {
        let side: Vec<&CallReport> = reps.iter().map(|rep| &rep[i]).collect();
        if !side.iter().all(|s| s.active) {
            continue;
        }
        side_metrics(out, role, &side);
        let usage = side
            .iter()
            .fold(Usage::default(), |acc, s| acc.plus(s.usage));
        total = total.plus(usage);
        out.sides.push(Side {
            role: role.role.to_string(),
            cpus: side[0].cpus.clone(),
            cpu: cpu_usage(usage),
        });
        out.series.extend(series(role.role, &side[0].series));
    }
    out.cpu = Some(cpu_usage(total));
    HOGS_RAN.set(out, vec![hogs as f64]);
    headline(out, reps);
}

fn side_metrics(out: &mut CaseResult, m: &RoleMetrics, side: &[&CallReport]) {
    let per = |f: &dyn Fn(&CallReport) -> f64| side.iter().map(|s| f(s)).collect::<Vec<f64>>();
    let summary = |s: &CallReport| {
        Latencies::from_v2(&s.histogram)
            .map(|h| h.summary(LatencyKind::PerCall))
            .ok()
    };
    let wall = |s: &CallReport| s.wall_ns.max(1) as f64;
    let values: [(&MetricSpec, Vec<f64>); 9] = [
        (&m.calls, per(&|s| s.calls as f64)),
        (&m.transfers, per(&|s| s.transfers as f64)),
        (&m.calls_per_s, per(&|s| s.calls as f64 * 1e9 / wall(s))),
        (
            &m.mean_ns,
            per(&|s| summary(s).map_or(f64::NAN, |l| l.mean)),
        ),
        (
            &m.p99_9_ns,
            per(&|s| summary(s).map_or(f64::NAN, |l| l.p99_9 as f64)),
        ),
        (
            &m.max_ns,
            per(&|s| summary(s).map_or(f64::NAN, |l| l.max as f64)),
        ),
        (&m.slow_calls, per(&|s| s.slow as f64)),
        (&m.cpu_util, per(&|s| s.usage.cpu_ns as f64 / wall(s))),
        (&m.voluntary_csw, per(&|s| s.usage.voluntary_csw as f64)),
    ];
    for (spec, reps) in values {
        spec.set(out, reps);
    }
}

/// The reader's figures lead, or the writer's when it ran alone.
fn headline(out: &mut CaseResult, reps: &[[CallReport; 2]]) {
    let index = if reps.iter().all(|[_, r]| r.active) {
        1
    } else {
        0
    };
    let side = SIDES[index];
    let leads = [
        (MEAN_NS, side.mean_ns),
        (P99_9_NS, side.p99_9_ns),
        (SLOW_CALLS, side.slow_calls),
    ];
    for (lead, own) in leads {
        if let Some(m) = own.of(out).cloned() {
            out.metrics.insert(lead.name.to_string(), m);
        }
    }
    MEAN_NS.set_headline(out);
    let mut hist = Latencies::new();
    for rep in reps {
        if let Ok(h) = Latencies::from_v2(&rep[index].histogram) {
            hist.merge(&h);
        }
    }
    out.latency = Some(hist.summary(LatencyKind::PerCall));
    out.histogram = Some(hist.to_v2());
}

fn series(role: &str, points: &[Interval]) -> Vec<Series> {
    let make = |what: &str, unit: &str, f: &dyn Fn(&Interval) -> f64| Series {
        name: format!("{role}_{what}"),
        unit: unit.to_string(),
        points: points.iter().map(|p| [p.start_s, f(p)]).collect(),
    };
    vec![
        make("mean_ns", "ns", &|p| p.mean_ns),
        make("max_ns", "ns", &|p| p.max_ns as f64),
        make("slow_calls", "calls", &|p| p.slow as f64),
    ]
}
