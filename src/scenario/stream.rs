//! `stream`: one side sends `size`-byte messages as fast as it can, the
//! other receives and verifies them; throughput is timed at the receiver.
//! UDP may drop datagrams, so over an unreliable mechanism the sender keeps
//! at most a receive buffer's worth in flight (the receiver acknowledges
//! every half window). eventfd carries a counter: the sender adds 1 per
//! message and the sum the receiver reads must equal the writes.
//!
//! A repetition is sized by time, not bytes (`bytes=auto`): a short probe
//! run measures the rate and each repetition then carries about `rep_time`
//! of traffic, because short repetitions land in whichever mode the host is
//! in and their median jumps between runs. `pairs=N` runs N streams at
//! once (`common::pairs`), each with the probed message count.

use super::common::explain;
use super::common::pairs::{self, FAIRNESS, PAIRS};
use super::common::payload::Payload;
use super::common::side::{Meter, Reps, Schedule, SideOut, SYSCALLS_PER_MSG};
use super::common::two_sided::settle;
use super::far::{pairs_or_far, FarSide};
use super::{
    common::verdict, CaseCtx, CaseSpec, Fault, LimitRef, MetricSpec, ParamKind, ParamSpec, Scenario,
};
use crate::exec::peers::SideResult;
use crate::mechanism::{self, BoxEndpoint};
use crate::model::{CaseResult, Finding};
use crate::stats::histogram::Latencies;

pub(crate) struct Stream;

const SIZE: ParamSpec = ParamSpec {
    default: "64,4096,65536",
    about: "message size in bytes (a list sweeps; eventfd always carries 8)",
    ..mechanism::SIZE
};

const BYTES: ParamSpec = ParamSpec {
    name: "bytes",
    kind: ParamKind::BytesOrAuto,
    default: "auto",
    about: "bytes per repetition (at least 1024 messages; eventfd counts 64 bytes a \
            write); auto: as many as take rep_time, measured by a probe run first",
    in_name: false,
};

const REP_TIME: ParamSpec = ParamSpec {
    name: "rep_time",
    kind: ParamKind::Duration,
    default: "250ms",
    about: "with bytes=auto, how long one repetition should take",
    in_name: false,
};

const PARAMS: &[ParamSpec] = &[SIZE, BYTES, REP_TIME, PAIRS];

const BYTES_PER_S: MetricSpec = MetricSpec {
    name: "bytes_per_s",
    unit: "bytes/s",
    about: "throughput at the receiver (all pairs together)",
};

/// A round's value in interleaved rounds (`Scenario::round_value`).
const CHUNK_BYTES_PER_S: MetricSpec = MetricSpec {
    name: "chunk_bytes_per_s",
    unit: "bytes/s",
    about: "throughput of the median chunk (about 64 KiB) the receiver timed (all pairs \
            together): what the stream does while no preemption stalls it",
};

pub(crate) const MSGS_PER_S: MetricSpec = MetricSpec {
    name: "msgs_per_s",
    unit: "1/s",
    about: "messages per second at the receiver (all pairs together)",
};

const METRICS: &[MetricSpec] = &[
    BYTES_PER_S,
    MSGS_PER_S,
    SYSCALLS_PER_MSG,
    FAIRNESS,
    CHUNK_BYTES_PER_S,
];

