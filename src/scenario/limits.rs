//! `limits`: this machine's reference points, against which the other
//! results are read: the cost of a timestamp and of a system call, memory
//! copy bandwidth, a cache line bounced between two CPUs by spinning, and a
//! futex wake-up round trip across CPUs (the floor under any blocking
//! cross-CPU IPC).

use super::{c2c, CaseCtx, CaseSpec, MetricSpec, ParamKind, ParamSpec, Scenario, Unsupported};
use crate::exec::side;
use crate::measure::clock::now_ns;
use crate::measure::pin::{self, Placement};
use crate::model::{CaseResult, CpuUsage, Finding, Side};
use rustix::thread::futex;
use std::hint::black_box;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

pub(crate) struct Limits;

const PROBES: &[&str] = &["clock", "syscall", "memcpy", "cacheline", "wake", "c2c"];

const PROBE: ParamSpec = ParamSpec {
    name: "probe",
    kind: ParamKind::Choice(PROBES),
    default: crate::params::every_choice!(PROBES),
    about: "which reference points to measure",
    in_name: true,
};

const COUNT: ParamSpec = ParamSpec {
    name: "count",
    kind: ParamKind::Count,
    default: "200000",
    about: "operations per repetition (round trips: a tenth of it)",
    in_name: false,
};

const PARAMS: &[ParamSpec] = &[PROBE, COUNT];

pub(crate) const CLOCK_NS: MetricSpec = MetricSpec {
    name: "clock_ns",
    unit: "ns",
    about: "cost of one CLOCK_MONOTONIC timestamp",
};

pub(crate) const SYSCALL_NS: MetricSpec = MetricSpec {
    name: "syscall_ns",
    unit: "ns",
    about: "cost of one system call (getppid)",
};

/// The run's memcpy figure, which `devnull` flags copies against.
pub(crate) const MEMCPY_BYTES_PER_S: MetricSpec = MetricSpec {
    name: "memcpy_bytes_per_s",
    unit: "bytes/s",
    about: "memory copy bandwidth, 64 MiB buffers",
};

pub(crate) const CACHELINE_RTT_NS: MetricSpec = MetricSpec {
    name: "cacheline_rtt_ns",
    unit: "ns",
    about: "round trip of a cache line between two CPUs, both spinning",
};

pub(crate) const WAKE_RTT_NS: MetricSpec = MetricSpec {
    name: "wake_rtt_ns",
    unit: "ns",
    about: "futex wake-up round trip between two CPUs",
};

const METRICS: &[MetricSpec] = &[
    CLOCK_NS,
    SYSCALL_NS,
    MEMCPY_BYTES_PER_S,
    CACHELINE_RTT_NS,
    WAKE_RTT_NS,
    c2c::CLASS_FLOORS[0],
    c2c::CLASS_FLOORS[1],
    c2c::CLASS_FLOORS[2],
    c2c::CLASS_FLOORS[3],
    c2c::CLASS_FLOORS[4],
];

/// The `limits` reference point a result's headline is compared against.
/// Only this module makes one, so each names one of the metrics above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitRef(&'static MetricSpec);

impl LimitRef {
    pub(crate) const SYSCALL: LimitRef = LimitRef(&SYSCALL_NS);
    pub(crate) const MEMCPY: LimitRef = LimitRef(&MEMCPY_BYTES_PER_S);
    pub(crate) const CACHELINE: LimitRef = LimitRef(&CACHELINE_RTT_NS);
    pub(crate) const WAKE: LimitRef = LimitRef(&WAKE_RTT_NS);

    pub(crate) fn metric(&self) -> &'static MetricSpec {
        self.0
    }
}

const MEMCPY_BYTES: usize = 64 << 20;
const MEMCPY_COPIES: usize = 4;

