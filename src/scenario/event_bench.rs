//! `event-bench` (E6b): libevent's test/bench.c over each poller. `fds`
//! descriptor pairs (pipes or socketpairs), `active` of them written to
//! first; each time a read end is reported ready, one byte is read and,
//! while writes remain, one byte is written to the next pair. One loop runs
//! until every byte written has been read; the loop is timed, registering
//! the descriptors is not. Every byte is checked and counted.

use super::fd_budget::{raise_nofile, restore_nofile, FdBudget};
use super::readiness::{growth, poller_of, read_ready, register, POLLER_PARAM};
use super::side::cpu_usage;
use super::{CaseCtx, CaseSpec, Fault, MetricSpec, ParamKind, ParamSpec, Scenario, Unsupported};
use crate::measure::clock::now_ns;
use crate::measure::stats::metric;
use crate::model::{CaseResult, Side, Status, Verified};
use crate::poller::Poller;
use crate::sys::rusage::{usage, Who};
use rustix::fd::{AsFd, OwnedFd};
use std::time::Duration;

pub struct EventBench;

const PARAMS: &[ParamSpec] = &[
    POLLER_PARAM,
    ParamSpec {
        name: "pair",
        kind: ParamKind::Choice(&["pipe", "socketpair"]),
        default: "pipe",
        about: "what each descriptor pair is: a pipe or an AF_UNIX stream socketpair",
        in_name: true,
    },
    ParamSpec {
        name: "fds",
        kind: ParamKind::Count,
        default: "100",
        about: "descriptor pairs (each costs two descriptors)",
        in_name: true,
    },
    ParamSpec {
        name: "active",
        kind: ParamKind::Count,
        default: "1",
        about: "pairs written to when a loop starts (spread evenly over the pairs)",
        in_name: true,
    },
    ParamSpec {
        name: "writes",
        kind: ParamKind::Count,
        default: "1000",
        about: "bytes written by the readiness callbacks in one loop",
        in_name: false,
    },
];

const METRICS: &[MetricSpec] = &[
    MetricSpec {
        name: "us_per_loop",
        unit: "us",
        about: "time of one dispatch loop (until every byte written was read)",
    },
    MetricSpec {
        name: "events_per_s",
        unit: "1/s",
        about: "readiness events handled per second (active + writes per loop)",
    },
    MetricSpec {
        name: "waits_per_loop",
        unit: "calls",
        about: "wait calls (select/poll/epoll_wait/io_uring_enter) per loop",
    },
];

/// No descriptor ready for this long while bytes are unread: one was lost.
const STALL: Duration = Duration::from_secs(1);
/// The poll set itself, plus room for whatever else opens meanwhile.
const EXTRA_FDS: u64 = 4;
const BYTE: u8 = b'e';

impl Scenario for EventBench {
    fn name(&self) -> &'static str {
        "event-bench"
    }
    fn about(&self) -> &'static str {
        "libevent's bench.c: readiness events chained over many descriptor pairs, per poller"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let poller = poller_of(case)?;
        let shape = Shape {
            fds: case.int("fds") as usize,
            active: case.int("active") as usize,
            writes: case.int("writes"),
        };
        if shape.active > shape.fds {
            return Err(Unsupported(format!(
                "active={} is more than fds={}: at most one first write per pair",
                shape.active, shape.fds
            ))
            .into());
        }
        FdBudget::for_poller(poller)?.check("process", "fds", shape.fds as u64, EXTRA_FDS, 2)?;
        let old = raise_nofile()?;
        let result = bench(case, ctx, poller, shape, out);
        restore_nofile(old);
        result
    }

    fn verdicts(&self, results: &[&CaseResult]) -> Vec<String> {
        growth(results, "fds", None)
    }
}

#[derive(Clone, Copy)]
struct Shape {
    fds: usize,
    active: usize,
    writes: u64,
}

/// The two ends of every pair.
struct Pairs {
    rx: Vec<OwnedFd>,
    tx: Vec<OwnedFd>,
}

fn make_pairs(kind: &str, n: usize) -> anyhow::Result<Pairs> {
    use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};
    let (mut rx, mut tx) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let (r, t) = match kind {
            "pipe" => rustix::pipe::pipe_with(
                rustix::pipe::PipeFlags::NONBLOCK | rustix::pipe::PipeFlags::CLOEXEC,
            )?,
            _ => socketpair(
                AddressFamily::UNIX,
                SocketType::STREAM,
                SocketFlags::NONBLOCK | SocketFlags::CLOEXEC,
                None,
            )?,
        };
        rx.push(r);
        tx.push(t);
    }
    Ok(Pairs { rx, tx })
}

/// What one loop did.
#[derive(Default)]
struct Tally {
    ns: u64,
    reads: u64,
    fired: u64,
    waits: u64,
    mismatch: Option<String>,
}

