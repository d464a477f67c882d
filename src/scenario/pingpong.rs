//! `pingpong`: round trips of a `size`-byte message between two sides. Side
//! A stamps and sends, side B checks and echoes, A checks the echo and times
//! every round trip into a histogram. `pairs=N` runs N such pairs at once
//! (`common::pairs`); `rate=R` sends on a fixed schedule (`common::open_loop`).

use super::common::explain;
use super::common::open_loop::{self, OFFERED_PER_S, RATE};
use super::common::pairs::{self, FAIRNESS, PAIRS};
use super::common::payload::Payload;
use super::common::side::{Reps, Schedule, SideOut, SYSCALLS_PER_MSG};
use super::common::two_sided::per_rep;
use super::far::{pairs_or_far, FarSide};
use super::{
    common::verdict, CaseCtx, CaseSpec, Fault, LimitRef, MetricSpec, ParamKind, ParamSpec,
    Scenario, STALL,
};
use crate::measure::ticks::tick_clock;
use crate::mechanism::{self, run_typed, BoxEndpoint, Endpoint, EndpointLoop};
use crate::model::{CaseResult, Finding, LatencyKind};
use crate::stats::histogram::{Latencies, Pending};

pub(crate) struct PingPong;

const SIZE: ParamSpec = ParamSpec {
    default: "1",
    about: "message size in bytes (eventfd always carries its 8-byte counter)",
    ..mechanism::SIZE
};

const COUNT: ParamSpec = ParamSpec {
    name: "count",
    kind: ParamKind::Count,
    default: "10000",
    about: "round trips per repetition",
    in_name: false,
};

const ROLES: [&str; 2] = ["initiator", "echoer"];

const PARAMS: &[ParamSpec] = &[SIZE, COUNT, PAIRS, RATE];

const RTT_NS: MetricSpec = MetricSpec {
    name: "rtt_ns",
    unit: "ns",
    about: "round-trip time: median over repetitions of each repetition's mean (over all \
            pairs; with rate=R timed from each request's intended send time)",
};

const OPS_PER_S: MetricSpec = MetricSpec {
    name: "ops_per_s",
    unit: "1/s",
    about: "round trips per second (all pairs together; with rate=R, the rate achieved)",
};

const CSW_PER_OP: MetricSpec = MetricSpec {
    name: "csw_per_op",
    unit: "csw",
    about: "context switches (all sides, voluntary + involuntary) per round trip",
};

const METRICS: &[MetricSpec] = &[
    RTT_NS,
    OPS_PER_S,
    CSW_PER_OP,
    SYSCALLS_PER_MSG,
    FAIRNESS,
    OFFERED_PER_S,
];

impl Scenario for PingPong {
    fn name(&self) -> &'static str {
        "pingpong"
    }
    fn about(&self) -> &'static str {
        "round trips of one message between two sides: latency per round trip"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn batch_work(&self) -> Option<&'static ParamSpec> {
        Some(&COUNT)
    }
    fn uses_mechanisms(&self) -> bool {
        true
    }

    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let size = case.int(&SIZE) as usize;
        let count = case.int(&COUNT);
        let sched = Schedule {
            warmup: case.warmup_or(count / 10),
            reps: case.repeat,
            count,
            explain: ctx.explain,
        };
        let (n, rate) = (pairs::count(case), open_loop::rate(case));
        let tracing = explain::Tracing::for_case(ctx);
        let far = FarSide::PingpongEchoer {
            size: size as u64,
            sched,
            corrupt: ctx.fault == Some(Fault::Corrupt),
        };
        let reports = pairs_or_far(
            case,
            ctx,
            n,
            |_| move |mut ep: BoxEndpoint| run_typed(ep.as_mut(), Initiator { size, sched, rate }),
            |i| {
                let fault = pairs::fault_for(ctx.fault, i, n);
                move |ep: BoxEndpoint| echo(ep, size, sched, fault)
            },
            far,
        )?;
        let trace = tracing.map(explain::Tracing::finish);
        let Some(settled) = pairs::settle(out, reports, ROLES) else {
            return Ok(());
        };
        fill_metrics(out, &settled, sched, size as u64);
        if let Some(rate) = rate {
            let achieved = OPS_PER_S.of(out).map_or(0.0, |m| m.value);
            open_loop::record(out, rate, n, achieved);
        }
        if let Some(trace) = trace {
            let [a, b] = &settled[0];
            let sides = [(a, ROLES[0]), (b, ROLES[1])];
            out.explain = Some(explain::from_reps(sides, count, &trace));
        }
        Ok(())
    }

    /// The batch's median round trip: one descheduled moment moves a
    /// repetition's mean, not the median of all its round trips.
    fn round_value(&self, batch: &CaseResult) -> Option<f64> {
        let median = batch.latency.as_ref().map(|l| l.p50 as f64);
        median.or_else(|| batch.headline_metric().map(|(_, m)| m.value))
    }

    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        pairs::verdicts_by_load(results, |results| {
            let mut lines = verdict::fastest_per_group(results, "pingpong", "median RTT", false);
            lines.extend(verdict::cross_cpu_cost(results, "round trips"));
            lines
        })
    }

    /// Blocking round trips are held to a system call (same CPU) or a
    /// wake-up (across CPUs); a spinning shm ring across CPUs to the cache
    /// line bounced between the same two CPUs, the most it could approach.
    fn limit_for(&self, result: &CaseResult) -> Option<LimitRef> {
        if OFFERED_PER_S.of(result).is_some() {
            return None; // an open-loop round trip waits on its schedule too
        }
        let spins = result.param_str(mechanism::SHM_WAKE.name).as_deref() == Some("spin");
        Some(match (result.param_str("placement").as_deref(), spins) {
            (Some("cross-cpu"), true) => LimitRef::CACHELINE,
            (Some("cross-cpu"), false) => LimitRef::WAKE,
            _ => LimitRef::SYSCALL,
        })
    }
}