impl Scenario for Limits {
    fn name(&self) -> &'static str {
        "limits"
    }
    fn about(&self) -> &'static str {
        "this machine's reference points: timestamp, syscall, memcpy, cache line and wake-up costs"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn batch_work(&self) -> Option<&'static ParamSpec> {
        Some(&COUNT)
    }
    fn run(&self, case: &CaseSpec, _ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let count = case.int(&COUNT);
        let reps = case.repeat as usize;
        if case.text(&PROBE) == "c2c" {
            return c2c::class_floors(count / 10, reps, out);
        }
        let (spec, reps, cpus) = match case.text(&PROBE) {
            "clock" => (
                &CLOCK_NS,
                repeat(reps, || per_op(count, || black_box(now_ns()))),
                vec![],
            ),
            "syscall" => (&SYSCALL_NS, syscall_reps(reps, count), vec![]),
            "memcpy" => (
                &MEMCPY_BYTES_PER_S,
                memcpy_rates(reps, MEMCPY_COPIES),
                vec![],
            ),
            "cacheline" => two_cpus(&CACHELINE_RTT_NS, reps, (count / 10).max(1), cacheline_rtt)?,
            "wake" => two_cpus(&WAKE_RTT_NS, reps, (count / 10).max(1), wake_rtt)?,
            other => anyhow::bail!("unknown limits probe {other}"),
        };
        spec.set(out, reps);
        spec.set_headline(out);
        if let Some(memcpy) = MEMCPY_BYTES_PER_S.value(out) {
            let _ = RUN_MEMCPY.set(memcpy);
        }
        out.sides = cpus
            .into_iter()
            .enumerate()
            .map(|(i, cpu)| Side {
                role: format!("thread {i}"),
                cpus: vec![cpu],
                cpu: CpuUsage::default(),
            })
            .collect();
        Ok(())
    }

    fn bound_by_physics(&self) -> bool {
        false
    }
    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        let value = |spec: &MetricSpec| {
            results
                .iter()
                .filter(|r| r.status == crate::model::Status::Ok)
                .find_map(|r| spec.value(r))
        };
        let mut lines: Vec<Finding> = results.iter().filter_map(|r| c2c::floors_line(r)).collect();
        if let (Some(wake), Some(sys)) = (value(&WAKE_RTT_NS), value(&SYSCALL_NS)) {
            let text = format!(
                "a futex wake-up round trip across CPUs costs {}, {} a system call: the floor under blocking cross-CPU IPC",
                crate::format::human(wake, "ns"),
                crate::format::ratio(wake / sys)
            );
            let found = Finding::new("wake-vs-syscall", text).with(WAKE_RTT_NS.name, wake, "ns");
            lines.push(found.with(SYSCALL_NS.name, sys, "ns"));
        }
        if let (Some(wake), Some(line)) = (value(&WAKE_RTT_NS), value(&CACHELINE_RTT_NS)) {
            let text = format!(
                "spinning on a shared cache line is {} cheaper than sleeping and being woken",
                crate::format::ratio(wake / line)
            );
            let found = Finding::new("spin-vs-wake", text).with(WAKE_RTT_NS.name, wake, "ns");
            lines.push(found.with(CACHELINE_RTT_NS.name, line, "ns"));
        }
        lines
    }
}

fn repeat(reps: usize, mut f: impl FnMut() -> f64) -> Vec<f64> {
    (0..reps).map(|_| f()).collect()
}

/// Mean nanoseconds of one call to `op` over `count` calls.
fn per_op<T>(count: u64, mut op: impl FnMut() -> T) -> f64 {
    let start = now_ns();
    for _ in 0..count {
        op();
    }
    (now_ns() - start) as f64 / count as f64
}

/// The `limits` memcpy figure of this run (64 MiB buffers), once a
/// `limits` case measured it: a figure no bound may go below.
pub(crate) fn run_memcpy_if_measured() -> Option<f64> {
    RUN_MEMCPY.get().copied()
}

static RUN_MEMCPY: OnceLock<f64> = OnceLock::new();

/// The memory copy bandwidth of this moment (64 MiB buffers, as `limits`
/// measures it): the highest of `MOMENT_READINGS` readings, taken anew
/// when the last is older than `MOMENT`, so that a figure is judged
/// against the host as it was when the figure was measured.
pub(crate) fn memcpy_now() -> f64 {
    let mut last = MEMCPY_NOW.lock().unwrap_or_else(|e| e.into_inner());
    match *last {
        Some((at, rate)) if at.elapsed() < MOMENT => rate,
        _ => {
            let rate = memcpy_rates(MOMENT_READINGS, 1)
                .into_iter()
                .fold(0.0, f64::max);
            *last = Some((std::time::Instant::now(), rate));
            rate
        }
    }
}

static MEMCPY_NOW: std::sync::Mutex<Option<(std::time::Instant, f64)>> =
    std::sync::Mutex::new(None);

/// How long one reading of the host stands for "now".
const MOMENT: std::time::Duration = std::time::Duration::from_secs(1);
/// Readings of one moment, the highest of which stands.
const MOMENT_READINGS: usize = 3;

/// One reading of the fastest system call in ns: the fastest of
/// `DEFAULT_REPEAT` repetitions of 20,000 calls, as `limits` measures it.
pub(crate) fn syscall_reading() -> f64 {
    fastest(&syscall_reps(super::DEFAULT_REPEAT as usize, 20_000))
}

/// One reading of the fastest memory copy in bytes/s: a buffer small
/// enough to stay in the cache (`PEAK_BYTES`), copied over and over, the
/// fastest of `DEFAULT_REPEAT` repetitions. No CPU copies faster;
/// `memcpy_rates`'s 64 MiB buffers measure the memory behind the cache.
pub(crate) fn peak_memcpy_reading() -> f64 {
    let mut both = vec![0x5au8; 2 * PEAK_BYTES + PEAK_GAP];
    let (src, rest) = both.split_at_mut(PEAK_BYTES);
    let dst = &mut rest[PEAK_GAP..];
    let copies = PEAK_TOTAL / PEAK_BYTES;
    let rates = repeat(super::DEFAULT_REPEAT as usize, || {
        let start = now_ns();
        for _ in 0..copies {
            dst.copy_from_slice(black_box(&*src));
            black_box(&mut *dst);
        }
        (PEAK_BYTES * copies) as f64 * 1e9 / (now_ns() - start).max(1) as f64
    });
    rates.into_iter().fold(0.0, f64::max)
}

