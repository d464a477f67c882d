//! A tracer of chosen threads that is on only in short windows: per-thread
//! perf events (never system-wide) on system-call entry and exit, switches
//! out, the wake-ups the threads cause and sampled CPU time with kernel
//! call chains, opened at a window's start and closed at its end. Between
//! windows nothing is registered, so the watched threads pay nothing: an
//! open raw_syscalls event sends every thread on the machine through the
//! slow system-call path, which is why the events are closed, not only
//! disabled. The ring buffers are read after the window, not during it.

mod events;
mod points;
pub(crate) mod sample;

pub(crate) use events::Event;
pub(crate) use points::Points;

use crate::measure::clock::now_ns;
use crate::measure::sched::Stacks;
use events::Source;
use perf_event::events::{Software, Tracepoint};
use perf_event::{Builder, Clock, SampleFlag, Sampler};

/// CPU-time samples per second per thread while a window is open.
pub(crate) const TICK_HZ: u64 = 4999;
const RECORD_SAMPLE: u32 = 9;
const RECORD_LOST: u32 = 2;

/// What one window saw.
#[derive(Default)]
pub(crate) struct WindowLog {
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Every event, in time order.
    pub(crate) events: Vec<Event>,
    /// Records the kernel could not write (a ring buffer was full).
    pub(crate) lost: u64,
}

/// An open window.
pub(crate) struct Window<'p> {
    points: &'p Points,
    samplers: Vec<(Sampler, Source)>,
    start: u64,
    /// When recording stopped.
    end: Option<u64>,
}

impl<'p> Window<'p> {
    /// Opens the events on each of `tids` and starts recording; a thread
    /// that has ended meanwhile is left out, any other refusal is the
    /// reason tracing is not possible.
    pub(crate) fn open(points: &'p Points, tids: &[i32]) -> Result<Window<'p>, String> {
        let mut samplers = Vec::new();
        for &tid in tids {
            match open_thread(points, tid) {
                Ok(mut list) => samplers.append(&mut list),
                Err(e) if e.raw_os_error() == Some(libc_esrch()) => {}
                Err(e) => return Err(why_not(tid, e)),
            }
        }
        for (s, _) in &mut samplers {
            s.enable()
                .map_err(|e| format!("cannot enable a perf event: {e}"))?;
        }
        Ok(Window {
            points,
            samplers,
            start: now_ns(),
            end: None,
        })
    }

    /// Stops recording; `close` reads what was recorded (a caller may look
    /// at the watched threads in between, as they were when it stopped).
    pub(crate) fn stop(&mut self) -> u64 {
        for (s, _) in &mut self.samplers {
            let _ = s.disable();
        }
        *self.end.get_or_insert_with(now_ns)
    }

    /// Stops recording, reads every ring buffer and closes the events.
    pub(crate) fn close(mut self, stacks: &mut Stacks) -> WindowLog {
        let end = self.stop();
        let (mut events, mut lost) = (Vec::new(), 0);
        for (s, source) in &mut self.samplers {
            while let Some(record) = s.next_record() {
                let bytes = record.to_contiguous();
                match record.ty() {
                    RECORD_SAMPLE => {
                        let parsed = sample::parse(&bytes, source.has_chain(), source.has_raw());
                        events.extend(
                            parsed.and_then(|p| events::decode(self.points, *source, &p, stacks)),
                        );
                    }
                    RECORD_LOST => lost += sample::word(&bytes, 8).unwrap_or(0),
                    _ => {}
                }
            }
        }
        events.sort_by_key(Event::time);
        WindowLog {
            start: self.start,
            end,
            events,
            lost,
        }
    }
}

fn libc_esrch() -> i32 {
    rustix::io::Errno::SRCH.raw_os_error()
}

/// Ring buffer bytes per event and thread: system calls come fastest.
fn ring_bytes(source: Source) -> usize {
    match source {
        Source::Enter | Source::Exit => 1 << 20,
        _ => 256 << 10,
    }
}

fn open_thread(points: &Points, tid: i32) -> std::io::Result<Vec<(Sampler, Source)>> {
    Source::ALL
        .iter()
        .map(|&source| Ok((open(points, tid, source)?, source)))
        .collect()
}

fn open(points: &Points, tid: i32, source: Source) -> std::io::Result<Sampler> {
    let mut flags = SampleFlag::TID | SampleFlag::TIME | SampleFlag::CPU | SampleFlag::PERIOD;
    if source.has_chain() {
        flags |= SampleFlag::CALLCHAIN;
    }
    if source.has_raw() {
        flags |= SampleFlag::RAW;
    }
    let mut builder = match source {
        Source::CpuClock => {
            let mut b = Builder::new(Software::CPU_CLOCK);
            b.sample_frequency(TICK_HZ);
            b
        }
        _ => {
            let id = match source {
                Source::Enter => points.sys_enter.0,
                Source::Exit => points.sys_exit.0,
                Source::Switch => points.switch.0,
                _ => points.waking.0,
            };
            let mut b = Builder::new(Tracepoint::with_id(id));
            b.sample_period(1);
            b
        }
    };
    builder
        .observe_pid(tid)
        .any_cpu()
        .include_kernel()
        .exclude_callchain_user(true)
        .sample(flags)
        .clockid(Clock::MONOTONIC)
        .enabled(false)
        .build()?
        .sampled(ring_bytes(source))
}

fn why_not(tid: i32, e: std::io::Error) -> String {
    let paranoid = crate::sys::kernel_text::read_text("/proc/sys/kernel/perf_event_paranoid")
        .unwrap_or_else(|| "?".into());
    format!(
        "perf_event_open on thread {tid}: {e} (perf_event_paranoid={}; tracepoints need \
         root, CAP_PERFMON or perf_event_paranoid=-1)",
        paranoid.trim()
    )
}