/// Figures of every pair together: rates summed, round trips and context
/// switches per round trip over all sides, the pairs' histograms merged.
fn fill_metrics(out: &mut CaseResult, settled: &[[SideOut; 2]], sched: Schedule, size: u64) {
    let reps = settled
        .iter()
        .map(|[a, b]| a.rep_ns.len().min(b.rep_usage.len()))
        .min()
        .unwrap_or(0);
    let (count, n) = (sched.count as f64, settled.len() as f64);
    let rates = pairs::rates(settled.len(), reps, |p, i| {
        count * 1e9 / settled[p][0].rep_ns[i] as f64
    });
    let rtt = per_rep(reps, |i| {
        settled
            .iter()
            .map(|[a, _]| trip_ns(a, i, count))
            .sum::<f64>()
            / n
    });
    let csw = per_rep(reps, |i| {
        let all: u64 = settled
            .iter()
            .map(|[a, b]| a.rep_usage[i].csw() + b.rep_usage[i].csw())
            .sum();
        all as f64 / (count * n)
    });
    RTT_NS.set(out, rtt);
    OPS_PER_S.set(out, rates.total.clone());
    CSW_PER_OP.set(out, csw);
    if let Some(calls) = pairs::syscalls_per_msg(settled, 2 * sched.total()) {
        SYSCALLS_PER_MSG.set(out, vec![calls]);
    }
    pairs::record(out, &rates, settled, size);
    RTT_NS.set_headline(out);
    let mut merged: Option<Latencies> = None;
    for blob in settled.iter().filter_map(|[a, _]| a.histogram.as_deref()) {
        let Ok(hist) = Latencies::from_v2(blob) else {
            continue;
        };
        match merged.as_mut() {
            Some(all) => all.merge(&hist),
            None => merged = Some(hist),
        }
    }
    if let Some(hist) = merged {
        out.latency = Some(hist.summary(LatencyKind::RoundTrip));
        out.histogram = Some(hist.to_v2());
    }
}

/// One pair's mean round trip in repetition `i`: back to back, the
/// repetition's time over its round trips; open loop, their mean latency.
fn trip_ns(initiator: &SideOut, i: usize, count: f64) -> f64 {
    match initiator.rep_sum_ns.get(i) {
        Some(sum) => *sum as f64 / count,
        None => initiator.rep_ns[i] as f64 / count,
    }
}

/// Side A: sends message `seq`, waits for its echo, checks it, times it.
///
/// A round trip is timed from just after one send to just after the next,
/// with the tick clock: the clock read and the histogram update happen
/// while the message is in flight, so they overlap the peer's work instead
/// of adding to the round trip (a CLOCK_MONOTONIC read before each send
/// made a 70 ns shm round trip 30-60 ns slower). On one CPU nothing
/// overlaps, so the update is a store into `Pending`, taken into the
/// histogram between repetitions. The last round trip of a
/// repetition ends when its echo arrives; the next repetition's first one
/// starts at its send, so the CPU counters read in between are not timed.
struct Initiator {
    size: usize,
    sched: Schedule,
    rate: Option<u64>,
}