/// A buffer that a copy reads and writes within the first-level cache.
const PEAK_BYTES: usize = 16 << 10;
/// The destination starts half a page past the source's end. Two buffers
/// allocated one after the other lay 16 bytes apart modulo 4 KiB, where
/// glibc's string copy on this AMD VM ran at 1.9 GB/s against 93 GB/s half
/// a page apart (4 KiB aliasing), and a valid stream failed as faster than
/// the machine copies.
const PEAK_GAP: usize = 2048;
/// Bytes one repetition of the peak copy moves: a few milliseconds.
const PEAK_TOTAL: usize = 16 << 20;

/// `reps` repetitions of the mean cost of `count` system calls (getppid).
fn syscall_reps(reps: usize, count: u64) -> Vec<f64> {
    repeat(reps, || {
        per_op(count, || black_box(rustix::process::getppid()))
    })
}

fn fastest(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

/// `reps` rates of `copies` copies of 64 MiB each.
fn memcpy_rates(reps: usize, copies: usize) -> Vec<f64> {
    let src = vec![0x5au8; MEMCPY_BYTES];
    let mut dst = vec![0u8; MEMCPY_BYTES];
    dst.copy_from_slice(&src);
    repeat(reps, || {
        let start = now_ns();
        for _ in 0..copies {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        }
        (MEMCPY_BYTES * copies) as f64 * 1e9 / (now_ns() - start) as f64
    })
}

type RoundTrip = fn(u64, [Option<usize>; 2]) -> f64;

fn two_cpus(
    spec: &'static MetricSpec,
    reps: usize,
    trips: u64,
    f: RoundTrip,
) -> anyhow::Result<(&'static MetricSpec, Vec<f64>, Vec<usize>)> {
    let cpus = pin::choose(Placement::CrossCpu).map_err(Unsupported)?;
    f(trips / 10 + 1, cpus);
    let values = repeat(reps, || f(trips, cpus));
    Ok((spec, values, cpus.iter().flatten().copied().collect()))
}

/// Runs `initiator` and `responder` on two pinned threads (never on the
/// caller's, whose affinity must stay as it was); returns the initiator's
/// mean ns per round trip.
pub fn bounce(
    trips: u64,
    cpus: [Option<usize>; 2],
    initiator: impl FnOnce() + Send,
    responder: impl FnOnce() + Send,
) -> f64 {
    // The responder waits for the initiator's first move, whichever starts first.
    let joined = side::both([cpus[1], cpus[0]], responder, || {
        let start = now_ns();
        initiator();
        now_ns() - start
    });
    match joined {
        Ok((_, Ok(ns))) => ns as f64 / trips as f64,
        _ => f64::NAN,
    }
}

/// Two threads bounce a counter: A writes odd values, B answers with the
/// next even one. Returns the mean ns per round trip.
pub fn cacheline_rtt(trips: u64, cpus: [Option<usize>; 2]) -> f64 {
    #[repr(align(128))]
    struct Line(AtomicU64);
    let line = Line(AtomicU64::new(0));
    let spin_until = |value: u64| {
        while line.0.load(Ordering::Acquire) != value {
            std::hint::spin_loop();
        }
    };
    bounce(
        trips,
        cpus,
        || {
            for i in 0..trips {
                line.0.store(2 * i + 1, Ordering::Release);
                spin_until(2 * i + 2);
            }
        },
        || {
            for i in 0..trips {
                spin_until(2 * i + 1);
                line.0.store(2 * i + 2, Ordering::Release);
            }
        },
    )
}

/// Two threads wake each other through futexes, never spinning.
fn wake_rtt(trips: u64, cpus: [Option<usize>; 2]) -> f64 {
    let (to_a, to_b) = (AtomicU32::new(0), AtomicU32::new(0));
    bounce(
        trips,
        cpus,
        || {
            for _ in 0..trips {
                signal(&to_b);
                wait_for(&to_a);
            }
        },
        || {
            for _ in 0..trips {
                wait_for(&to_b);
                signal(&to_a);
            }
        },
    )
}

fn signal(word: &AtomicU32) {
    word.store(1, Ordering::Release);
    let _ = futex::wake(word, futex::Flags::PRIVATE, 1);
}

fn wait_for(word: &AtomicU32) {
    while word.swap(0, Ordering::Acquire) == 0 {
        let _ = futex::wait(word, futex::Flags::PRIVATE, 0, None);
    }
}
