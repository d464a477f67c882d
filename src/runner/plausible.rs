//! Physics before figures: verification proves that what arrived is what
//! was sent, not that it arrived within the timed window. A figure that no
//! machine like this one could produce (bytes faster than its memory
//! copies them, messages faster than its CPUs enter the kernel, a latency
//! below the clock's resolution) fails its case, with the figure and the
//! bound named, instead of standing as a fast result.
//!
//! A bound can only err on the side of a valid case: it is measured
//! several times and the loosest reading stands; it is never tighter than
//! a figure the run measured (the `limits` memcpy); and before a case
//! fails, it is measured again there and then (`measured_again`), so a
//! reading taken at one slow moment never fails a valid case.

use crate::format::human;
use crate::model::{BoundsSeen, CaseResult, Closest, Metric};
use crate::scenario::Fault;
use std::sync::Mutex;

/// Every byte a side receives is copied once at least, and no CPU copies
/// faster than its cache-resident memcpy; the host's speed shifts by up to
/// 2x between moments of one run here, so a figure is impossible only past
/// twice the bound measured at another moment. The same slack applies to
/// the system-call rate.
const HOST_SHIFT: f64 = 2.0;

/// Readings in one measurement of the bounds; the loosest stands.
const READINGS: usize = 3;

/// This run's machine limits, measured in the run (`scenario::limits`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bounds {
    /// The fastest copy: a cache-resident buffer.
    pub(crate) memcpy_bytes_per_s: f64,
    /// The fastest system call's cost.
    pub(crate) syscall_ns: f64,
    pub(crate) clock_resolution_ns: f64,
}

/// The loosest bounds the run has read so far.
static SEEN: Mutex<Option<Bounds>> = Mutex::new(None);

/// What the run's checks found: how often the bounds were measured again,
/// and the ok figure nearest its bound.
static FOUND: Mutex<(u32, Option<Closest>)> = Mutex::new((0, None));

/// Starts a run afresh: its bounds are measured at their first use.
pub(crate) fn start_run() {
    *SEEN.lock().unwrap_or_else(|e| e.into_inner()) = None;
    *FOUND.lock().unwrap_or_else(|e| e.into_inner()) = (0, None);
}

/// The run's bounds as they ended, with what its checks found; None when
/// no case was held to them.
pub(crate) fn seen() -> Option<BoundsSeen> {
    let bounds = (*SEEN.lock().unwrap_or_else(|e| e.into_inner()))?.floored();
    let (measured_again, closest) = FOUND.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Some(BoundsSeen {
        memcpy_bytes_per_s: bounds.memcpy_bytes_per_s,
        syscall_ns: bounds.syscall_ns,
        measured_again,
        closest,
    })
}

impl Bounds {
    /// This run's bounds as they stand: measured at first use, loosened
    /// by every later reading and never tighter than the run's `limits`
    /// memcpy figure. `--fault slow-bound` slows the first measurement
    /// tenfold, as a host at its slowest moment would.
    pub(crate) fn of_this_run(fault: Option<Fault>) -> Bounds {
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        let first = || {
            let b = measured();
            match fault {
                Some(Fault::SlowBound) => b.slowed(10.0),
                _ => b,
            }
        };
        seen.get_or_insert_with(first).floored()
    }

    /// The bounds measured again now, folded into the run's.
    pub(crate) fn measured_again() -> Bounds {
        let fresh = measured();
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        let now = seen.map_or(fresh, |b| b.loosest(fresh));
        *seen = Some(now);
        now.floored()
    }

    /// The looser of two bounds: the faster copy, the cheaper call.
    fn loosest(self, other: Bounds) -> Bounds {
        Bounds {
            memcpy_bytes_per_s: self.memcpy_bytes_per_s.max(other.memcpy_bytes_per_s),
            syscall_ns: self.syscall_ns.min(other.syscall_ns),
            clock_resolution_ns: self.clock_resolution_ns,
        }
    }

    /// Never below the run's `limits` memcpy figure.
    fn floored(self) -> Bounds {
        let memcpy = crate::scenario::limits::run_memcpy_if_measured().unwrap_or(0.0);
        Bounds {
            memcpy_bytes_per_s: self.memcpy_bytes_per_s.max(memcpy),
            ..self
        }
    }

    fn slowed(self, by: f64) -> Bounds {
        Bounds {
            memcpy_bytes_per_s: self.memcpy_bytes_per_s / by,
            syscall_ns: self.syscall_ns * by,
            ..self
        }
    }
}

