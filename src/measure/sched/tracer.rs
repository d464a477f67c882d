//! Recording the scheduler tracepoints: one sched_switch and one
//! sched_waking event per online CPU, every process, sampled on every hit
//! with the raw record, its CLOCK_MONOTONIC time and CPU, in short windows
//! only: the events are enabled for `on` out of every `period` (`Duty`),
//! the first window from the start, and their ring buffers read while
//! they are disabled in between, by a thread that sleeps until the next
//! window.
//! Every switch and wake-up pays for a record while enabled, so the work
//! traced runs at its own pace most of the time; the windows are in the
//! log for the figures to be scaled by.
//!
//! The sched_switch events stay open throughout: an open but disabled
//! event costs a switch almost nothing. A sched_waking event does not: the
//! kernel builds its record for the woken task's own events even when no
//! event is enabled (4% on a cross-CPU pipe round trip here), so the
//! waking events exist only for their window, their records sent into the
//! switch event's ring buffer on the same CPU and told apart by their
//! tracepoint id. A forked side closes the events it inherits
//! (`sys::fork`): a copy it held would keep them open for the whole case.

use super::format::{Field, Tracepoint};
use super::{Event, SchedLog};
use crate::measure::clock::now_ns;
use perf_event::events::Tracepoint as PerfTracepoint;
use perf_event::{Builder, Clock, Counter, SampleFlag, Sampler};
use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

/// Ring buffer per CPU (bytes, a power of two): one window's records of
/// both events.
const RING_BYTES: usize = 2 << 20;
/// How long each window is open, and how often one opens.
#[derive(Clone, Copy)]
pub(crate) struct Duty {
    pub(crate) on: Duration,
    pub(crate) period: Duration,
}

impl Duty {
    /// 1 ms of every 100 ms: the work runs at its own pace 99% of the time.
    /// A window slows a pipe round trip between two processes on one CPU
    /// by some 70% while it is open, and 5% for a few milliseconds after
    /// (its sched_waking events closing).
    pub(crate) const WINDOWS: Duty = Duty {
        on: Duration::from_millis(1),
        period: Duration::from_millis(100),
    };
}
const RECORD_SAMPLE: u32 = 9;
const RECORD_LOST: u32 = 2;
const RECORD_THROTTLE: u32 = 5;

/// How to read one kind of raw record.
#[derive(Clone, Copy)]
pub(crate) enum Decoder {
    Switch {
        prev_pid: Field,
        prev_state: Field,
        next_pid: Field,
        /// Whether the record carries the kernel call chain before its raw
        /// part (off-CPU stacks).
        callchain: bool,
    },
    Waking {
        pid: Field,
        /// As for a switch: both events' records share a ring buffer, so
        /// they carry the same parts.
        callchain: bool,
    },
}

/// The tracepoints' ids and decoders, read from tracefs.
pub(crate) struct Points {
    switch: (u64, Decoder),
    waking: (u64, Decoder),
    /// `raw_syscalls:sys_enter`, counted per side thread.
    pub(crate) sys_enter: u64,
}

impl Points {
    /// Reads both tracepoints' ids and fields (mounting tracefs for the
    /// read when it is not mounted and root may).
    pub(crate) fn load() -> Result<Points, String> {
        super::format::with_tracefs(Points::read)
    }

    fn read() -> Result<Points, String> {
        let sw = Tracepoint::load("sched/sched_switch")?;
        let wk = Tracepoint::load("sched/sched_waking")?;
        let sys_enter = Tracepoint::load("raw_syscalls/sys_enter")?.id;
        let switch = Decoder::Switch {
            prev_pid: sw.field("prev_pid")?,
            prev_state: sw.field("prev_state")?,
            next_pid: sw.field("next_pid")?,
            callchain: false,
        };
        let waking = Decoder::Waking {
            pid: wk.field("pid")?,
            callchain: false,
        };
        Ok(Points {
            switch: (sw.id, switch),
            waking: (wk.id, waking),
            sys_enter,
        })
    }
}

pub(crate) struct Tracer {
    /// Dropped to stop the tracer thread.
    stop: Option<mpsc::Sender<()>>,
    done: mpsc::Receiver<SchedLog>,
}

impl Tracer {
    /// Opens the tracepoints on each of `cpus` and starts recording, with
    /// each switch's kernel call chain when `stacks`; an error says why
    /// tracing is not possible.
    pub(crate) fn start(
        points: &Points,
        cpus: &[usize],
        stacks: bool,
        duty: Duty,
    ) -> Result<Tracer, String> {
        let mut rings = Rings::open(points, cpus, stacks)?;
        let mut first = rings.open_wakings()?;
        // The first window is open when this returns.
        rings.enable(&mut first);
        let since = now_ns();
        let (stop, stopped) = mpsc::channel::<()>();
        let (done_tx, done) = mpsc::channel();
        std::thread::Builder::new()
            .name("iolab-sched".into())
            .spawn(move || {
                let _ = done_tx.send(windows(rings, (first, since), duty, &stopped));
            })
            .map_err(|e| format!("cannot start the tracer thread: {e}"))?;
        Ok(Tracer {
            stop: Some(stop),
            done,
        })
    }

