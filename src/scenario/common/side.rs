//! What a side of a two-sided scenario reports back to the runner, and the
//! schedule both sides follow: untimed warm-up messages, then `reps`
//! repetitions of `count` messages, with CPU counters read at each boundary.

use crate::measure::kcounters::run_queue_ns;
use crate::measure::pin::current_cpu;
use crate::measure::sched::{SyscallCounter, Traced};
use crate::model::{CpuUsage, Side};
use crate::scenario::common::explain::syscall_counter;
use crate::scenario::Fault;
use crate::sys::rusage::{usage, Usage, Who};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct Schedule {
    pub(crate) warmup: u64,
    pub(crate) reps: u64,
    pub(crate) count: u64,
    /// Read the run-queue wait at repetition boundaries (`--explain`).
    #[serde(default)]
    pub(crate) explain: bool,
}

impl Schedule {
    pub(crate) fn total(&self) -> u64 {
        self.warmup + self.reps * self.count
    }

    pub(crate) fn rep_ends(&self) -> RepEnds {
        RepEnds {
            next_last: self.warmup + self.count.max(1) - 1,
            count: self.count.max(1),
        }
    }

    /// The message the test-only fault damages: half-way through the
    /// first repetition, so a run that goes on past it is caught.
    pub(crate) fn fault_at(&self, fault: Option<Fault>) -> Option<u64> {
        self.at_fault(fault, Fault::Corrupt)
    }

    /// The message before which the test-only stall sleeps, as `fault_at`.
    pub(crate) fn stall_at(&self, fault: Option<Fault>) -> Option<u64> {
        self.at_fault(fault, Fault::Stall)
    }

    fn at_fault(&self, fault: Option<Fault>, kind: Fault) -> Option<u64> {
        (fault == Some(kind)).then_some(self.warmup + self.count / 2)
    }

    /// The repetition that ends with message `seq` (counted from 0), if any.
    pub(crate) fn rep_ending_at(&self, seq: u64) -> Option<u64> {
        let after = seq + 1;
        (after > self.warmup && (after - self.warmup).is_multiple_of(self.count))
            .then(|| (after - self.warmup) / self.count - 1)
    }
}

/// Where repetitions end, asked message by message in order: a comparison
/// per message instead of `rep_ending_at`'s division, for the fastest loops.
pub(crate) struct RepEnds {
    next_last: u64,
    count: u64,
}

impl RepEnds {
    /// True when message `seq` is the last of a repetition; `seq` must
    /// visit every message in order.
    #[inline(always)]
    pub(crate) fn at(&mut self, seq: u64) -> bool {
        if seq != self.next_last {
            return false;
        }
        self.next_last += self.count;
        true
    }
}

/// One side's report. Verification failures are data (`mismatch`), not
/// errors, so the tally up to the failure is kept.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct SideOut {
    pub(crate) cpus: Vec<usize>,
    /// Wall time of each repetition, as this side saw it.
    pub(crate) rep_ns: Vec<u64>,
    /// CPU counters of each repetition.
    pub(crate) rep_usage: Vec<Usage>,
    /// HdrHistogram V2 of per-operation latencies, if this side timed them.
    pub(crate) histogram: Option<Vec<u8>>,
    /// Messages and bytes this side received and verified.
    pub(crate) messages: u64,
    pub(crate) bytes: u64,
    pub(crate) mismatch: Option<String>,
    /// System calls the mechanism made for this side, if it counts them.
    #[serde(default)]
    pub(crate) syscalls: Option<u64>,
    /// ns this side waited on a run queue over the timed repetitions
    /// (`--explain`; none when the kernel keeps no scheduler statistics).
    #[serde(default)]
    pub(crate) run_queue_ns: Option<u64>,
    /// The side's thread and each timed repetition's `[start, end]` on
    /// CLOCK_MONOTONIC, for the scheduler tracer (`--explain`); one entry
    /// per thread that ran the side.
    #[serde(default)]
    pub(crate) threads: Vec<Traced>,
    /// System calls of the side's thread over the first half of its
    /// warm-up (or its first timed repetition without one), as the kernel
    /// counted them
    /// (`--explain` where tracepoints may be used).
    #[serde(default)]
    pub(crate) syscalls_counted: Option<u64>,
    /// The operations `syscalls_counted` spans: half the warm-up's; 0 for
    /// the first timed repetition.
    #[serde(default)]
    pub(crate) syscalls_ops: u64,
    /// What a counter mechanism's sender added up in all (stream).
    #[serde(default)]
    pub(crate) counted_in: u64,
    /// The sum of each repetition's timed latencies, when they are not
    /// back to back (open loop: from each request's intended send time).
    #[serde(default)]
    pub(crate) rep_sum_ns: Vec<u64>,
}