impl EndpointLoop for Initiator {
    type Out = anyhow::Result<SideOut>;
    fn run<E: Endpoint + ?Sized>(self, ep: &mut E) -> Self::Out {
        let Initiator { size, sched, rate } = self;
        if let Some(rate) = rate {
            return open_loop::initiate(ep, size, sched, rate);
        }
        let payload = Payload::new(size)?;
        let (mut msg, mut echo) = (payload.buffer()?, payload.buffer()?);
        let mut out = SideOut::default();
        let mut hist = Pending::new();
        let clock = tick_clock();
        let mut reps = Reps::start(&sched, &mut out);
        let mut trip_start: Option<u64> = None;
        for seq in 0..sched.total() {
            reps.begin(seq);
            payload.stamp(&mut msg, seq);
            ep.send(&msg)?;
            if seq >= sched.warmup {
                let sent = clock.now();
                if let Some(start) = trip_start.replace(sent) {
                    hist.record(clock.ns(sent - start));
                }
            }
            ep.recv(&mut echo)?;
            if let Err(why) = payload.check(&echo, seq, seq + 1 == sched.total()) {
                out.mismatch = Some(format!("echo of {why}"));
                break;
            }
            out.messages += 1;
            out.bytes += size as u64;
            if reps.ends_at(seq) {
                if let Some(start) = trip_start.take() {
                    hist.record(clock.ns(clock.now() - start));
                }
                reps.mark(&mut out);
                hist.flush();
            }
        }
        out.histogram = Some(hist.into_latencies().to_v2());
        out.syscalls = ep.syscalls();
        Ok(out)
    }
}

/// Side B, here or on an agent (`scenario::far`).
pub(super) fn echo(
    mut ep: mechanism::BoxEndpoint,
    size: usize,
    sched: Schedule,
    fault: Option<Fault>,
) -> anyhow::Result<SideOut> {
    run_typed(ep.as_mut(), Echoer { size, sched, fault })
}

/// Side B: receives message `seq`, sends it back unchanged (or damaged
/// once, or after sleeping once, under the test-only faults), then checks it.
struct Echoer {
    size: usize,
    sched: Schedule,
    fault: Option<Fault>,
}

impl EndpointLoop for Echoer {
    type Out = anyhow::Result<SideOut>;
    fn run<E: Endpoint + ?Sized>(self, ep: &mut E) -> Self::Out {
        let Echoer { size, sched, fault } = self;
        let payload = Payload::new(size)?;
        let mut msg = payload.buffer()?;
        let mut out = SideOut::default();
        let mut reps = Reps::start(&sched, &mut out);
        let (corrupt_at, stall_at) = (sched.fault_at(fault), sched.stall_at(fault));
        for seq in 0..sched.total() {
            reps.begin(seq);
            ep.recv(&mut msg)?;
            if stall_at == Some(seq) {
                std::thread::sleep(STALL);
            }
            // Echo first, check after: the check overlaps the echo's flight.
            // The test-only fault damages the echo, not the copy checked here.
            let damage = corrupt_at == Some(seq);
            if damage {
                Payload::corrupt(&mut msg);
            }
            ep.send(&msg)?;
            if damage {
                Payload::corrupt(&mut msg);
            }
            if let Err(why) = payload.check(&msg, seq, seq + 1 == sched.total()) {
                out.mismatch = Some(why);
                break;
            }
            out.messages += 1;
            out.bytes += size as u64;
            reps.end(seq, &mut out);
        }
        out.syscalls = ep.syscalls();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(params: &[(&str, &str)]) -> &'static str {
        let params = params
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
            .collect();
        let result = CaseResult::new("pingpong", "x", params);
        PingPong.limit_for(&result).unwrap().metric().name
    }

    #[test]
    fn each_round_trip_is_held_to_its_own_floor() {
        assert_eq!(limit(&[("placement", "same-cpu")]), "syscall_ns");
        assert_eq!(limit(&[("placement", "cross-cpu")]), "wake_rtt_ns");
        assert_eq!(
            limit(&[("placement", "cross-cpu"), ("wake", "futex")]),
            "wake_rtt_ns"
        );
        assert_eq!(
            limit(&[("placement", "cross-cpu"), ("wake", "spin")]),
            "cacheline_rtt_ns"
        );
    }
}