/// `READINGS` readings of the bounds, the loosest of them.
fn measured() -> Bounds {
    (0..READINGS)
        .map(|_| Bounds {
            memcpy_bytes_per_s: crate::scenario::limits::peak_memcpy_reading(),
            syscall_ns: crate::scenario::limits::syscall_reading(),
            clock_resolution_ns: clock_resolution_ns(),
        })
        .reduce(Bounds::loosest)
        .expect("at least one reading")
}

/// Why `out`'s figures cannot be true on this machine, judged against
/// the run's bounds and, where they say impossible, against the bounds
/// measured again there and then; or None.
pub(crate) fn beyond_doubt(out: &CaseResult, fault: Option<Fault>, reach: Reach) -> Option<String> {
    let first = Bounds::of_this_run(fault);
    let Some(_) = beyond(out, &first, reach) else {
        note_closest(out, &first, reach);
        return None;
    };
    FOUND.lock().unwrap_or_else(|e| e.into_inner()).0 += 1;
    let again = Bounds::measured_again();
    let Some(why) = beyond(out, &again, reach) else {
        note_closest(out, &again, reach);
        return None;
    };
    Some(format!(
        "{why} (its bounds measured again before failing it, the loosest of {READINGS} readings)"
    ))
}

/// Keeps `out` as the run's closest figure if it came nearer its bound.
fn note_closest(out: &CaseResult, bounds: &Bounds, reach: Reach) {
    let Some(ratio) = nearest(out, bounds, reach) else {
        return;
    };
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    if found.1.as_ref().is_none_or(|c| ratio > c.ratio) {
        let case = format!("{} {}", out.scenario, out.case);
        found.1 = Some(Closest { case, ratio });
    }
}

/// The highest of `out`'s figure/bound ratios (bytes and messages).
fn nearest(out: &CaseResult, bounds: &Bounds, reach: Reach) -> Option<f64> {
    let cpus = reach.cpus.max(1) as f64;
    let bytes = |_: &str, m: &Metric| m.unit == "bytes/s";
    let msgs = |name: &str, _: &Metric| reach.calls_per_send && name == MSGS_PER_S;
    let of_bytes =
        highest(out, bytes).map(|(_, r)| r / (bounds.memcpy_bytes_per_s * HOST_SHIFT * cpus));
    let of_msgs =
        highest(out, msgs).map(|(_, r)| r * bounds.syscall_ns / (HOST_SHIFT * cpus * 1e9));
    of_bytes.into_iter().chain(of_msgs).reduce(f64::max)
}

fn clock_resolution_ns() -> f64 {
    let res = rustix::time::clock_getres(rustix::time::ClockId::Monotonic);
    (res.tv_sec as f64 * 1e9 + res.tv_nsec as f64).max(1.0)
}

/// What a case's figures may reach: how many CPUs its sides ran on, and
/// whether each message it counts costs a system call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reach {
    pub(crate) cpus: usize,
    pub(crate) calls_per_send: bool,
}

/// Why `out`'s figures cannot be true on this machine, or None.
pub(crate) fn beyond(out: &CaseResult, bounds: &Bounds, reach: Reach) -> Option<String> {
    let cpus = reach.cpus.max(1) as f64;
    let bytes_bound = bounds.memcpy_bytes_per_s * HOST_SHIFT * cpus;
    let bytes = |_: &str, m: &Metric| m.unit == "bytes/s";
    if let Some((name, rate)) = highest(out, bytes).filter(|(_, r)| *r > bytes_bound) {
        return Some(format!(
            "{name} {} is beyond this machine: over {HOST_SHIFT}x this run's fastest memcpy \
             ({}, a cache-resident buffer) on each of the {} CPU(s) the case ran on ({}); \
             the data cannot have moved within the timed window",
            human(rate, "bytes/s"),
            human(bounds.memcpy_bytes_per_s, "bytes/s"),
            reach.cpus.max(1),
            human(bytes_bound, "bytes/s"),
        ));
    }
    let msgs_bound = HOST_SHIFT * cpus * 1e9 / bounds.syscall_ns;
    let msgs = |name: &str, _: &Metric| reach.calls_per_send && name == MSGS_PER_S;
    if let Some((name, rate)) = highest(out, msgs).filter(|(_, r)| *r > msgs_bound) {
        return Some(format!(
            "{name} {} is beyond this machine: each message costs a system call, and \
             this run's fastest takes {} on each of the {} CPU(s) the case ran on \
             (at most {}, with {HOST_SHIFT}x for the host's shifts)",
            human(rate, "1/s"),
            human(bounds.syscall_ns, "ns"),
            reach.cpus.max(1),
            human(msgs_bound, "1/s"),
        ));
    }
    let latency = out.latency.as_ref()?;
    (latency.count > 0 && (latency.p50 as f64) < bounds.clock_resolution_ns).then(|| {
        format!(
            "median latency {} ns is below the clock's resolution ({} ns): the operations \
             were not timed",
            latency.p50, bounds.clock_resolution_ns
        )
    })
}

