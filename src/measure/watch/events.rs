//! What a watch window recorded, decoded: each thread's system calls
//! (entry with its descriptor and byte count, exit with its result), its
//! switches out, the wake-ups it caused, and where its CPU time went
//! (sampled kernel call chains).

use super::points::Points;
use super::sample::Sample;
use crate::measure::sched::Stacks;

/// Which event a ring buffer holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Source {
    Enter,
    Exit,
    Switch,
    Waking,
    CpuClock,
}

impl Source {
    pub(super) const ALL: [Source; 5] = [
        Source::Enter,
        Source::Exit,
        Source::Switch,
        Source::Waking,
        Source::CpuClock,
    ];

    pub(super) fn has_chain(self) -> bool {
        matches!(self, Source::Switch | Source::CpuClock)
    }

    pub(super) fn has_raw(self) -> bool {
        self != Source::CpuClock
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Event {
    Enter {
        tid: i32,
        time: u64,
        nr: i64,
        arg0: u64,
        arg2: u64,
    },
    Exit {
        tid: i32,
        time: u64,
        nr: i64,
        ret: i64,
    },
    /// The thread left its CPU: asleep (`sleeping`) or preempted.
    Switch {
        tid: i32,
        time: u64,
        cpu: u32,
        sleeping: bool,
        stack: u32,
    },
    /// Thread `tid`, running on `cpu`, woke `wakee` for `target_cpu`.
    Waking {
        tid: i32,
        time: u64,
        cpu: u32,
        wakee: i32,
        target_cpu: i32,
    },
    /// A CPU-time sample of the thread, with its kernel call chain (0: it
    /// was in user space).
    Tick { tid: i32, time: u64, stack: u32 },
}

impl Event {
    pub(crate) fn time(&self) -> u64 {
        match *self {
            Event::Enter { time, .. }
            | Event::Exit { time, .. }
            | Event::Switch { time, .. }
            | Event::Waking { time, .. }
            | Event::Tick { time, .. } => time,
        }
    }

    pub(crate) fn tid(&self) -> i32 {
        match *self {
            Event::Enter { tid, .. }
            | Event::Exit { tid, .. }
            | Event::Switch { tid, .. }
            | Event::Waking { tid, .. }
            | Event::Tick { tid, .. } => tid,
        }
    }
}

/// `prev_state` bits below TASK_REPORT_MAX; none set means the thread was
/// still runnable when switched out (preempted).
const STATE_MASK: i64 = 0xff;

/// One sample of `source` as an event; None when the record is short.
pub(super) fn decode(
    points: &Points,
    source: Source,
    s: &Sample,
    stacks: &mut Stacks,
) -> Option<Event> {
    let (tid, time, cpu) = (s.tid, s.time, s.cpu);
    Some(match source {
        Source::Enter => {
            let f = points.sys_enter.1;
            Event::Enter {
                tid,
                time,
                nr: f.id.read(s.raw)?,
                arg0: f.arg0.read(s.raw)? as u64,
                arg2: f.arg2.read(s.raw)? as u64,
            }
        }
        Source::Exit => {
            let f = points.sys_exit.1;
            Event::Exit {
                tid,
                time,
                nr: f.id.read(s.raw)?,
                ret: f.ret.read(s.raw)?,
            }
        }
        Source::Switch => Event::Switch {
            tid,
            time,
            cpu,
            sleeping: points.switch.1.prev_state.read(s.raw)? & STATE_MASK != 0,
            stack: stacks.id(s.chain.clone()),
        },
        Source::Waking => {
            let f = points.waking.1;
            Event::Waking {
                tid,
                time,
                cpu,
                wakee: f.pid.read(s.raw)? as i32,
                target_cpu: f.target_cpu.read(s.raw)? as i32,
            }
        }
        Source::CpuClock => Event::Tick {
            tid,
            time,
            stack: stacks.id(s.chain.clone()),
        },
    })
}
