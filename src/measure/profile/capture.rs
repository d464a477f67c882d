//! Taking the samples: one software `cpu-clock` sampling event per CPU on
//! the calling thread with `inherit`, so every thread and process the case
//! starts afterwards is sampled too (an inherited event writes into its
//! parent's ring buffer). A drain thread, started *before* the events so
//! it is not sampled itself, empties the ring buffers while the case runs
//! and tallies instruction pointers and kernel call chains.

use perf_event::events::Software;
use perf_event::{Builder, SampleFlag, Sampler};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Samples per second per CPU.
pub(crate) const FREQUENCY: u64 = 3999;
/// Ring buffer per CPU (bytes, a power of two).
const RING_BYTES: usize = 1 << 20;
/// Kernel frames kept per call chain.
const CHAIN_DEPTH: usize = 24;
/// perf's context markers (PERF_CONTEXT_*) are the values above this.
const CONTEXT_MAX: u64 = (-4095i64) as u64;
const MISC_CPUMODE_MASK: u16 = 7;
const MISC_KERNEL: u16 = 1;

/// What the samples say, before symbols are looked up.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) samples: u64,
    pub(crate) lost: u64,
    /// Kernel-mode samples: leaf instruction pointer -> count.
    pub(crate) kernel_ips: HashMap<u64, u64>,
    /// Kernel call chains: (pid, chain leaf first) -> count.
    pub(crate) chains: HashMap<(u32, Vec<u64>), u64>,
    /// User-mode samples: (pid, instruction pointer) -> count.
    pub(crate) user_ips: HashMap<(u32, u64), u64>,
    /// Per sampled pid: None when it runs iolab's own image (a thread or a
    /// fork), else the program's name, looked up while it still ran.
    pub(crate) images: HashMap<u32, Option<String>>,
}

pub(crate) struct Capture {
    stop: Arc<AtomicBool>,
    done: mpsc::Receiver<Tally>,
}

impl Capture {
    /// Opens the events on every CPU this process may use and starts
    /// draining them; an error says why profiling is not possible.
    pub(crate) fn start(cpus: &[usize]) -> Result<Capture, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (sampler_tx, sampler_rx) = mpsc::channel::<Vec<Sampler>>();
        let (done_tx, done) = mpsc::channel();
        let flag = stop.clone();
        std::thread::Builder::new()
            .name("iolab-profile".into())
            .spawn(move || {
                if let Ok(samplers) = sampler_rx.recv() {
                    let _ = done_tx.send(drain(samplers, &flag));
                }
            })
            .map_err(|e| format!("cannot start the profile thread: {e}"))?;
        let mut samplers = cpus
            .iter()
            .map(|cpu| open(*cpu))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(why_not)?;
        for s in &mut samplers {
            s.enable().map_err(why_not)?;
        }
        sampler_tx
            .send(samplers)
            .map_err(|_| "the profile thread ended".to_string())?;
        Ok(Capture { stop, done })
    }

    /// Stops sampling and returns the tally.
    pub(crate) fn finish(self) -> Tally {
        self.stop.store(true, Ordering::SeqCst);
        self.done.recv().unwrap_or_default()
    }
}

fn open(cpu: usize) -> std::io::Result<Sampler> {
    Builder::new(Software::CPU_CLOCK)
        .observe_self()
        .one_cpu(cpu)
        .inherit(true)
        .include_kernel()
        .sample_frequency(FREQUENCY)
        .sample(SampleFlag::IP | SampleFlag::TID | SampleFlag::CALLCHAIN)
        .exclude_callchain_user(true)
        .enabled(false)
        .build()?
        .sampled(RING_BYTES)
}

fn why_not(e: std::io::Error) -> String {
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    format!(
        "profiling not possible: perf_event_open: {e} (perf_event_paranoid={paranoid}; kernel samples need root or a value of 1 or less)"
    )
}

fn drain(mut samplers: Vec<Sampler>, stop: &AtomicBool) -> Tally {
    let mut tally = Tally::default();
    loop {
        let last = stop.load(Ordering::SeqCst);
        if last {
            for s in &mut samplers {
                let _ = s.disable();
            }
        }
        for s in &mut samplers {
            while let Some(record) = s.next_record() {
                take(&mut tally, &record);
            }
        }
        if last {
            return tally;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sample records are read by hand (the layout is fixed by the sample
/// flags: ip, pid/tid, callchain): perf-event-data fails on user-mode
/// samples whose call chain is empty.
fn take(tally: &mut Tally, record: &perf_event::Record) {
    const SAMPLE: u32 = 9;
    const LOST: u32 = 2;
    let bytes = record.to_contiguous();
    let word = |i: usize| -> Option<u64> {
        let b = bytes.get(i * 8..i * 8 + 8)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    };
    match record.ty() {
        SAMPLE => {}
        LOST => {
            tally.lost += word(1).unwrap_or(0);
            return;
        }
        _ => return,
    }
    let (Some(ip), Some(pid_tid)) = (word(0), word(1)) else {
        return;
    };
    let pid = pid_tid as u32;
    tally.samples += 1;
    tally.images.entry(pid).or_insert_with(|| image_of(pid));
    if record.misc() & MISC_CPUMODE_MASK != MISC_KERNEL {
        *tally.user_ips.entry((pid, ip)).or_default() += 1;
        return;
    }
    *tally.kernel_ips.entry(ip).or_default() += 1;
    let nr = word(2).unwrap_or(0) as usize;
    let chain: Vec<u64> = (0..nr)
        .filter_map(|i| word(3 + i))
        .filter(|a| *a < CONTEXT_MAX)
        .take(CHAIN_DEPTH)
        .collect();
    *tally.chains.entry((pid, chain)).or_default() += 1;
}

/// None when `pid` runs the same executable as iolab, else its name.
fn image_of(pid: u32) -> Option<String> {
    let own = std::fs::read_link("/proc/self/exe").ok();
    match std::fs::read_link(format!("/proc/{pid}/exe")) {
        Ok(exe) if Some(&exe) == own.as_ref() => None,
        Ok(exe) => Some(format!(
            "[{}]",
            exe.file_name().map_or("?".into(), |n| n.to_string_lossy())
        )),
        Err(_) => Some("[exited process]".into()),
    }
}
