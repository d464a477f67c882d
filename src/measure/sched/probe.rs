//! Whether the scheduler can be traced here, found by trying: load the
//! tracepoints' formats, trace every online CPU while a thread sleeps a few
//! times, and check that the tracer saw each of its sleeps.

use super::tracer::{Points, Tracer};
use super::{SchedLog, ThreadSched};
use crate::measure::clock::now_ns;
use crate::measure::pin::parse_cpu_list;
use crate::model::LatencyKind;
use std::time::Duration;

const ONLINE: &str = "/sys/devices/system/cpu/online";
const SELF_TEST_SLEEPS: u64 = 2;
const SELF_TEST_SLEEP: Duration = Duration::from_micros(200);

/// Available with what the self-test saw, or unavailable and why.
pub(crate) fn probe() -> Result<String, String> {
    let points = Points::load()?;
    let (tid, from, to, log) = trace_sleeper(&points, SELF_TEST_SLEEPS, SELF_TEST_SLEEP)?;
    let seen = log.of_thread(tid, from, to);
    let (sw, wk) = points.ids();
    let text = format!(
        "sched_switch id {sw}, sched_wakeup id {wk}; self-test: {}",
        describe(&seen, SELF_TEST_SLEEPS, log.lost)
    );
    if seen.blocks < SELF_TEST_SLEEPS {
        return Err(format!("events open but incomplete: {text}"));
    }
    Ok(text)
}

/// Traces every online CPU while a new thread sleeps `times` times;
/// returns that thread's id, the window it slept in, and the log.
pub(crate) fn trace_sleeper(
    points: &Points,
    times: u64,
    each: Duration,
) -> Result<(i32, u64, u64, SchedLog), String> {
    let cpus = crate::env::read_text(ONLINE)
        .map(|t| parse_cpu_list(&t))
        .filter(|c| !c.is_empty())
        .ok_or_else(|| format!("cannot read the online CPUs from {ONLINE}"))?;
    let tracer = Tracer::start(points, &cpus)?;
    let sleeper = std::thread::Builder::new()
        .name("iolab-sched-probe".into())
        .spawn(move || {
            let tid = rustix::thread::gettid().as_raw_nonzero().get();
            let from = now_ns();
            for _ in 0..times {
                std::thread::sleep(each);
            }
            (tid, from, now_ns())
        });
    let joined = sleeper.map(|h| h.join());
    let log = tracer.finish();
    match joined {
        Ok(Ok((tid, from, to))) => Ok((tid, from, to, log)),
        _ => Err("the self-test thread could not run".into()),
    }
}

fn describe(s: &ThreadSched, sleeps: u64, lost: u64) -> String {
    let us = |ns: u64| ns as f64 / 1e3;
    let worst = s.wakeup.summary(LatencyKind::PerCall).max;
    let queued = s.runqueue.summary(LatencyKind::PerCall).count;
    format!(
        "a thread that slept {sleeps} times: {} blocks ({:.0} us, histogram of {}), \
         {} wake-ups ({:.0} us latency, worst {:.0} us), {} preemptions \
         ({:.0} us on a run queue, {queued} waits), {} migrations, {lost} records lost",
        s.blocks,
        us(s.blocked_ns),
        s.blocked.summary(LatencyKind::PerCall).count,
        s.wakeups,
        us(s.wakeup_ns),
        us(worst),
        s.preemptions,
        us(s.runqueue_ns),
        s.migrations,
    )
}