impl Scenario for Stream {
    fn name(&self) -> &'static str {
        "stream"
    }
    fn about(&self) -> &'static str {
        "one side sends as fast as it can, the other receives: throughput"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn uses_mechanisms(&self) -> bool {
        true
    }
    fn batch_work(&self) -> Option<&'static ParamSpec> {
        Some(&BYTES)
    }
    /// The batch's median chunk: a repetition's rate is moved by one
    /// descheduled moment, the median of its chunks' rates is not.
    fn round_value(&self, batch: &CaseResult) -> Option<f64> {
        CHUNK_BYTES_PER_S
            .value(batch)
            .or_else(|| BYTES_PER_S.value(batch))
    }
    /// A repetition's bytes at the rate the pilot measured.
    fn work_from_pilot(&self, pilot: &CaseResult, per_rep: std::time::Duration) -> Option<u64> {
        let rate = BYTES_PER_S.value(pilot)?;
        Some((rate * per_rep.as_secs_f64()) as u64)
    }

    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let size = case.int(&SIZE) as usize;
        let count = match BYTES.int(&case.values) {
            Some(bytes) => messages_per_rep(bytes, size),
            _ => match calibrate(case, ctx, size, out)? {
                Some(count) => count,
                None => return Ok(()),
            },
        };
        out.params.insert("messages_per_rep".into(), count.into());
        let sched = Schedule {
            warmup: case.warmup_or(count / 10),
            reps: case.repeat,
            count,
            explain: ctx.explain,
        };
        let tracing = explain::Tracing::for_case(ctx);
        let n = pairs::count(case);
        let mut reports = run_stream(case, ctx, size, sched, n)?;
        let trace = tracing.map(explain::Tracing::finish);
        let counter = case.mech.is_some_and(|m| m.caps().counter);
        for report in reports.iter_mut() {
            if let (true, [Ok(sender), Ok(receiver)]) = (counter, report) {
                check_counted(sender, receiver);
            }
        }
        let Some(mut settled) = pairs::settle(out, reports, ROLES) else {
            return Ok(());
        };
        if ctx.fault == Some(Fault::Phantom) {
            settled.iter_mut().for_each(|[_, b]| b.rep_ns.fill(1));
        }
        fill_metrics(out, &settled, size, sched);
        if let Some(calls) = pairs::syscalls_per_msg(&settled, sched.total()) {
            SYSCALLS_PER_MSG.set(out, vec![calls]);
        }
        if let Some(trace) = trace {
            // The receiver times the stream: one operation is one message.
            let [a, b] = &settled[0];
            let sides = [(b, ROLES[1]), (a, ROLES[0])];
            out.explain = Some(explain::from_reps(sides, count, &trace));
        }
        Ok(())
    }

    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        pairs::verdicts_by_load(results, |results| {
            verdict::fastest_per_group(results, "stream", "median throughput", true)
        })
    }

    fn limit_for(&self, _result: &CaseResult) -> Option<LimitRef> {
        Some(LimitRef::MEMCPY)
    }
}

const ROLES: [&str; 2] = ["sender", "receiver"];

/// Both sides of `n` streams on one schedule, the test-only fault in the
/// last (none when `n` is 0: the probe, one stream); eventfd sends
/// counter increments.
fn run_stream(
    case: &CaseSpec,
    ctx: &CaseCtx,
    size: usize,
    sched: Schedule,
    n: u64,
) -> anyhow::Result<Vec<[SideResult<SideOut>; 2]>> {
    let fault = |i| pairs::fault_for(ctx.fault, i, n);
    if case.mech.is_some_and(|m| m.caps().counter) {
        return pairs::run(
            case,
            ctx,
            n.max(1),
            |i| {
                let fault = fault(i);
                move |ep| count_sender(ep, sched, fault)
            },
            |_| move |ep| count_receiver(ep, sched),
        );
    }
    let far = FarSide::StreamReceiver {
        size: size as u64,
        sched,
    };
    pairs_or_far(
        case,
        ctx,
        n.max(1),
        |i| {
            let fault = fault(i);
            move |ep| sender(ep, size, sched, fault)
        },
        |_| move |ep| receiver(ep, size, sched),
        far,
    )
}

