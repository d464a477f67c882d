//! `event-bench` (E6b): libevent's test/bench.c over each poller. `fds`
//! descriptor pairs (socketpairs, as bench.c, or pipes), `active` of them
//! written to first; each time a read end is reported ready, one byte is
//! read and, while writes remain, one byte is written to the next pair.
//! One loop runs until every byte written has been read; the loop is
//! timed, registering the descriptors is not. Every byte is checked and
//! counted. How the loop waits (`dispatch`) is in `dispatch.rs`; the loops
//! run in a forked single-threaded child, as bench.c does (`child.rs`).

mod child;
mod dispatch;
#[cfg(test)]
mod tests;

use super::classic::{ClassicChart, ClassicKind, Mark, Original};
use super::common::fd_budget::FdBudget;
use super::common::readiness::{growth, poller_of, POLLER_PARAM};
use super::common::side::cpu_usage;
use super::{CaseCtx, CaseSpec, Fault, MetricSpec, ParamKind, ParamSpec, Scenario, Unsupported};
use crate::model::{CaseResult, Finding, Side, Status, Verified};
use child::{run_forked, Plan};
use dispatch::{Damage, Dispatch, Shape, Tally};
use std::time::{Duration, Instant};

pub(crate) struct EventBench;

const DISPATCH: ParamSpec = ParamSpec {
    name: "dispatch",
    kind: ParamKind::Choice(&["nonblocking", "blocking"]),
    default: "nonblocking",
    about: "nonblocking: zero-timeout waits called until every byte is read (bench.c's \
            EVLOOP_NONBLOCK); blocking: each wait may sleep until a pair is ready",
    in_name: true,
};

const PAIR: ParamSpec = ParamSpec {
    name: "pair",
    kind: ParamKind::Choice(&["socketpair", "pipe"]),
    default: "socketpair",
    about: "what each descriptor pair is: an AF_UNIX stream socketpair (as bench.c) or a pipe",
    in_name: true,
};

const FDS: ParamSpec = ParamSpec {
    name: "fds",
    kind: ParamKind::Count,
    default: "100",
    about: "descriptor pairs (each costs two descriptors)",
    in_name: true,
};

const ACTIVE: ParamSpec = ParamSpec {
    name: "active",
    kind: ParamKind::Count,
    default: "1",
    about: "pairs written to when a loop starts (spread evenly over the pairs)",
    in_name: true,
};

const WRITES: ParamSpec = ParamSpec {
    name: "writes",
    kind: ParamKind::Count,
    default: "1000",
    about: "bytes written by the readiness callbacks in one loop",
    in_name: false,
};

const PARAMS: &[ParamSpec] = &[POLLER_PARAM, DISPATCH, PAIR, FDS, ACTIVE, WRITES];

pub(crate) const US_PER_LOOP: MetricSpec = MetricSpec {
    name: "us_per_loop",
    unit: "us",
    about: "time of one dispatch loop (until every byte written was read)",
};

pub(crate) const CPU_US_PER_LOOP: MetricSpec = MetricSpec {
    name: "cpu_us_per_loop",
    unit: "us",
    about: "CPU time (user + system) of the dispatching thread in one loop: its cost without \
            the time it waited for a CPU another task held",
};

const EVENTS_PER_S: MetricSpec = MetricSpec {
    name: "events_per_s",
    unit: "1/s",
    about: "readiness events handled per second (active + writes per loop)",
};

const WAITS_PER_LOOP: MetricSpec = MetricSpec {
    name: "waits_per_loop",
    unit: "calls",
    about: "wait calls (select/poll/epoll_wait/io_uring_enter) per loop; nonblocking, \
            the zero-timeout calls (bench.c's xcount)",
};

const METRICS: &[MetricSpec] = &[US_PER_LOOP, CPU_US_PER_LOOP, EVENTS_PER_S, WAITS_PER_LOOP];