/// The message rate that costs a system call per message where the
/// mechanism's sends enter the kernel (`stream`, `fan-in`, `hackbench`).
const MSGS_PER_S: &str = "msgs_per_s";

/// The highest figure (the value or any repetition) among the metrics
/// `pick` selects, with its metric's name.
fn highest(out: &CaseResult, pick: impl Fn(&str, &Metric) -> bool) -> Option<(&str, f64)> {
    out.metrics
        .iter()
        .filter(|(name, m)| pick(name, m))
        .flat_map(|(name, m)| {
            std::iter::once(m.value)
                .chain(m.reps.iter().copied())
                .map(move |v| (name.as_str(), v))
        })
        .filter(|(_, v)| v.is_finite())
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LatencyKind, LatencySummary};

    const BOUNDS: Bounds = Bounds {
        memcpy_bytes_per_s: 10e9,
        syscall_ns: 50.0,
        clock_resolution_ns: 1.0,
    };

    fn with(metric: &str, unit: &str, reps: &[f64]) -> CaseResult {
        let mut r = CaseResult::new("stream", "pipe/cross-cpu/processes/8 B", Default::default());
        let metric_value = Metric {
            value: reps[reps.len() / 2],
            unit: unit.into(),
            min: None,
            max: None,
            reps: reps.to_vec(),
        };
        r.metrics.insert(metric.into(), metric_value);
        r
    }

    const TWO_CPUS: Reach = Reach {
        cpus: 2,
        calls_per_send: true,
    };

    #[test]
    fn a_byte_rate_past_two_fastest_memcpys_per_cpu_is_named_with_its_bound() {
        let fine = with("bytes_per_s", "bytes/s", &[1e9, 2e9, 39e9]);
        assert_eq!(beyond(&fine, &BOUNDS, TWO_CPUS), None);
        let phantom = with("bytes_per_s", "bytes/s", &[1e9, 2e9, 267e9]);
        let why = beyond(&phantom, &BOUNDS, TWO_CPUS).unwrap();
        assert!(
            why.starts_with("bytes_per_s 267 GB/s is beyond this machine"),
            "{why}"
        );
        assert!(
            why.contains("(10.0 GB/s, a cache-resident buffer)"),
            "{why}"
        );
        assert!(
            why.contains("the 2 CPU(s) the case ran on (40.0 GB/s)"),
            "{why}"
        );
    }

    #[test]
    fn a_message_rate_past_the_system_call_rate_counts_only_where_sends_are_calls() {
        // 2 CPUs at 50 ns a call, twice for the host's shifts: 80 M calls/s.
        let fast = with("msgs_per_s", "1/s", &[1e6, 90e6]);
        let why = beyond(&fast, &BOUNDS, TWO_CPUS).unwrap();
        assert!(why.starts_with("msgs_per_s 90.0 M/s is beyond"), "{why}");
        assert!(why.contains("(at most 80.0 M/s, with 2x"), "{why}");
        let shared_memory = Reach {
            calls_per_send: false,
            ..TWO_CPUS
        };
        assert_eq!(beyond(&fast, &BOUNDS, shared_memory), None);
        let other_rate = with("ops_per_s", "1/s", &[90e6]);
        assert_eq!(beyond(&other_rate, &BOUNDS, TWO_CPUS), None);
    }

    #[test]
    fn a_median_latency_below_the_clock_resolution_was_not_timed() {
        let mut r = with("rtt_ns", "ns", &[100.0]);
        let mut latency = LatencySummary {
            kind: LatencyKind::RoundTrip,
            unit: "ns".into(),
            count: 1000,
            mean: 0.2,
            p50: 0,
            p90: 0,
            p99: 1,
            p99_9: 1,
            max: 1,
        };
        r.latency = Some(latency.clone());
        let why = beyond(&r, &BOUNDS, TWO_CPUS).unwrap();
        assert_eq!(
            why,
            "median latency 0 ns is below the clock's resolution (1 ns): the operations were not timed"
        );
        latency.p50 = 1;
        r.latency = Some(latency);
        assert_eq!(beyond(&r, &BOUNDS, TWO_CPUS), None);
    }
}