    /// Stops recording and returns every event, in time order.
    pub(crate) fn finish(mut self) -> SchedLog {
        self.stop = None;
        self.done.recv().unwrap_or_default()
    }
}

/// A tracer dropped unfinished (its case failed) stops its drain thread,
/// which closes the tracepoints.
impl Drop for Tracer {
    fn drop(&mut self) {
        self.stop = None;
    }
}

impl Decoder {
    pub(crate) fn with_callchain(self, on: bool) -> Decoder {
        match self {
            Decoder::Switch {
                prev_pid,
                prev_state,
                next_pid,
                ..
            } => Decoder::Switch {
                prev_pid,
                prev_state,
                next_pid,
                callchain: on,
            },
            Decoder::Waking { pid, .. } => Decoder::Waking { pid, callchain: on },
        }
    }

    fn callchain(&self) -> bool {
        match *self {
            Decoder::Switch { callchain, .. } | Decoder::Waking { callchain, .. } => callchain,
        }
    }
}

/// A sampling event on tracepoint `id` of `cpu`, disabled.
fn open(id: u64, cpu: usize, callchain: bool) -> std::io::Result<Counter> {
    // PERIOD too: the kernel never throttles a software event that samples
    // its period, and a throttled tracer silently drops events.
    let mut flags =
        SampleFlag::TID | SampleFlag::TIME | SampleFlag::CPU | SampleFlag::PERIOD | SampleFlag::RAW;
    if callchain {
        flags |= SampleFlag::CALLCHAIN;
    }
    Builder::new(PerfTracepoint::with_id(id))
        .any_pid()
        .one_cpu(cpu)
        .include_kernel()
        .sample_period(1)
        .exclude_callchain_user(true)
        .sample(flags)
        .clockid(Clock::MONOTONIC)
        .enabled(false)
        .build()
}

fn why_not(cpu: usize, e: std::io::Error) -> String {
    let paranoid = crate::sys::kernel_text::read_text("/proc/sys/kernel/perf_event_paranoid")
        .unwrap_or_else(|| "?".into());
    format!(
        "perf_event_open of a scheduler tracepoint on CPU {cpu}: {e} \
         (perf_event_paranoid={paranoid}; system-wide tracepoints need root or -1)"
    )
}

/// The sched_switch event of each CPU, whose ring buffer takes the
/// window's sched_waking records too, and how to read both.
struct Rings {
    switches: Vec<(usize, Sampler)>,
    kinds: Kinds,
}

/// The two tracepoints a ring's records come from.
#[derive(Clone, Copy)]
struct Kinds {
    switch: (u64, Decoder),
    waking: (u64, Decoder),
}

impl Rings {
    fn open(points: &Points, cpus: &[usize], stacks: bool) -> Result<Rings, String> {
        let kinds = Kinds {
            switch: (points.switch.0, points.switch.1.with_callchain(stacks)),
            waking: (points.waking.0, points.waking.1.with_callchain(stacks)),
        };
        let mut switches = Vec::new();
        for &cpu in cpus {
            let sampler = open(kinds.switch.0, cpu, stacks)
                .and_then(|c| c.sampled(RING_BYTES))
                .map_err(|e| why_not(cpu, e))?;
            switches.push((cpu, sampler));
        }
        Ok(Rings { switches, kinds })
    }

    /// One window's sched_waking events, disabled, each writing into its
    /// CPU's ring.
    fn open_wakings(&self) -> Result<Vec<Counter>, String> {
        let (id, decoder) = self.kinds.waking;
        let mut wakings = Vec::new();
        for (cpu, ring) in &self.switches {
            let event = open(id, *cpu, decoder.callchain()).map_err(|e| why_not(*cpu, e))?;
            crate::sys::perf_ioctl::set_output(&event, ring)
                .map_err(|e| format!("cannot share a ring buffer between tracepoints: {e}"))?;
            wakings.push(event);
        }
        Ok(wakings)
    }

    fn enable(&mut self, wakings: &mut [Counter]) {
        for w in wakings {
            let _ = w.enable();
        }
        for (_, s) in &mut self.switches {
            let _ = s.enable();
        }
    }

    fn disable(&mut self, wakings: &mut [Counter]) {
        for (_, s) in &mut self.switches {
            let _ = s.disable();
        }
        for w in wakings {
            let _ = w.disable();
        }
    }
}

