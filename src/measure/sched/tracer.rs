//! Recording the scheduler tracepoints: one sched_switch and one
//! sched_waking event per online CPU, every process, sampled on every hit
//! with the raw record, its CLOCK_MONOTONIC time and CPU, in short windows
//! only: the events are enabled for `ON` out of every `PERIOD`, the first
//! window from the start, and their ring buffers read while they are
//! disabled in between, by a thread that sleeps until the next window.
//! Every switch and wake-up pays for a record while enabled, so the work
//! traced runs at its own pace most of the time; the windows are in the
//! log for the figures to be scaled by. (Opening and closing the events
//! per window instead costs more: each registration patches kernel text.)

use super::format::{Field, Tracepoint};
use super::{Event, SchedLog};
use crate::measure::clock::now_ns;
use perf_event::events::Tracepoint as PerfTracepoint;
use perf_event::{Builder, Clock, SampleFlag, Sampler};
use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

/// Ring buffer per CPU and event (bytes, a power of two): one window's
/// records.
const RING_BYTES: usize = 1 << 20;
/// How long each window is open, and how often one opens.
const ON: Duration = Duration::from_millis(2);
const PERIOD: Duration = Duration::from_millis(40);
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
    /// Opens both tracepoints on each of `cpus` and starts draining them,
    /// with each switch's kernel call chain when `stacks`; an error says
    /// why tracing is not possible.
    pub(crate) fn start(points: &Points, cpus: &[usize], stacks: bool) -> Result<Tracer, String> {
        let first = open_all(points, cpus, stacks)?;
        let (stop, stopped) = mpsc::channel::<()>();
        let (done_tx, done) = mpsc::channel();
        std::thread::Builder::new()
            .name("iolab-sched".into())
            .spawn(move || {
                let _ = done_tx.send(windows(first, &stopped));
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
            waking => waking,
        }
    }

    fn callchain(&self) -> bool {
        matches!(
            self,
            Decoder::Switch {
                callchain: true,
                ..
            }
        )
    }
}

fn open(id: u64, cpu: usize, decoder: Decoder) -> std::io::Result<Sampler> {
    // PERIOD too: the kernel never throttles a software event that samples
    // its period, and a throttled tracer silently drops events.
    let mut flags =
        SampleFlag::TID | SampleFlag::TIME | SampleFlag::CPU | SampleFlag::PERIOD | SampleFlag::RAW;
    if decoder.callchain() {
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
        .build()?
        .sampled(RING_BYTES)
}

fn why_not(cpu: usize, e: std::io::Error) -> String {
    let paranoid = crate::sys::kernel_text::read_text("/proc/sys/kernel/perf_event_paranoid")
        .unwrap_or_else(|| "?".into());
    format!(
        "perf_event_open of a scheduler tracepoint on CPU {cpu}: {e} \
         (perf_event_paranoid={paranoid}; system-wide tracepoints need root or -1)"
    )
}

/// The open events.
type Open = Vec<(Sampler, Decoder)>;

/// Opens and enables both tracepoints on each of `cpus`; an error says
/// why tracing is not possible.
fn open_all(points: &Points, cpus: &[usize], stacks: bool) -> Result<Open, String> {
    let mut samplers = Vec::new();
    for &cpu in cpus {
        for (id, decoder) in [points.switch, points.waking] {
            let decoder = decoder.with_callchain(stacks);
            let sampler = open(id, cpu, decoder).map_err(|e| why_not(cpu, e))?;
            samplers.push((sampler, decoder));
        }
    }
    for (s, _) in &mut samplers {
        s.enable()
            .map_err(|e| format!("cannot enable a tracepoint: {e}"))?;
    }
    Ok(samplers)
}

/// The windows until `stop` ends (its sender is dropped). The thread
/// sleeps in between, woken only by the next window or the stop: a thread
/// that woke often would take the traced CPUs from the work.
fn windows(mut open: Open, stop: &mpsc::Receiver<()>) -> SchedLog {
    let mut log = Collected::default();
    let mut since = now_ns();
    loop {
        let stopped = stopped_within(stop, ON);
        log.close_window(&mut open, since);
        if stopped || stopped_within(stop, PERIOD.saturating_sub(ON)) {
            return log.into_log();
        }
        for (s, _) in &mut open {
            let _ = s.enable();
        }
        since = now_ns();
    }
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
    /// Stops recording and reads every ring buffer.
    fn close_window(&mut self, samplers: &mut Open, since: u64) {
        for (s, _) in samplers.iter_mut() {
            let _ = s.disable();
        }
        self.traced.push((since, now_ns()));
        for (s, decoder) in samplers.iter_mut() {
            while let Some(record) = s.next_record() {
                let bytes = record.to_contiguous();
                match record.ty() {
                    RECORD_SAMPLE => self
                        .events
                        .extend(decode(&bytes, *decoder, &mut self.stacks)),
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
pub(crate) fn decode(bytes: &[u8], decoder: Decoder, stacks: &mut Stacks) -> Option<Event> {
    let sample = crate::measure::watch::sample::parse(bytes, decoder.callchain(), true)?;
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
        Decoder::Waking { pid } => Event::Waking {
            time,
            pid: int(pid)? as i32,
        },
    })
}
