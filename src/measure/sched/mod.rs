//! The scheduler's own account of a thread: sched_switch and sched_waking
//! tracepoints recorded on every CPU (`tracer`), then attributed to one
//! thread over time windows: how long it slept until something woke it
//! (blocked), how long from that wake-up until it ran (wake-up latency),
//! and how long it waited runnable after being preempted (run-queue wait).
//! Timestamps are CLOCK_MONOTONIC, comparable with `measure::clock::now_ns`.
//!
//! Switch-outs and wakings are recorded in the context of a running task,
//! so they are always seen; a switch-in out of the idle task is not on
//! every kernel (one VM kernel traces none on some CPUs). A switch-out
//! with no switch-in seen since the last one is counted as untraced, and
//! the interval it would have closed is not guessed.

pub(crate) mod format;
mod self_test;
mod syscalls;
mod tracer;

pub(crate) use self_test::{online_cpus, self_test};
pub(crate) use syscalls::SyscallCounter;
pub(crate) use tracer::{Duty, Points, Stacks, Tracer};

use crate::stats::histogram::Latencies;
use std::collections::HashMap;

/// `prev_state` bits below TASK_REPORT_MAX; none set means the thread was
/// still runnable when switched out (preempted), any set means it slept.
const STATE_MASK: i64 = 0xff;

/// One scheduler event, as the tracer decoded it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Event {
    Switch {
        time: u64,
        cpu: u32,
        prev_pid: i32,
        prev_state: i64,
        next_pid: i32,
        /// The switching thread's kernel call chain, as an id into
        /// `SchedLog::stacks` (0: not recorded).
        stack: u32,
    },
    /// `sched_waking`: a task asked the scheduler to wake `pid`.
    Waking { time: u64, pid: i32 },
}

impl Event {
    fn time(&self) -> u64 {
        match *self {
            Event::Switch { time, .. } | Event::Waking { time, .. } => time,
        }
    }
}

/// Every event recorded, in time order, how many records were lost (ring
/// buffer overruns and throttlings), and the switches' kernel call chains
/// (leaf first; chain id N is `stacks[N - 1]`).
#[derive(Debug, Default)]
pub(crate) struct SchedLog {
    pub(crate) events: Vec<Event>,
    pub(crate) lost: u64,
    pub(crate) stacks: Vec<Vec<u64>>,
    /// When the tracer was recording, sorted; None: all along.
    pub(crate) traced: Option<Vec<(u64, u64)>>,
}

/// One thread's scheduling over its windows.
#[derive(Default)]
pub(crate) struct ThreadSched {
    /// The time of the thread's windows, and the part of it the tracer
    /// recorded: every other figure covers only that part.
    pub(crate) window_ns: u64,
    pub(crate) traced_ns: u64,
    /// Switched out sleeping until a waking.
    pub(crate) blocked_ns: u64,
    /// Waking until switched in.
    pub(crate) wakeup_ns: u64,
    /// Switched out runnable (preempted) until switched in again.
    pub(crate) runqueue_ns: u64,
    pub(crate) blocks: u64,
    pub(crate) wakeups: u64,
    pub(crate) preemptions: u64,
    /// Switched out on another CPU than the time before.
    pub(crate) migrations: u64,
    /// Switch-outs with no switch-in seen since the one before.
    pub(crate) untraced_switch_ins: u64,
    pub(crate) blocked: Latencies,
    pub(crate) wakeup: Latencies,
    pub(crate) runqueue: Latencies,
    /// Time off CPU (blocked, waking and preempted) by the call chain the
    /// thread switched out with.
    pub(crate) offcpu: HashMap<u32, u64>,
}

impl ThreadSched {
    fn add(&mut self, other: ThreadSched) {
        self.window_ns += other.window_ns;
        self.traced_ns += other.traced_ns;
        self.blocked_ns += other.blocked_ns;
        self.wakeup_ns += other.wakeup_ns;
        self.runqueue_ns += other.runqueue_ns;
        self.blocks += other.blocks;
        self.wakeups += other.wakeups;
        self.preemptions += other.preemptions;
        self.migrations += other.migrations;
        self.untraced_switch_ins += other.untraced_switch_ins;
        self.blocked.merge(&other.blocked);
        self.wakeup.merge(&other.wakeup);
        self.runqueue.merge(&other.runqueue);
        for (stack, ns) in other.offcpu {
            *self.offcpu.entry(stack).or_default() += ns;
        }
    }
}

impl std::fmt::Debug for ThreadSched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} blocks {} ns, {} wake-ups {} ns, {} preemptions {} ns, \
             {} migrations, {} switch-ins untraced",
            self.blocks,
            self.blocked_ns,
            self.wakeups,
            self.wakeup_ns,
            self.preemptions,
            self.runqueue_ns,
            self.migrations,
            self.untraced_switch_ins
        )
    }
}

/// Where the thread is, as far as the events tell.
#[derive(Clone, Copy)]
enum State {
    Unknown,
    Running,
    Blocked { since: u64 },
    Woken { at: u64 },
    Runnable { since: u64 },
}

/// Time windows `[start, end]` in ns, sorted and not overlapping.
pub(crate) type Windows = [(u64, u64)];

/// A thread and the windows it is to be followed over.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Traced {
    pub(crate) tid: i32,
    pub(crate) windows: Vec<(u64, u64)>,
}

fn length(windows: &Windows) -> u64 {
    windows.iter().map(|(a, b)| b - a).sum()
}

/// The part of `[from, to]` inside the windows.
fn overlap(windows: &Windows, from: u64, to: u64) -> u64 {
    windows
        .iter()
        .map(|&(a, b)| to.min(b).saturating_sub(from.max(a)))
        .sum()
}