/// The windows until `stop` ends (its sender is dropped), the first open
/// already: its waking events and when it opened. The thread sleeps in
/// between, woken only by the next window or the stop: a thread that woke
/// often would take the traced CPUs from the work.
fn windows(
    mut rings: Rings,
    first: (Vec<Counter>, u64),
    duty: Duty,
    stop: &mpsc::Receiver<()>,
) -> SchedLog {
    let mut log = Collected::default();
    let (mut open, mut since) = first;
    loop {
        let stopped = stopped_within(stop, duty.on);
        rings.disable(&mut open);
        log.traced.push((since, now_ns()));
        // Closing the last waking event waits out an RCU grace period
        // (some 40 ms here): the next window opens a period after this one
        // opened, or at once when the close took longer.
        drop(open);
        log.drain(&mut rings);
        let next = since + duty.period.as_nanos() as u64;
        let rest = Duration::from_nanos(next.saturating_sub(now_ns()));
        if stopped || stopped_within(stop, rest) {
            break;
        }
        // A window whose waking events cannot be opened (the descriptor
        // limit reached meanwhile) ends the recording; the ones before stand.
        match rings.open_wakings() {
            Ok(next) => open = next,
            Err(_) => break,
        }
        rings.enable(&mut open);
        since = now_ns();
    }
    log.into_log()
}

/// Waits `d`; true when the stop came first.
fn stopped_within(stop: &mpsc::Receiver<()>, d: Duration) -> bool {
    !matches!(stop.recv_timeout(d), Err(mpsc::RecvTimeoutError::Timeout))
}

/// What the windows recorded so far.
#[derive(Default)]
struct Collected {
    events: Vec<Event>,
    lost: u64,
    stacks: Stacks,
    traced: Vec<(u64, u64)>,
}

impl Collected {
    /// Reads every ring buffer.
    fn drain(&mut self, rings: &mut Rings) {
        let kinds = rings.kinds;
        for (_, ring) in &mut rings.switches {
            while let Some(record) = ring.next_record() {
                let bytes = record.to_contiguous();
                match record.ty() {
                    RECORD_SAMPLE => self.events.extend(kinds.decode(&bytes, &mut self.stacks)),
                    RECORD_LOST => {
                        self.lost += crate::measure::watch::sample::word(&bytes, 8).unwrap_or(0)
                    }
                    RECORD_THROTTLE => self.lost += 1,
                    _ => {}
                }
            }
        }
    }

    fn into_log(self) -> SchedLog {
        let mut log = SchedLog::new(self.events, self.lost);
        log.stacks = self.stacks.into_list();
        log.traced = Some(self.traced);
        log
    }
}

impl Kinds {
    /// A sample of either tracepoint, by the id its raw record starts with
    /// (`common_type`).
    fn decode(&self, bytes: &[u8], stacks: &mut Stacks) -> Option<Event> {
        let sample = crate::measure::watch::sample::parse(bytes, self.switch.1.callchain(), true)?;
        let common_type = u16::from_le_bytes(sample.raw.get(..2)?.try_into().ok()?);
        let (_, decoder) = [self.switch, self.waking]
            .into_iter()
            .find(|(id, _)| *id == u64::from(common_type))?;
        decode_sample(sample, decoder, stacks)
    }
}

/// Kernel call chains by id: a switch names its chain by number (0 for
/// none), so a chain seen a million times is kept once.
#[derive(Default)]
pub(crate) struct Stacks {
    ids: HashMap<Vec<u64>, u32>,
    list: Vec<Vec<u64>>,
}

impl Stacks {
    /// The chains so far; chain `id` is at `id - 1`.
    pub(crate) fn list(&self) -> &[Vec<u64>] {
        &self.list
    }

    pub(crate) fn into_list(self) -> Vec<Vec<u64>> {
        self.list
    }

    pub(crate) fn id(&mut self, chain: Vec<u64>) -> u32 {
        if chain.is_empty() {
            return 0;
        }
        let next = self.list.len() as u32 + 1;
        *self.ids.entry(chain).or_insert_with_key(|chain| {
            self.list.push(chain.clone());
            next
        })
    }
}

/// A sample's event, decoded by `decoder`; None when the record is short.
#[cfg(test)]
pub(crate) fn decode(bytes: &[u8], decoder: Decoder, stacks: &mut Stacks) -> Option<Event> {
    let sample = crate::measure::watch::sample::parse(bytes, decoder.callchain(), true)?;
    decode_sample(sample, decoder, stacks)
}

fn decode_sample(
    sample: crate::measure::watch::sample::Sample<'_>,
    decoder: Decoder,
    stacks: &mut Stacks,
) -> Option<Event> {
    let (time, cpu) = (sample.time, sample.cpu);
    let int = |f: Field| f.read(sample.raw);
    Some(match decoder {
        Decoder::Switch {
            prev_pid,
            prev_state,
            next_pid,
            ..
        } => Event::Switch {
            time,
            cpu,
            prev_pid: int(prev_pid)? as i32,
            prev_state: int(prev_state)?,
            next_pid: int(next_pid)? as i32,
            stack: stacks.id(sample.chain),
        },
        Decoder::Waking { pid, .. } => Event::Waking {
            time,
            pid: int(pid)? as i32,
        },
    })
}
