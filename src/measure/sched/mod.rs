//! The scheduler's own account of a thread: sched_switch and sched_wakeup
//! tracepoints recorded on every CPU (`tracer`), then attributed to one
//! thread over a time window: how long it slept until woken (blocked), how
//! long from its wake-up until it ran (wake-up latency), and how long it
//! waited runnable after being switched out (run-queue wait). Timestamps
//! are CLOCK_MONOTONIC, comparable with `measure::clock::now_ns`.

mod format;
mod probe;
mod tracer;

pub(crate) use probe::probe;

use crate::measure::histogram::Latencies;

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
    },
    Wakeup {
        time: u64,
        pid: i32,
        target_cpu: i32,
    },
}

impl Event {
    fn time(&self) -> u64 {
        match *self {
            Event::Switch { time, .. } | Event::Wakeup { time, .. } => time,
        }
    }
}

/// Every event recorded, in time order, and how many records were lost
/// (ring buffer overruns and throttlings).
#[derive(Debug, Default)]
pub(crate) struct SchedLog {
    pub(crate) events: Vec<Event>,
    pub(crate) lost: u64,
}

/// One thread's scheduling over a window.
#[derive(Default)]
pub(crate) struct ThreadSched {
    /// Switched out sleeping until woken.
    pub(crate) blocked_ns: u64,
    /// Woken until switched in.
    pub(crate) wakeup_ns: u64,
    /// Switched out runnable until switched in again.
    pub(crate) runqueue_ns: u64,
    pub(crate) blocks: u64,
    pub(crate) wakeups: u64,
    pub(crate) preemptions: u64,
    /// Switched in on another CPU than the one it was switched out of.
    pub(crate) migrations: u64,
    pub(crate) blocked: Latencies,
    pub(crate) wakeup: Latencies,
    pub(crate) runqueue: Latencies,
}

/// Where the thread is, as far as the events in the window tell.
#[derive(Clone, Copy)]
enum State {
    Unknown,
    Running,
    Blocked { since: u64 },
    Woken { at: u64 },
    Runnable { since: u64 },
}

impl SchedLog {
    pub(crate) fn new(mut events: Vec<Event>, lost: u64) -> SchedLog {
        events.sort_by_key(Event::time);
        SchedLog { events, lost }
    }

    /// Attributes the events stamped within `[from_ns, to_ns]` to thread
    /// `tid`; an interval that began before `from_ns` is not counted.
    pub(crate) fn of_thread(&self, tid: i32, from_ns: u64, to_ns: u64) -> ThreadSched {
        let mut out = ThreadSched::default();
        let mut state = State::Unknown;
        let mut last_cpu = None;
        let window = self
            .events
            .iter()
            .filter(|e| (from_ns..=to_ns).contains(&e.time()));
        for event in window {
            state = match *event {
                Event::Switch {
                    time,
                    cpu,
                    prev_pid,
                    prev_state,
                    ..
                } if prev_pid == tid => {
                    last_cpu = Some(cpu);
                    out.switched_out(time, prev_state)
                }
                Event::Switch {
                    time,
                    cpu,
                    next_pid,
                    ..
                } if next_pid == tid => {
                    if last_cpu.is_some_and(|c| c != cpu) {
                        out.migrations += 1;
                    }
                    out.switched_in(time, state)
                }
                Event::Wakeup { time, pid, .. } if pid == tid => out.woken(time, state),
                _ => state,
            };
        }
        out
    }
}

impl ThreadSched {
    fn switched_out(&mut self, time: u64, prev_state: i64) -> State {
        if prev_state & STATE_MASK == 0 {
            self.preemptions += 1;
            State::Runnable { since: time }
        } else {
            self.blocks += 1;
            State::Blocked { since: time }
        }
    }

    fn woken(&mut self, time: u64, state: State) -> State {
        match state {
            State::Blocked { since } => {
                let ns = time.saturating_sub(since);
                self.blocked_ns += ns;
                self.blocked.record(ns);
            }
            // Woken while running or runnable: nothing slept.
            State::Running | State::Runnable { .. } | State::Woken { .. } => return state,
            State::Unknown => {}
        }
        self.wakeups += 1;
        State::Woken { at: time }
    }

    fn switched_in(&mut self, time: u64, state: State) -> State {
        match state {
            State::Woken { at } => {
                let ns = time.saturating_sub(at);
                self.wakeup_ns += ns;
                self.wakeup.record(ns);
            }
            State::Runnable { since } => {
                let ns = time.saturating_sub(since);
                self.runqueue_ns += ns;
                self.runqueue.record(ns);
            }
            State::Unknown | State::Running | State::Blocked { .. } => {}
        }
        State::Running
    }
}

#[cfg(test)]
mod tests;
