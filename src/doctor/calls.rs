//! From a window's events to what each descriptor cost: every system call
//! paired from entry to exit with the time its thread spent off CPU inside
//! it, every wake-up a thread caused with the call it was in and how long
//! the woken thread took to run again, and each CPU-time sample placed in
//! the call it interrupted. A call that began before its window opened is
//! not counted (its entry is not in the log).

use super::syscalls::{self, Direction};
use crate::measure::watch::{Event, WindowLog};
use std::collections::{BTreeMap, HashMap};

/// One system call seen whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub(crate) tid: i32,
    pub(crate) nr: i64,
    /// When it was entered.
    pub(crate) start: u64,
    /// The descriptor, for calls that take one.
    pub(crate) fd: Option<i32>,
    /// The object behind `fd` at the time (its inode), where the watch
    /// could tell (`objects`).
    pub(crate) object: Option<u64>,
    /// Bytes moved, for calls that move bytes and succeeded.
    pub(crate) bytes: Option<u64>,
    /// The error of a failed call (EAGAIN, EINTR...).
    pub(crate) error: Option<i32>,
    /// The descriptor a successful accept, openat, dup... returned.
    pub(crate) opened: Option<i32>,
    pub(crate) direction: Direction,
    pub(crate) total_ns: u64,
    /// Switched out asleep inside the call until it next ran.
    pub(crate) blocked_ns: u64,
    /// Switched out while runnable inside the call until it next ran.
    pub(crate) preempted_ns: u64,
}

/// One wake-up a watched thread caused.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Wake {
    pub(crate) waker: i32,
    pub(crate) wakee: i32,
    pub(crate) cross_cpu: bool,
    /// The waker's call at the time (number and descriptor).
    pub(crate) during: Option<(i64, Option<i32>)>,
    /// When that call began, and the object it acted on (`objects`).
    pub(crate) call_start: Option<u64>,
    pub(crate) object: Option<u64>,
    /// Until the woken thread's next event, when it is watched.
    pub(crate) latency_ns: Option<u64>,
}

/// A CPU-time sample: its thread, the call it fell in, its kernel stack id
/// (0: user space).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tick {
    pub(crate) tid: i32,
    pub(crate) during: Option<(i64, Option<i32>)>,
    /// When that call began, and the object it acted on (`objects`).
    pub(crate) call_start: Option<u64>,
    pub(crate) object: Option<u64>,
    pub(crate) stack: u32,
}

/// What one window's events say.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    pub(crate) calls: Vec<Call>,
    pub(crate) wakes: Vec<Wake>,
    pub(crate) ticks: Vec<Tick>,
}

/// A call in progress on a thread.
struct Open {
    time: u64,
    nr: i64,
    arg0: u64,
    blocked_ns: u64,
    preempted_ns: u64,
}

/// A thread's state while walking the log.
#[derive(Default)]
struct Thread {
    call: Option<Open>,
    /// Switched out at this time, asleep or not, and not seen since.
    off: Option<(u64, bool)>,
}

pub(crate) fn analyse(log: &WindowLog) -> Analysis {
    let mut threads: HashMap<i32, Thread> = HashMap::new();
    let mut out = Analysis::default();
    let mut pending_wakes: Vec<(u64, Wake)> = Vec::new();
    for event in &log.events {
        let t = threads.entry(event.tid()).or_default();
        back_on_cpu(t, event.time());
        let during = t.call.as_ref().map(|c| (c.nr, fd_of(c.nr, c.arg0)));
        let call_start = t.call.as_ref().map(|c| c.time);
        match *event {
            Event::Enter { time, nr, arg0, .. } => {
                t.call = Some(Open {
                    time,
                    nr,
                    arg0,
                    blocked_ns: 0,
                    preempted_ns: 0,
                });
            }
            Event::Exit { tid, time, nr, ret } => {
                if let Some(open) = t.call.take().filter(|c| c.nr == nr) {
                    out.calls.push(finish(tid, open, time, ret));
                }
            }
            Event::Switch { time, sleeping, .. } => t.off = Some((time, sleeping)),
            Event::Waking {
                tid,
                time,
                cpu,
                wakee,
                target_cpu,
            } => pending_wakes.push((
                time,
                Wake {
                    waker: tid,
                    wakee,
                    cross_cpu: target_cpu >= 0 && target_cpu as u32 != cpu,
                    during,
                    call_start,
                    object: None,
                    latency_ns: None,
                },
            )),
            Event::Tick { tid, stack, .. } => out.ticks.push(Tick {
                tid,
                during,
                call_start,
                object: None,
                stack,
            }),
        }
    }
    out.wakes = with_latencies(log, pending_wakes);
    out
}

/// Closes a thread's time off CPU at `now`, charging it to its open call.
fn back_on_cpu(t: &mut Thread, now: u64) {
    if let Some((since, sleeping)) = t.off.take() {
        if let Some(call) = t.call.as_mut() {
            let off = now.saturating_sub(since);
            if sleeping {
                call.blocked_ns += off;
            } else {
                call.preempted_ns += off;
            }
        }
    }
}

