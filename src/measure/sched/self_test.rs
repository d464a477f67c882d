//! Whether the scheduler can be traced here, found by trying: load the
//! tracepoints' formats, trace every online CPU while one thread wakes
//! another a few times, and check that the tracer saw each sleep and
//! wake-up.

use super::tracer::{Duty, Points, Tracer};
use super::{SchedLog, ThreadSched};
use crate::measure::clock::now_ns;
use crate::measure::pin::parse_cpu_list;
use std::sync::mpsc;
use std::time::Duration;

const ONLINE: &str = "/sys/devices/system/cpu/online";
const SELF_TEST_WAKES: u64 = 3;
const SELF_TEST_PAUSE: Duration = Duration::from_micros(200);

/// Available with what the self-test saw, or unavailable and why.
pub(crate) fn self_test() -> Result<String, String> {
    let points = Points::load()?;
    let (tid, window, log) = trace_woken_thread(&points, SELF_TEST_WAKES, SELF_TEST_PAUSE)?;
    let seen = log.of_thread(tid, &[window]);
    let text = format!("self-test: {}", describe(&seen, SELF_TEST_WAKES, log.lost));
    if seen.blocks < SELF_TEST_WAKES || seen.wakeups < SELF_TEST_WAKES {
        return Err(format!("events open but incomplete: {text}"));
    }
    Ok(text)
}

/// The online CPUs, all of which a tracer watches.
pub(crate) fn online_cpus() -> Result<Vec<usize>, String> {
    crate::sys::kernel_text::read_text(ONLINE)
        .map(|t| parse_cpu_list(&t))
        .filter(|c| !c.is_empty())
        .ok_or_else(|| format!("cannot read the online CPUs from {ONLINE}"))
}

/// Traces every online CPU while a new thread waits `times` times for a
/// message this thread sends after `pause`; returns the waiting thread's
/// id, the window it waited in, and the log.
pub(crate) fn trace_woken_thread(
    points: &Points,
    times: u64,
    pause: Duration,
) -> Result<(i32, (u64, u64), SchedLog), String> {
    // One window long enough for every wake-up, on a loaded host too.
    let duty = Duty {
        on: Duration::from_millis(200),
        period: Duration::from_secs(1),
    };
    let tracer = Tracer::start(points, &online_cpus()?, false, duty)?;
    let (tx, rx) = mpsc::channel::<()>();
    let (ack_tx, acks) = mpsc::channel::<()>();
    let waiter = std::thread::Builder::new()
        .name("iolab-sched-probe".into())
        .spawn(move || {
            let tid = rustix::thread::gettid().as_raw_nonzero().get();
            let from = now_ns();
            // Each message is sent `pause` after the waiter said it waits
            // for it: a waiter that ran late, on a loaded host, would find
            // messages queued and not block for them.
            let _ = ack_tx.send(());
            let got = (0..times)
                .filter(|_| rx.recv().is_ok() && ack_tx.send(()).is_ok())
                .count() as u64;
            (tid, (from, now_ns()), got)
        });
    if waiter.is_ok() {
        for _ in 0..times {
            if acks.recv().is_err() {
                break;
            }
            std::thread::sleep(pause);
            let _ = tx.send(());
        }
    }
    let joined = waiter.map(|h| h.join());
    let log = tracer.finish();
    match joined {
        Ok(Ok((tid, window, got))) if got == times => Ok((tid, window, log)),
        _ => Err("the self-test thread could not run".into()),
    }
}

fn describe(s: &ThreadSched, wakes: u64, lost: u64) -> String {
    let us = |ns: u64| ns as f64 / 1e3;
    format!(
        "a thread woken {wakes} times: {} blocks ({:.0} us), {} wake-ups \
         ({:.0} us to run), {} switch-ins untraced, {lost} records lost",
        s.blocks,
        us(s.blocked_ns),
        s.wakeups,
        us(s.wakeup_ns),
        s.untraced_switch_ins,
    )
}