fn inside(windows: &Windows, t: u64) -> bool {
    windows.iter().any(|&(a, b)| (a..=b).contains(&t))
}

impl SchedLog {
    pub(crate) fn new(mut events: Vec<Event>, lost: u64) -> SchedLog {
        events.sort_by_key(Event::time);
        SchedLog {
            events,
            lost,
            stacks: Vec::new(),
            traced: None,
        }
    }

    /// The call chain of id `stack`, leaf first; empty for 0.
    pub(crate) fn stack(&self, stack: u32) -> &[u64] {
        let index = (stack as usize).wrapping_sub(1);
        self.stacks.get(index).map_or(&[], Vec::as_slice)
    }

    /// `of_thread` over several threads (one side's repetitions, each
    /// run by a new thread), added up.
    pub(crate) fn of_threads(&self, threads: &[Traced]) -> ThreadSched {
        let mut total = ThreadSched::default();
        for t in threads.iter().filter(|t| !t.windows.is_empty()) {
            let traced = self.traced_part(&t.windows);
            let mut one = self.of_thread(t.tid, &traced);
            one.window_ns = length(&t.windows);
            one.traced_ns = length(&traced);
            total.add(one);
        }
        total
    }

    /// The part of `windows` the tracer recorded.
    fn traced_part(&self, windows: &Windows) -> Vec<(u64, u64)> {
        let Some(traced) = &self.traced else {
            return windows.to_vec();
        };
        let mut part = Vec::new();
        for &(a, b) in windows {
            for &(c, d) in traced {
                let (from, to) = (a.max(c), b.min(d));
                if from < to {
                    part.push((from, to));
                }
            }
        }
        part.sort_unstable();
        part
    }

    /// Which recording window `t` falls in (0 when recorded all along).
    fn recording(&self, t: u64) -> usize {
        self.traced
            .as_ref()
            .map_or(0, |list| list.partition_point(|w| w.1 < t))
    }

    /// Attributes thread `tid`'s intervals to the windows: each interval
    /// counts for the part of it inside them, and enters its histogram
    /// when it ends inside one.
    pub(crate) fn of_thread(&self, tid: i32, windows: &Windows) -> ThreadSched {
        let mut t = Tracked {
            windows,
            out: ThreadSched::default(),
            state: State::Unknown,
            last_cpu: None,
            out_stack: 0,
        };
        let last = windows.last().map_or(0, |w| w.1);
        let mut recording = None;
        for event in self.events.iter().take_while(|e| e.time() <= last) {
            // Between recordings anything may have happened.
            let now = Some(self.recording(event.time()));
            if recording != now {
                (t.state, t.last_cpu, recording) = (State::Unknown, None, now);
            }
            match *event {
                Event::Switch {
                    time,
                    cpu,
                    prev_pid,
                    prev_state,
                    stack,
                    ..
                } if prev_pid == tid => t.switched_out(time, cpu, prev_state, stack),
                Event::Switch { time, next_pid, .. } if next_pid == tid => t.switched_in(time),
                Event::Waking { time, pid } if pid == tid => t.woken(time),
                _ => {}
            }
        }
        t.out
    }
}

/// One thread followed through the log.
struct Tracked<'a> {
    windows: &'a Windows,
    out: ThreadSched,
    state: State,
    last_cpu: Option<u32>,
    /// The call chain of the last switch-out.
    out_stack: u32,
}

impl Tracked<'_> {
    fn counts(&self, t: u64) -> bool {
        inside(self.windows, t)
    }

    /// Time of the current off-CPU interval inside the windows, also
    /// charged to the stack it began with.
    fn off_cpu(&mut self, from: u64, to: u64) -> u64 {
        let spent = overlap(self.windows, from, to);
        if self.out_stack != 0 && spent > 0 {
            *self.out.offcpu.entry(self.out_stack).or_default() += spent;
        }
        spent
    }

    fn switched_out(&mut self, time: u64, cpu: u32, prev_state: i64, stack: u32) {
        self.out_stack = stack;
        let counts = self.counts(time);
        if counts && !matches!(self.state, State::Running | State::Unknown) {
            self.out.untraced_switch_ins += 1;
        }
        if counts && self.last_cpu.is_some_and(|c| c != cpu) {
            self.out.migrations += 1;
        }
        self.last_cpu = Some(cpu);
        let runnable = prev_state & STATE_MASK == 0;
        match (runnable, counts) {
            (true, true) => self.out.preemptions += 1,
            (false, true) => self.out.blocks += 1,
            _ => {}
        }
        self.state = if runnable {
            State::Runnable { since: time }
        } else {
            State::Blocked { since: time }
        };
    }

    /// A waking while running or runnable ends no sleep.
    fn woken(&mut self, time: u64) {
        let State::Blocked { since } = self.state else {
            return;
        };
        let spent = self.off_cpu(since, time);
        self.out.blocked_ns += spent;
        if self.counts(time) {
            self.out.blocked.record(time - since);
            self.out.wakeups += 1;
        }
        self.state = State::Woken { at: time };
    }

    fn switched_in(&mut self, time: u64) {
        let ends_inside = self.counts(time);
        match self.state {
            State::Woken { at } => {
                self.out.wakeup_ns += self.off_cpu(at, time);
                if ends_inside {
                    self.out.wakeup.record(time - at);
                }
            }
            State::Runnable { since } => {
                self.out.runqueue_ns += self.off_cpu(since, time);
                if ends_inside {
                    self.out.runqueue.record(time - since);
                }
            }
            State::Unknown | State::Running | State::Blocked { .. } => {}
        }
        self.state = State::Running;
    }
}

#[cfg(test)]
mod tests;