/// Messages per repetition for `rep_time`, from the rate of a probe run of
/// `PROBE_BYTES` (verified like any run, without the test-only fault).
/// None when the probe failed; `out` then says why.
fn calibrate(
    case: &CaseSpec,
    ctx: &CaseCtx,
    size: usize,
    out: &mut CaseResult,
) -> anyhow::Result<Option<u64>> {
    let probe = Schedule {
        warmup: 0,
        reps: 1,
        count: (PROBE_BYTES / size.max(64) as u64).max(PROBE_MIN_MESSAGES),
        explain: false,
    };
    let mut reports = ctx.in_subdir("probe", |ctx| run_stream(case, ctx, size, probe, 0))?;
    let reports = reports.pop().expect("the probe is one pair");
    let probe_ns = match &reports {
        [Ok(a), Ok(b)] if a.mismatch.is_none() && b.mismatch.is_none() => b.rep_ns.first(),
        _ => None,
    };
    let Some(&probe_ns) = probe_ns else {
        settle(out, reports, ROLES);
        return Ok(None);
    };
    Ok(Some(scaled_count(
        probe.count,
        probe_ns,
        case.int(&REP_TIME),
    )))
}

/// `probe_count` messages took `probe_ns`: how many take `rep_ns`.
fn scaled_count(probe_count: u64, probe_ns: u64, rep_ns: u64) -> u64 {
    let count = probe_count as u128 * rep_ns as u128 / probe_ns.max(1) as u128;
    u64::try_from(count)
        .unwrap_or(u64::MAX)
        .clamp(MIN_MESSAGES, MAX_MESSAGES)
}

/// The probe: short enough to cost little, long enough to see the rate.
const PROBE_BYTES: u64 = 4 << 20;
const PROBE_MIN_MESSAGES: u64 = 64;
/// A repetition of a very fast mechanism still ends.
const MAX_MESSAGES: u64 = 1 << 32;

/// Enough messages for a repetition to last; a counter write is counted as
/// a 64-byte message so eventfd gets as many operations as small messages.
fn messages_per_rep(bytes: u64, size: usize) -> u64 {
    (bytes / size.max(64) as u64).max(MIN_MESSAGES)
}

const MIN_MESSAGES: u64 = 1024;

/// Throughput of every pair's receiver, summed per repetition.
fn fill_metrics(out: &mut CaseResult, settled: &[[SideOut; 2]], size: usize, sched: Schedule) {
    let count = sched.count as f64;
    let reps = settled
        .iter()
        .map(|[_, b]| b.rep_ns.len())
        .min()
        .unwrap_or(0);
    let rates = pairs::rates(settled.len(), reps, |p, i| {
        count * 1e9 / settled[p][1].rep_ns[i].max(1) as f64
    });
    BYTES_PER_S.set(out, rates.total.iter().map(|r| r * size as f64).collect());
    MSGS_PER_S.set(out, rates.total.clone());
    if let Some(rate) = median_chunks_rate(settled, size) {
        CHUNK_BYTES_PER_S.set(out, vec![rate]);
    }
    pairs::record(out, &rates, settled, size as u64);
    BYTES_PER_S.set_headline(out);
}

/// The receivers' median chunk rates, summed over the pairs that can run
/// at once; None where a receiver timed no chunk. A chunk is timed while
/// its pair runs: pairs that share their CPUs take turns, so their rates
/// never add up (4 same-CPU pairs on 2 CPUs move what 2 pairs do).
fn median_chunks_rate(settled: &[[SideOut; 2]], size: usize) -> Option<f64> {
    let bytes = (chunk_messages(size) * size as u64) as f64;
    let rates: Option<Vec<f64>> = settled
        .iter()
        .map(|[_, receiver]| {
            let times = Latencies::from_v2(receiver.histogram.as_deref()?).ok()?;
            let median = *times.quantiles(&[0.5]).first()?;
            (times.count() > 0 && median > 0).then(|| bytes * 1e9 / median as f64)
        })
        .collect();
    let rates = rates?;
    let mean = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
    Some(mean * at_once(settled) as f64)
}