fn fd_of(nr: i64, arg0: u64) -> Option<i32> {
    syscalls::lookup(nr)
        .filter(|s| s.on_fd)
        .map(|_| arg0 as i32)
}

fn finish(tid: i32, open: Open, exit_time: u64, ret: i64) -> Call {
    let known = syscalls::lookup(open.nr);
    // The raw result: -errno on failure (the kernel's range -4095..-1).
    let error = (-4095..0).contains(&ret).then(|| -ret as i32);
    Call {
        tid,
        nr: open.nr,
        start: open.time,
        fd: fd_of(open.nr, open.arg0),
        object: None,
        bytes: known
            .filter(|s| s.moves_bytes && ret >= 0)
            .map(|_| ret as u64),
        error,
        opened: known
            .filter(|s| s.opens && ret >= 0)
            .and_then(|_| i32::try_from(ret).ok()),
        direction: known.map_or(Direction::Other, |s| s.direction),
        total_ns: exit_time.saturating_sub(open.time),
        blocked_ns: open.blocked_ns,
        preempted_ns: open.preempted_ns,
    }
}

/// Each wake-up's latency: until the woken thread's first event after it,
/// when that thread is traced in the window.
fn with_latencies(log: &WindowLog, wakes: Vec<(u64, Wake)>) -> Vec<Wake> {
    let mut times: BTreeMap<i32, Vec<u64>> = BTreeMap::new();
    for e in &log.events {
        if !matches!(e, Event::Waking { .. }) {
            times.entry(e.tid()).or_default().push(e.time());
        }
    }
    wakes
        .into_iter()
        .map(|(at, mut wake)| {
            wake.latency_ns = times.get(&wake.wakee).and_then(|list| {
                let next = list.partition_point(|t| *t <= at);
                list.get(next).map(|t| t - at)
            });
            wake
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ: i64 = 0;
    const WRITE: i64 = 1;

    fn log(events: Vec<Event>) -> WindowLog {
        WindowLog {
            start: 0,
            end: 1_000_000,
            events,
            lost: 0,
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_blocking_read_woken_by_a_write_on_the_other_cpu() {
        let events = vec![
            Event::Enter {
                tid: 20,
                time: 100,
                nr: READ,
                arg0: 3,
                arg2: 64,
            },
            Event::Switch {
                tid: 20,
                time: 150,
                cpu: 1,
                sleeping: true,
                stack: 4,
            },
            Event::Enter {
                tid: 10,
                time: 200,
                nr: WRITE,
                arg0: 4,
                arg2: 64,
            },
            Event::Waking {
                tid: 10,
                time: 250,
                cpu: 0,
                wakee: 20,
                target_cpu: 1,
            },
            Event::Exit {
                tid: 10,
                time: 300,
                nr: WRITE,
                ret: 64,
            },
            Event::Exit {
                tid: 20,
                time: 1_250,
                nr: READ,
                ret: 64,
            },
            Event::Exit {
                tid: 10,
                time: 1_300,
                nr: READ,
                ret: 5,
            },
        ];
        let a = analyse(&log(events));
        assert_eq!(
            a.calls.len(),
            2,
            "the read without its entry is not counted"
        );
        let write = &a.calls[0];
        assert_eq!(
            (write.fd, write.bytes, write.total_ns),
            (Some(4), Some(64), 100)
        );
        let read = &a.calls[1];
        assert_eq!(
            (read.fd, read.bytes, read.total_ns),
            (Some(3), Some(64), 1_150)
        );
        assert_eq!((read.blocked_ns, read.preempted_ns), (1_100, 0));
        assert_eq!(a.wakes.len(), 1);
        let wake = &a.wakes[0];
        assert!(wake.cross_cpu);
        assert_eq!(wake.during, Some((WRITE, Some(4))));
        assert_eq!(wake.latency_ns, Some(1_000));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn preemption_inside_a_call_and_ticks_in_and_out_of_calls() {
        let events = vec![
            Event::Tick {
                tid: 10,
                time: 50,
                stack: 0,
            },
            Event::Enter {
                tid: 10,
                time: 100,
                nr: WRITE,
                arg0: 7,
                arg2: 9,
            },
            Event::Switch {
                tid: 10,
                time: 110,
                cpu: 0,
                sleeping: false,
                stack: 0,
            },
            Event::Tick {
                tid: 10,
                time: 400,
                stack: 3,
            },
            Event::Exit {
                tid: 10,
                time: 500,
                nr: WRITE,
                ret: -11,
            },
        ];
        let a = analyse(&log(events));
        assert_eq!(a.calls[0].preempted_ns, 290);
        assert_eq!(a.calls[0].bytes, None, "a failed write moved nothing");
        assert_eq!(a.calls[0].error, Some(11), "EAGAIN");
        assert_eq!(a.ticks[0].during, None);
        assert_eq!(a.ticks[1].during, Some((WRITE, Some(7))));
        assert_eq!(a.ticks[1].stack, 3);
    }
}