/// Reads CPU counters and the CPU at repetition boundaries.
pub(crate) struct Meter {
    last: Usage,
    last_ns: u64,
    /// The run-queue wait at the last mark, when `--explain` reads it.
    last_rq: Option<u64>,
    /// The system call counter and its reading at the last mark.
    syscalls: Option<(SyscallCounter, u64)>,
    /// The warm-up's system calls and operations, for the first mark.
    warmup_calls: Option<(u64, u64)>,
}

impl Meter {
    pub(crate) fn start(out: &mut SideOut) -> Meter {
        out.cpus.push(current_cpu());
        out.threads.push(Traced {
            tid: rustix::thread::gettid().as_raw_nonzero().get(),
            windows: Vec::new(),
        });
        Meter {
            last: thread_usage(),
            last_ns: crate::measure::clock::now_ns(),
            last_rq: None,
            syscalls: None,
            warmup_calls: None,
        }
    }

    /// Closes a repetition: its wall time and CPU counters since the last mark.
    pub(crate) fn mark(&mut self, out: &mut SideOut) {
        let now_ns = crate::measure::clock::now_ns();
        if let Some((calls, ops)) = self.warmup_calls.take() {
            (out.syscalls_counted, out.syscalls_ops) = (Some(calls), ops);
        }
        // Without a warm-up, over the first timed repetition only: while
        // the counter exists, every system call on the machine takes the
        // slow path.
        if let Some((mut counter, last)) = self.syscalls.take() {
            let cost = counter.read_cost();
            out.syscalls_counted = Some(counter.read().saturating_sub(last + cost));
        }
        let now = thread_usage();
        out.rep_ns.push(now_ns - self.last_ns);
        if let Some(thread) = out.threads.last_mut() {
            thread.windows.push((self.last_ns, now_ns));
        }
        out.rep_usage.push(now.since(self.last));
        (self.last, self.last_ns) = (now, now_ns);
        if let Some(last) = self.last_rq {
            self.last_rq = run_queue_ns();
            out.run_queue_ns = self
                .last_rq
                .map(|now| out.run_queue_ns.unwrap_or(0) + now.saturating_sub(last));
            // The /proc read is bookkeeping: the next repetition starts after it.
            self.last_ns = crate::measure::clock::now_ns();
        }
        let cpu = current_cpu();
        if !out.cpus.contains(&cpu) {
            out.cpus.push(cpu);
        }
        self.restart_syscalls();
    }

    fn restart_syscalls(&mut self) {
        if let Some((counter, last)) = self.syscalls.as_mut() {
            *last = counter.read();
        }
    }

    /// Closes the system call count over the warm-up's first `ops`
    /// operations: the counter is gone before the timed repetitions start.
    fn count_warmup(&mut self, ops: u64) {
        if let Some((mut counter, last)) = self.syscalls.take() {
            let cost = counter.read_cost();
            self.warmup_calls = Some((counter.read().saturating_sub(last + cost), ops));
        }
    }

    /// Restarts the clock without closing a repetition (end of warm-up).
    pub(crate) fn reset(&mut self) {
        if self.last_rq.is_some() {
            self.last_rq = run_queue_ns();
        }
        self.last = thread_usage();
        self.restart_syscalls();
        self.last_ns = crate::measure::clock::now_ns();
    }
}

/// A side's repetitions as its loop goes message by message: the meter
/// restarts when warm-up ends and closes each repetition at its last
/// message.
pub(crate) struct Reps {
    meter: Meter,
    ends: RepEnds,
    warmup: u64,
    /// The message before which the system call count closes: half-way
    /// through the warm-up (never without one). Closing the counter waits out an RCU grace
    /// period (some 40 ms here), and the peer must not wait that long in
    /// a timed repetition.
    counted_until: u64,
}