/// How many of the pairs can run at the same time: as many as their CPUs
/// hold, each pair needing the CPUs its sides ran on (at least one; the
/// CPUs this process may use where no side says), all of them at most.
fn at_once(settled: &[[SideOut; 2]]) -> usize {
    let cpus_of = |pair: &[SideOut; 2]| -> Vec<usize> {
        let mut cpus: Vec<usize> = pair.iter().flat_map(|s| s.cpus.clone()).collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus
    };
    let mut all: Vec<usize> = settled.iter().flat_map(cpus_of).collect();
    all.sort_unstable();
    all.dedup();
    let cpus = match all.len() {
        0 => crate::measure::pin::allowed_cpus().len(),
        n => n,
    };
    let per_pair = settled.iter().map(|p| cpus_of(p).len().max(1)).min();
    (cpus / per_pair.unwrap_or(1)).clamp(1, settled.len().max(1))
}

/// Messages in flight allowed over an unreliable mechanism, and how often
/// the receiver acknowledges.
fn credit(ep: &BoxEndpoint, size: usize) -> Option<(u64, u64)> {
    ep.window(size).map(|w| (w, (w / 2).max(1)))
}

fn sender(
    mut ep: BoxEndpoint,
    size: usize,
    sched: Schedule,
    fault: Option<Fault>,
) -> anyhow::Result<SideOut> {
    let payload = Payload::new(size)?;
    let mut msg = payload.buffer()?;
    let mut out = SideOut::default();
    let mut reps = Reps::start(&sched, &mut out);
    let credit = credit(&ep, size);
    let corrupt_at = sched.fault_at(fault);
    let mut acks = 0u64;
    for seq in 0..sched.total() {
        reps.begin(seq);
        payload.stamp(&mut msg, seq);
        if corrupt_at == Some(seq) {
            Payload::corrupt(&mut msg);
        }
        ep.send(&msg)?;
        if let Some((window, step)) = credit {
            while seq + 1 - acks * step >= window {
                await_ack(&mut ep, (acks + 1) * step)?;
                acks += 1;
            }
        }
        reps.end(seq, &mut out);
    }
    if let Some((_, step)) = credit {
        // Stay until the receiver has everything: closing earlier would
        // make its last acknowledgements bounce (ECONNREFUSED over UDP).
        while acks * step < sched.total() {
            await_ack(&mut ep, ((acks + 1) * step).min(sched.total()))?;
            acks += 1;
        }
    }
    out.syscalls = ep.syscalls();
    Ok(out)
}

fn await_ack(ep: &mut BoxEndpoint, expected: u64) -> anyhow::Result<()> {
    let mut ack = [0u8; 8];
    ep.recv(&mut ack)?;
    let got = u64::from_le_bytes(ack);
    anyhow::ensure!(
        got == expected,
        "acknowledgement for {got} messages, expected {expected}"
    );
    Ok(())
}

pub(super) fn receiver(
    mut ep: BoxEndpoint,
    size: usize,
    sched: Schedule,
) -> anyhow::Result<SideOut> {
    let payload = Payload::new(size)?;
    let mut msg = payload.buffer()?;
    let mut out = SideOut::default();
    let mut reps = Reps::start(&sched, &mut out);
    let step = credit(&ep, size).map(|(_, step)| step);
    let mut chunks = Chunks::new(size, sched.warmup);
    for seq in 0..sched.total() {
        ep.recv(&mut msg)?;
        if let Err(why) = payload.check(&msg, seq, seq + 1 == sched.total()) {
            out.mismatch = Some(why);
            break;
        }
        out.messages += 1;
        out.bytes += size as u64;
        chunks.received(seq);
        reps.begin(seq + 1);
        let last = seq + 1 == sched.total();
        if step.is_some_and(|s| (seq + 1).is_multiple_of(s) || last) {
            ep.send(&(seq + 1).to_le_bytes())?;
        }
        reps.end(seq, &mut out);
    }
    out.histogram = Some(chunks.times.to_v2());
    out.syscalls = ep.syscalls();
    Ok(out)
}

/// The receiver's clock every `CHUNK_BYTES` after the warm-up: each
/// chunk's time in a histogram, from which the median chunk's rate comes.
struct Chunks {
    every: u64,
    warmup: u64,
    clock: &'static crate::measure::ticks::TickClock,
    last: Option<u64>,
    times: Latencies,
}

/// About this much a timed chunk, at least one message.
const CHUNK_BYTES: u64 = 64 << 10;