/// No descriptor ready for this long while bytes are unread: one was lost.
const STALL: Duration = Duration::from_secs(1);
/// The poll set, the forked child's status pipe, and room for whatever
/// else opens meanwhile.
const EXTRA_FDS: u64 = 4;

/// libevent's bench as the post drew it: time per loop against descriptors.
const CLASSIC: &[ClassicChart] = &[ClassicChart {
    title: "E6b: time per dispatch loop against descriptor pairs, a line per backend",
    kind: ClassicKind::Sweep {
        x: FDS.name,
        metric: &US_PER_LOOP,
        points: 4,
    },
    only: &[("dispatch", "nonblocking"), ("pair", "socketpair")],
    original: Some(Original {
        label: "original (libevent bench on Solaris): event ports about 10x faster than \
                poll at 7,500 descriptors (about 2x when most are active)",
        mark: Mark::X(7500.0),
        only: &[],
    }),
    full: "the seeds suite runs 100-7,500 pairs with 1 and 100 active \
           (`iolab run seeds`, or `iolab run event-bench --param fds=100,1000,5000,7500 --param active=1,100`)",
}];

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
    fn classic_charts(&self) -> &'static [ClassicChart] {
        CLASSIC
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    /// A repetition is one dispatch loop of a few milliseconds: a round
    /// runs nine, whose median no preempted loop moves. A poller that scans
    /// every descriptor (select, poll) takes time in proportion to them
    /// (poll's loop over 7,500 pairs took 0.9 s here): above 1,000 pairs it
    /// runs fewer, down to three, so that a round stays a few seconds and a
    /// comparison gets the rounds its interval needs.
    fn round_reps(&self, case: &CaseSpec) -> Option<u64> {
        let scans = matches!(case.text(&POLLER_PARAM), "select" | "poll");
        let fds = case.int(&FDS).max(1);
        Some(match scans {
            true => (9 * 1000 / fds).clamp(3, 9),
            false => 9,
        })
    }
    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let poller = poller_of(case)?;
        let shape = Shape {
            fds: case.int(&FDS) as usize,
            active: case.int(&ACTIVE) as usize,
            writes: case.int(&WRITES),
        };
        if shape.active > shape.fds {
            return Err(Unsupported(format!(
                "active={} is more than fds={}: at most one first write per pair",
                shape.active, shape.fds
            ))
            .into());
        }
        FdBudget::for_poller(poller)?.check("process", FDS.name, shape.fds as u64, EXTRA_FDS, 2)?;
        bench(case, ctx, poller, shape, out)
    }

    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        growth(results, &FDS, None)
    }
}

fn bench(
    case: &CaseSpec,
    ctx: &CaseCtx,
    poller: &dyn crate::poller::Poller,
    shape: Shape,
    out: &mut CaseResult,
) -> anyhow::Result<()> {
    let plan = Plan {
        poller,
        pair: case.text(&PAIR),
        shape,
        dispatch: Dispatch::from_name(case.text(&DISPATCH))?,
        stall: STALL,
        warmup: case.warmup_or(1),
        reps: case.repeat,
        damage: (ctx.fault == Some(Fault::Corrupt)).then_some(Damage::Corrupt),
    };
    let report = run_forked(&plan, Instant::now() + ctx.timeout)?;
    out.cpu = Some(cpu_usage(report.used));
    out.sides.push(Side {
        role: "dispatcher".into(),
        cpus: vec![report.cpu],
        cpu: cpu_usage(report.used),
    });
    settle(out, &report.loops);
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
    US_PER_LOOP.set(out, per(&|t| t.ns as f64 / 1e3));
    CPU_US_PER_LOOP.set(out, per(&|t| t.cpu_ns as f64 / 1e3));
    EVENTS_PER_S.set(out, per(&|t| t.fired as f64 * 1e9 / t.ns as f64));
    WAITS_PER_LOOP.set(out, per(&|t| t.waits as f64));
    US_PER_LOOP.set_headline(out);
}