impl Reps {
    pub(crate) fn start(sched: &Schedule, out: &mut SideOut) -> Reps {
        let mut meter = Meter::start(out);
        meter.last_rq = sched.explain.then(run_queue_ns).flatten();
        if sched.explain {
            meter.syscalls = syscall_counter().ok().map(|mut c| {
                let now = c.read();
                (c, now)
            });
        }
        Reps {
            meter,
            ends: sched.rep_ends(),
            warmup: sched.warmup,
            counted_until: match sched.warmup {
                0 => u64::MAX,
                w => (w / 2).max(1),
            },
        }
    }

    /// Before message `seq`: closes the system call count half-way
    /// through the warm-up, restarts the meter if warm-up ends here.
    #[inline(always)]
    pub(crate) fn begin(&mut self, seq: u64) {
        if seq == self.counted_until {
            self.meter.count_warmup(seq);
        }
        if seq == self.warmup {
            self.meter.reset();
        }
    }

    /// True when message `seq` is the last of a repetition; the caller
    /// then `mark`s it (after timing it, if it times round trips).
    #[inline(always)]
    pub(crate) fn ends_at(&mut self, seq: u64) -> bool {
        self.ends.at(seq)
    }

    pub(crate) fn mark(&mut self, out: &mut SideOut) {
        self.meter.mark(out);
    }

    /// After message `seq`: closes the repetition it ends, if any.
    #[inline(always)]
    pub(crate) fn end(&mut self, seq: u64, out: &mut SideOut) {
        if self.ends.at(seq) {
            self.meter.mark(out);
        }
    }
}

fn thread_usage() -> Usage {
    usage(Who::Thread).unwrap_or_default()
}

pub(crate) fn cpu_usage(u: Usage) -> CpuUsage {
    CpuUsage {
        user_s: u.user_ns as f64 / 1e9,
        sys_s: u.sys_ns as f64 / 1e9,
        voluntary_csw: u.voluntary_csw,
        involuntary_csw: u.involuntary_csw,
    }
}

/// The metric `syscalls_per_msg` reports, for every two-sided scenario.
pub(crate) const SYSCALLS_PER_MSG: crate::scenario::MetricSpec = crate::scenario::MetricSpec {
    name: "syscalls_per_msg",
    unit: "calls",
    about: "system calls (both sides) per message, where the mechanism counts them (shm)",
};

impl SideOut {
    pub(crate) fn total_usage(&self) -> Usage {
        self.rep_usage
            .iter()
            .fold(Usage::default(), |acc, u| acc.plus(*u))
    }

    pub(crate) fn side(&self, role: &str) -> Side {
        Side {
            role: role.to_string(),
            cpus: self.cpus.clone(),
            cpu: cpu_usage(self.total_usage()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetitions_end_after_warmup_in_count_steps() {
        let s = Schedule {
            warmup: 3,
            reps: 2,
            count: 4,
            explain: false,
        };
        assert_eq!(s.total(), 11);
        let ends: Vec<(u64, u64)> = (0..s.total())
            .filter_map(|q| s.rep_ending_at(q).map(|r| (q, r)))
            .collect();
        assert_eq!(ends, vec![(6, 0), (10, 1)]);
    }

    #[test]
    fn rep_ends_agree_with_rep_ending_at() {
        for (warmup, reps, count) in [(3, 2, 4), (0, 3, 1), (10, 1, 7)] {
            let s = Schedule {
                warmup,
                reps,
                count,
                explain: false,
            };
            let mut ends = s.rep_ends();
            for seq in 0..s.total() {
                assert_eq!(ends.at(seq), s.rep_ending_at(seq).is_some(), "{seq}");
            }
        }
    }

    #[test]
    fn no_warmup_works() {
        let s = Schedule {
            warmup: 0,
            reps: 1,
            count: 1,
            explain: false,
        };
        assert_eq!(s.rep_ending_at(0), Some(0));
    }
}