/// Messages a chunk holds for messages of `size` bytes.
fn chunk_messages(size: usize) -> u64 {
    (CHUNK_BYTES / size.max(1) as u64).max(1)
}

impl Chunks {
    fn new(size: usize, warmup: u64) -> Chunks {
        Chunks {
            every: chunk_messages(size),
            warmup,
            clock: crate::measure::ticks::tick_clock(),
            last: None,
            times: Latencies::new(),
        }
    }

    /// Message `seq` arrived: a chunk ends with every `every`-th after the
    /// warm-up's last.
    fn received(&mut self, seq: u64) {
        let Some(timed) = (seq + 1).checked_sub(self.warmup) else {
            return;
        };
        if !timed.is_multiple_of(self.every) {
            return;
        }
        let now = self.clock.now();
        if let Some(start) = self.last.replace(now) {
            self.times.record(self.clock.ns(now - start));
        }
    }
}

/// eventfd: adds 1 per message (2 once, under the test-only fault). A
/// counter coalesces what it carries, so a sender left to run ahead could
/// finish several repetitions before the receiver reads once, and the
/// receiver would close them all at one instant (the futex stream read
/// 1.5 TB/s that way): the sender starts once the receiver's clock runs,
/// and at the end of warm-up and of each repetition waits for the
/// receiver to hand the boundary back.
fn count_sender(
    mut ep: BoxEndpoint,
    sched: Schedule,
    fault: Option<Fault>,
) -> anyhow::Result<SideOut> {
    let mut out = SideOut::default();
    await_boundary(&mut ep)?;
    let mut reps = Reps::start(&sched, &mut out);
    let corrupt_at = sched.fault_at(fault);
    for seq in 0..sched.total() {
        reps.begin(seq);
        let add: u64 = if corrupt_at == Some(seq) { 2 } else { 1 };
        ep.send(&add.to_le_bytes())?;
        out.counted_in += add;
        let boundary = reps.ends_at(seq);
        if boundary {
            reps.mark(&mut out);
        }
        if boundary || seq + 1 == sched.warmup {
            await_boundary(&mut ep)?;
        }
    }
    Ok(out)
}

/// The receiver's hand-back of a boundary: one counter increment.
fn await_boundary(ep: &mut BoxEndpoint) -> anyhow::Result<()> {
    let mut back = [0u8; 8];
    ep.recv(&mut back)?;
    anyhow::ensure!(
        u64::from_le_bytes(back) == 1,
        "a boundary handed back as {}, expected 1",
        u64::from_le_bytes(back)
    );
    Ok(())
}

/// A counter sums what it carries, so a receiver that stops once its sum
/// reaches the writes may stop before a surplus arrives: the sum the sender
/// put in must also be what the receiver took out.
fn check_counted(sender: &SideOut, receiver: &mut SideOut) {
    if receiver.mismatch.is_none() && receiver.messages != sender.counted_in {
        receiver.mismatch = Some(format!(
            "the sender counted in {} but the receiver took out {}",
            sender.counted_in, receiver.messages
        ));
    }
}

