//! Open-loop round trips (`rate=R`): the initiator sends request k at its
//! intended time t0 + k/R, whatever happened to request k - 1, and times
//! each round trip from that intended time, not from when it could be
//! sent. A stall of the other side then shows in every request it delayed,
//! not only in the one it caught (no coordinated omission). `rate=max` is
//! the closed loop: the next request as soon as the echo is back.

use super::payload::Payload;
use super::side::{Reps, Schedule, SideOut};
use crate::measure::clock::now_ns;
use crate::mechanism::Endpoint;
use crate::model::{CaseResult, Flag};
use crate::scenario::{CaseSpec, MetricSpec, ParamKind, ParamSpec};
use crate::stats::histogram::Latencies;
use std::time::Duration;

pub(crate) const RATE: ParamSpec = ParamSpec {
    name: "rate",
    kind: ParamKind::CountOrMax,
    default: "max",
    about: "requests per second each initiator sends on a fixed schedule, each round \
            trip timed from its intended send time (a list sweeps); max: the next request \
            as soon as the echo is back (closed loop)",
    in_name: true,
};

pub(crate) const OFFERED_PER_S: MetricSpec = MetricSpec {
    name: "offered_per_s",
    unit: "1/s",
    about: "with rate=R, the requests per second offered (R for each pair); ops_per_s is what was achieved",
};

/// Achieved below this share of the offered rate is flagged `rate_short`.
const SHORT: f64 = 0.9;

/// Below this much time to wait, the sender spins instead of sleeping
/// (a sleep overshoots by the timer slack).
const SPIN_NS: u64 = 50_000;

/// The case's offered rate per pair; None for `max` (closed loop).
pub(crate) fn rate(case: &CaseSpec) -> Option<u64> {
    RATE.int(&case.values)
}

/// The initiator's loop at `rate` requests per second: warm-up round trips
/// back to back, then each repetition's `count` requests on a schedule
/// that starts with the repetition. Records every latency from the
/// intended send time, and each repetition's sum of them.
pub(crate) fn initiate<E: Endpoint + ?Sized>(
    ep: &mut E,
    size: usize,
    sched: Schedule,
    rate: u64,
) -> anyhow::Result<SideOut> {
    let payload = Payload::new(size)?;
    let (mut msg, mut echo) = (payload.buffer()?, payload.buffer()?);
    let mut out = SideOut::default();
    let mut hist = Latencies::new();
    let mut reps = Reps::start(&sched, &mut out);
    let (mut t0, mut k, mut sum) = (0u64, 0u64, 0u64);
    for seq in 0..sched.total() {
        reps.begin(seq);
        let intended = (seq >= sched.warmup).then(|| {
            if k == 0 {
                t0 = now_ns();
            }
            k += 1;
            t0 + intended_offset(k - 1, rate)
        });
        if let Some(at) = intended {
            wait_until(at);
        }
        payload.stamp(&mut msg, seq);
        ep.send(&msg)?;
        ep.recv(&mut echo)?;
        if let Some(at) = intended {
            let latency = now_ns().saturating_sub(at);
            hist.record(latency);
            sum += latency;
        }
        if let Err(why) = payload.check(&echo, seq, seq + 1 == sched.total()) {
            out.mismatch = Some(format!("echo of {why}"));
            break;
        }
        out.messages += 1;
        out.bytes += size as u64;
        if reps.ends_at(seq) {
            reps.mark(&mut out);
            out.rep_sum_ns.push(std::mem::take(&mut sum));
            k = 0;
        }
    }
    out.histogram = Some(hist.to_v2());
    out.syscalls = ep.syscalls();
    Ok(out)
}

/// When request `k` of a schedule at `rate` per second is due, in ns
/// after the schedule's start.
fn intended_offset(k: u64, rate: u64) -> u64 {
    (k as u128 * 1_000_000_000 / rate.max(1) as u128) as u64
}

/// Sleeps, then spins, until CLOCK_MONOTONIC reaches `at` (at once if past).
fn wait_until(at: u64) {
    loop {
        let now = now_ns();
        if now >= at {
            return;
        }
        match at - now {
            left if left > SPIN_NS => std::thread::sleep(Duration::from_nanos(left - SPIN_NS)),
            _ => std::hint::spin_loop(),
        }
    }
}

/// Records the offered rate of `pairs` pairs beside the achieved
/// `ops_per_s`, and flags the case when achieved falls short of it.
pub(crate) fn record(out: &mut CaseResult, rate: u64, pairs: u64, achieved: f64) {
    let offered = (rate * pairs) as f64;
    OFFERED_PER_S.set(out, vec![offered]);
    if let Some(flag) = short_flag(offered, achieved) {
        out.flags.push(flag);
    }
}

fn short_flag(offered: f64, achieved: f64) -> Option<Flag> {
    (achieved < SHORT * offered).then(|| Flag {
        name: "rate_short".into(),
        reason: format!(
            "achieved {} of the {} offered ({:.0}%)",
            crate::format::human(achieved, "1/s"),
            crate::format::human(offered, "1/s"),
            100.0 * achieved / offered
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_due_at_even_intervals() {
        assert_eq!(intended_offset(0, 10_000), 0);
        assert_eq!(intended_offset(1, 10_000), 100_000);
        assert_eq!(intended_offset(3, 3), 1_000_000_000);
        assert_eq!(intended_offset(7, 1_000_000_000), 7);
    }

    #[test]
    fn a_shortfall_below_nine_tenths_is_flagged() {
        assert!(short_flag(10_000.0, 9_500.0).is_none());
        let flag = short_flag(10_000.0, 5_000.0).unwrap();
        assert_eq!(flag.name, "rate_short");
        assert!(flag.reason.contains("(50%)"), "{}", flag.reason);
    }
}