fn bench(
    case: &CaseSpec,
    ctx: &CaseCtx,
    poller: &dyn Poller,
    shape: Shape,
    out: &mut CaseResult,
) -> anyhow::Result<()> {
    let pairs = make_pairs(case.text("pair"), shape.fds)?;
    for _ in 0..case.warmup_or(1) {
        one_loop(poller, &pairs, shape, None)?;
    }
    let before = usage(Who::Thread).unwrap_or_default();
    let mut loops = Vec::new();
    for rep in 0..case.repeat {
        if crate::runner::cleanup::cancelled() {
            anyhow::bail!("interrupted");
        }
        let fault = ctx.fault.filter(|_| rep == 0);
        let tally = one_loop(poller, &pairs, shape, fault)?;
        let failed = tally.mismatch.is_some();
        loops.push(tally);
        if failed {
            break;
        }
    }
    let used = usage(Who::Thread).unwrap_or_default().since(before);
    out.cpu = Some(cpu_usage(used));
    out.sides.push(Side {
        role: "dispatcher".into(),
        cpus: vec![crate::measure::pin::current_cpu()],
        cpu: cpu_usage(used),
    });
    settle(out, &loops);
    Ok(())
}

fn settle(out: &mut CaseResult, loops: &[Tally]) {
    let reads: u64 = loops.iter().map(|t| t.reads).sum();
    let mismatch = loops.iter().find_map(|t| t.mismatch.clone());
    out.verified = Some(Verified {
        ok: mismatch.is_none(),
        messages: reads,
        bytes: reads,
    });
    if let Some(why) = mismatch {
        out.status = Status::Failed;
        out.reason = Some(format!("verification failed: {why}"));
        return;
    }
    let per = |f: &dyn Fn(&Tally) -> f64| loops.iter().map(f).collect::<Vec<f64>>();
    out.metrics.insert(
        "us_per_loop".into(),
        metric(per(&|t| t.ns as f64 / 1e3), "us"),
    );
    out.metrics.insert(
        "events_per_s".into(),
        metric(per(&|t| t.fired as f64 * 1e9 / t.ns as f64), "1/s"),
    );
    out.metrics.insert(
        "waits_per_loop".into(),
        metric(per(&|t| t.waits as f64), "calls"),
    );
    out.headline = Some("us_per_loop".into());
}

/// One timed dispatch loop over a fresh poll set (bench.c's run_once).
fn one_loop(
    poller: &dyn Poller,
    pairs: &Pairs,
    shape: Shape,
    fault: Option<Fault>,
) -> anyhow::Result<Tally> {
    let n = pairs.rx.len();
    let mut set = poller.open(n)?;
    register(&mut *set, &pairs.rx)?;
    let edge = set.edge_triggered();
    let mut ready = Vec::new();
    set.wait(&mut ready, Some(Duration::ZERO))?;
    if !ready.is_empty() {
        anyhow::bail!("{} pairs held unread bytes before the loop", ready.len());
    }
    let space = n / shape.active;
    for i in 0..shape.active {
        rustix::io::write(&pairs.tx[i * space], &[BYTE])?;
    }
    let corrupt_at = fault.map(|_| shape.writes / 2);
    let mut t = Tally {
        fired: shape.active as u64,
        ..Tally::default()
    };
    let mut left = shape.writes;
    let mut buf = [0u8; 64];
    let start = now_ns();
    while t.reads < t.fired && t.mismatch.is_none() {
        ready.clear();
        set.wait(&mut ready, Some(STALL))?;
        t.waits += 1;
        if ready.is_empty() {
            anyhow::bail!(
                "no pair became readable within {STALL:?} with {} of {} bytes unread",
                t.fired - t.reads,
                t.fired
            );
        }
        for &idx in &ready {
            // Level-triggered: one byte per report, as bench.c reads.
            let take = if edge { &mut buf[..] } else { &mut buf[..1] };
            let mut bytes = 0;
            t.reads += read_ready(pairs.rx[idx].as_fd(), edge, take, |chunk| {
                if let Some(bad) = chunk.iter().find(|b| **b != BYTE) {
                    t.mismatch = Some(format!(
                        "pair {idx} delivered byte {bad:#04x}, not {BYTE:#04x}"
                    ));
                }
                bytes += chunk.len();
                Ok(())
            })?;
            for _ in 0..bytes {
                if left == 0 {
                    break;
                }
                let byte = if corrupt_at == Some(left) { b'x' } else { BYTE };
                rustix::io::write(&pairs.tx[(idx + 1) % n], &[byte])?;
                left -= 1;
                t.fired += 1;
            }
        }
    }
    t.ns = now_ns() - start;
    if t.mismatch.is_none() && (left != 0 || t.reads != shape.active as u64 + shape.writes) {
        t.mismatch = Some(format!(
            "{} bytes read, {} written ({left} writes never made)",
            t.reads, t.fired
        ));
    }
    Ok(t)
}