/// eventfd: reads counter values until their sum reaches the writes; a
/// repetition ends when the sum reaches its boundary, which the receiver
/// hands back (`count_sender`), so one read never closes two of them.
fn count_receiver(mut ep: BoxEndpoint, sched: Schedule) -> anyhow::Result<SideOut> {
    let mut out = SideOut::default();
    let mut meter = Meter::start(&mut out);
    let mut value = [0u8; 8];
    let mut sum = 0u64;
    let mut next_rep_end = sched.warmup + sched.count;
    if sched.warmup == 0 {
        meter.reset();
    }
    // The sender's start: on one CPU it could otherwise send everything
    // before this side's clock starts.
    ep.send(&1u64.to_le_bytes())?;
    while sum < sched.total() {
        ep.recv(&mut value)?;
        let before = sum;
        sum += u64::from_le_bytes(value);
        let mut crossed = 0;
        if before < sched.warmup && sum >= sched.warmup {
            meter.reset();
            crossed += 1;
        }
        while sum >= next_rep_end && next_rep_end <= sched.total() {
            meter.mark(&mut out);
            next_rep_end += sched.count;
            crossed += 1;
        }
        for _ in 0..crossed {
            ep.send(&1u64.to_le_bytes())?;
        }
    }
    out.messages = sum;
    out.bytes = sum.min(sched.total()) * 8;
    if sum != sched.total() {
        out.mismatch = Some(format!(
            "counter sum {sum} differs from the {} writes",
            sched.total()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_surplus_the_receiver_stopped_before_is_a_mismatch() {
        let sender = SideOut {
            counted_in: 1001,
            ..SideOut::default()
        };
        let mut receiver = SideOut {
            messages: 1000,
            ..SideOut::default()
        };
        check_counted(&sender, &mut receiver);
        assert_eq!(
            receiver.mismatch.as_deref(),
            Some("the sender counted in 1001 but the receiver took out 1000")
        );
        let mut same = SideOut {
            messages: 1001,
            ..SideOut::default()
        };
        check_counted(&sender, &mut same);
        assert_eq!(same.mismatch, None);
    }

    #[test]
    fn a_probe_scales_to_the_repetition_time() {
        // 1000 messages in 2 ms: 125,000 take 250 ms.
        assert_eq!(scaled_count(1000, 2_000_000, 250_000_000), 125_000);
    }

    #[test]
    fn scaled_counts_stay_within_their_bounds() {
        assert_eq!(scaled_count(64, 1_000_000_000, 1_000_000), MIN_MESSAGES);
        assert_eq!(scaled_count(u64::MAX, 1, u64::MAX), MAX_MESSAGES);
        assert_eq!(scaled_count(100, 0, 1_000), MAX_MESSAGES.min(100_000));
    }

    #[test]
    fn a_fixed_byte_count_gives_a_fixed_message_count() {
        assert_eq!(messages_per_rep(64 << 10, 64), MIN_MESSAGES);
        assert_eq!(messages_per_rep(16 << 20, 4096), 4096);
        assert_eq!(messages_per_rep(16 << 20, 8), (16 << 20) / 64);
    }

    /// A pair whose receiver timed chunks of 64 KiB messages in `chunk_ns`
    /// each, its sides on `cpus`.
    fn pair(cpus: [usize; 2], chunk_ns: u64) -> [SideOut; 2] {
        let mut times = Latencies::new();
        for _ in 0..10 {
            times.record(chunk_ns);
        }
        let side = |cpu: usize| SideOut {
            cpus: vec![cpu],
            ..SideOut::default()
        };
        let mut receiver = side(cpus[1]);
        receiver.histogram = Some(times.to_v2());
        [side(cpus[0]), receiver]
    }

    #[test]
    fn pairs_that_take_turns_on_their_cpus_do_not_add_their_chunk_rates() {
        // 64 KiB in 1.6 us: about 41 GB/s a pair while it runs.
        let one = median_chunks_rate(&[pair([0, 0], 1600)], 64 << 10).unwrap();
        assert!((one / 1e9 - 40.96).abs() < 0.5, "{one}");
        // Four same-CPU pairs on two CPUs: two run at a time.
        let same: Vec<[SideOut; 2]> = [0, 1, 0, 1].iter().map(|&c| pair([c, c], 1600)).collect();
        let four = median_chunks_rate(&same, 64 << 10).unwrap();
        assert!((four / one - 2.0).abs() < 0.01, "{four} vs {one}");
        assert_eq!(at_once(&same), 2);
        // Four cross-CPU pairs on the same two CPUs: one at a time.
        let cross: Vec<[SideOut; 2]> = (0..4).map(|_| pair([0, 1], 1600)).collect();
        assert_eq!(at_once(&cross), 1);
        // Two same-CPU pairs on CPUs of their own run together.
        assert_eq!(at_once(&[pair([0, 0], 1600), pair([1, 1], 1600)]), 2);
    }
}
