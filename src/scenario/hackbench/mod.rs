//! `hackbench`: the shape of hackbench and `perf bench sched messaging`,
//! a classic to hold fan-in against. `groups` groups of 20 sender and 20
//! receiver processes; each receiver has one channel (a pipe, as
//! `hackbench -p`, or a Unix stream socket, its default) that all 20
//! senders of its group write into, and each sender sends `loops` rounds
//! of one 100-byte message to every receiver of its group. A repetition
//! starts every process afresh and is timed, as hackbench's "Total time",
//! from the start signal to the last process reaped. Every message carries
//! its sender and sequence, so each receiver checks what came from whom.

mod workers;

use self::workers::{Place, Received, PER_GROUP};
use crate::exec::procs::{self, Child};
use crate::measure::pin;
use crate::mechanism::{self, BoxEndpoint};
use crate::model::{CaseResult, Finding, Side, Status, Verified};
use crate::scenario::common::fd_budget::{raise_nofile, restore_nofile, FdBudget};
use crate::scenario::common::side::cpu_usage;
use crate::scenario::common::verdict;
use crate::scenario::{
    CaseCtx, CaseSpec, Fault, MetricSpec, Mode, ParamKind, ParamSpec, Scenario, Unsupported,
};
use crate::sys::rusage::Usage;
use std::collections::BTreeMap;
use std::time::Instant;

pub(crate) struct Hackbench;

const GROUPS: ParamSpec = ParamSpec {
    name: "groups",
    kind: ParamKind::Count,
    default: "10",
    about: "groups of 20 senders and 20 receivers (hackbench's and perf's default: 10)",
    in_name: true,
};

const LOOPS: ParamSpec = ParamSpec {
    name: "loops",
    kind: ParamKind::Count,
    default: "100",
    about:
        "rounds each sender sends, one 100-byte message to every receiver of its group per round",
    in_name: true,
};

const PARAMS: &[ParamSpec] = &[GROUPS, LOOPS];

const SECONDS: MetricSpec = MetricSpec {
    name: "seconds",
    unit: "s",
    about: "total time: from the start signal until every process has ended and been reaped",
};

const MSGS_PER_S: MetricSpec = MetricSpec {
    name: "msgs_per_s",
    unit: "1/s",
    about: "messages (groups x 20 x 20 x loops) per second of total time",
};

const METRICS: &[MetricSpec] = &[SECONDS, MSGS_PER_S];

/// The mechanisms hackbench has: `-p` pipes, or its default socketpairs.
const MECHS: &[&str] = &["pipe", "unix-stream"];

/// What iolab holds per group while it runs: 20 channels of four
/// descriptors (two endpoints, each two pipe ends or a socket and its
/// duplicate) and the 40 report pipes.
const FDS_PER_GROUP: u64 = PER_GROUP as u64 * 4 + 2 * PER_GROUP as u64;
const EXTRA_FDS: u64 = 16;

impl Scenario for Hackbench {
    fn name(&self) -> &'static str {
        "hackbench"
    }
    fn about(&self) -> &'static str {
        "hackbench / perf bench sched messaging: groups of 20 senders spraying 20 receivers"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn uses_mechanisms(&self) -> bool {
        true
    }
    fn default_mechs(&self) -> Option<&'static [&'static str]> {
        Some(MECHS)
    }
    fn default_placements(&self) -> Option<&'static [pin::Placement]> {
        Some(&[pin::Placement::Unpinned])
    }

    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let mech = case.mech.expect("hackbench runs over a mechanism");
        if !MECHS.contains(&mech.name()) {
            let why = format!(
                "hackbench runs over pipe (hackbench -p) or unix-stream (its socketpairs), not {}",
                mech.name()
            );
            return Err(Unsupported(why).into());
        }
        if case.mode != Mode::Processes {
            let why = "hackbench here runs processes (perf's default); threads (-t) are not built";
            return Err(Unsupported(why.into()).into());
        }
        let groups = case.int(&GROUPS);
        let who = format!("iolab process ({FDS_PER_GROUP} per group)");
        FdBudget::process()?.check(&who, "groups", groups, EXTRA_FDS, FDS_PER_GROUP)?;
        let old = raise_nofile()?;
        let result = repetitions(case, ctx, out);
        restore_nofile(old);
        result
    }

    /// At each point, the faster mechanism against the slower.
    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        let mut points: BTreeMap<(u64, u64), Vec<&CaseResult>> = BTreeMap::new();
        for r in results {
            let at = |p: &ParamSpec| r.params.get(p.name).and_then(|v| v.as_u64());
            if let (Some(g), Some(l)) = (at(&GROUPS), at(&LOOPS)) {
                points.entry((g, l)).or_default().push(r);
            }
        }
        points
            .into_iter()
            .flat_map(|((g, l), rs)| {
                let what = format!("groups={g} loops={l}, total time");
                verdict::fastest_per_group(&rs, "hackbench", &what, false)
            })
            .collect()
    }
}

/// One repetition's figures.
#[derive(Default)]
struct Tallied {
    seconds: Vec<f64>,
    messages: u64,
    bytes: u64,
    receivers: Usage,
    senders: Usage,
    cpus: [Vec<usize>; 2],
}

fn repetitions(case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
    let groups = case.int(&GROUPS) as usize;
    let loops = case.int(&LOOPS);
    let placement = case.placement.unwrap_or(pin::Placement::Unpinned);
    let cpus = pin::choose(placement).map_err(Unsupported)?;
    let mut t = Tallied::default();
    let warmup = case.warmup_or(0);
    for rep in 0..warmup + case.repeat {
        let fault = ctx.fault.filter(|_| rep == warmup);
        let shape = Shape {
            groups,
            loops,
            cpus,
        };
        match once(case, ctx, shape, fault, &mut t)? {
            Some(why) => {
                record(out, &t, false);
                out.status = Status::Failed;
                out.reason = Some(format!("verification failed: {why}"));
                return Ok(());
            }
            None if rep < warmup => t = Tallied::default(),
            None => {}
        }
    }
    record(out, &t, true);
    let total = (groups * PER_GROUP * PER_GROUP) as f64 * loops as f64;
    SECONDS.set(out, t.seconds.clone());
    MSGS_PER_S.set(out, t.seconds.iter().map(|s| total / s).collect());
    SECONDS.set_headline(out);
    Ok(())
}

#[derive(Clone, Copy)]
struct Shape {
    groups: usize,
    loops: u64,
    cpus: pin::Cpus,
}

/// Runs every process once and adds its figures to `t`; returns the
/// first verification failure, if any.
fn once(
    case: &CaseSpec,
    ctx: &CaseCtx,
    shape: Shape,
    fault: Option<Fault>,
    t: &mut Tallied,
) -> anyhow::Result<Option<String>> {
    let mech = case.mech.expect("a mechanism");
    let mut channels: Vec<Vec<(BoxEndpoint, BoxEndpoint)>> = Vec::with_capacity(shape.groups);
    for _ in 0..shape.groups {
        let group = (0..PER_GROUP)
            .map(|_| mech.connect(ctx.dir, &case.values))
            .collect::<Result<Vec<_>, _>>()?;
        channels.push(group);
    }
    let (go_rx, go_tx) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    let deadline = Instant::now() + ctx.timeout;
    let mut receivers: Vec<Child> = Vec::new();
    let mut senders: Vec<Child> = Vec::new();
    for (g, group) in channels.iter_mut().enumerate() {
        for (index, (_, end)) in group.iter_mut().enumerate() {
            let at = Place { group: g, index };
            let body = |r: &procs::Ready| workers::receiver(end, at, shape.loops, &go_rx, r);
            receivers.push(procs::spawn("receiver", shape.cpus[0], body)?);
        }
        for index in 0..PER_GROUP {
            let at = Place { group: g, index };
            let eps: Vec<&mut BoxEndpoint> = group.iter_mut().map(|(a, _)| a).collect();
            let bad = fault.filter(|_| g == 0 && index == PER_GROUP / 2);
            let body = |r: &procs::Ready| workers::sender(eps, at, shape.loops, &go_rx, bad, r);
            senders.push(procs::spawn("sender", shape.cpus[1], body)?);
        }
    }
    procs::wait_ready(receivers.as_mut_slice(), deadline)?;
    procs::wait_ready(senders.as_mut_slice(), deadline)?;
    let start = Instant::now();
    mechanism::write_all_fd(&go_tx, b"g")?;
    watch(&mut receivers, &mut senders, deadline)?;
    let mut mismatch = None;
    for side in receivers {
        let (got, usage) = side.finish_with_usage::<Received>(deadline)?;
        (t.messages, t.bytes) = (t.messages + got.messages, t.bytes + got.bytes);
        t.receivers = t.receivers.plus(usage);
        t.cpus[0].push(got.cpu);
        mismatch = mismatch.or(got.mismatch);
    }
    for side in senders {
        let (cpu, usage) = side.finish_with_usage::<usize>(deadline)?;
        t.senders = t.senders.plus(usage);
        t.cpus[1].push(cpu);
    }
    t.seconds.push(start.elapsed().as_secs_f64());
    Ok(mismatch)
}

/// Waits until every process has ended; one that fails stops the rest at
/// once and fails the case, named by its place (its group's receivers
/// would wait for its messages).
fn watch(receivers: &mut [Child], senders: &mut [Child], deadline: Instant) -> anyhow::Result<()> {
    let r = receivers.len();
    let mut all: Vec<&mut Child> = receivers.iter_mut().chain(senders).collect();
    let n = all.len();
    procs::watch(&mut all, n, deadline, |i| {
        let (role, i) = if i < r {
            ("receiver", i)
        } else {
            ("sender", i - r)
        };
        format!("{role} {} of group {}", i % PER_GROUP, i / PER_GROUP)
    })
}

/// The verification, the receivers and the senders as two sides, and the
/// CPU time of all.
fn record(out: &mut CaseResult, t: &Tallied, ok: bool) {
    out.verified = Some(Verified {
        ok,
        messages: t.messages,
        bytes: t.bytes,
    });
    for (role, usage, cpus) in [
        ("receivers", t.receivers, &t.cpus[0]),
        ("senders", t.senders, &t.cpus[1]),
    ] {
        let mut cpus = cpus.clone();
        cpus.sort_unstable();
        cpus.dedup();
        out.sides.push(Side {
            role: role.into(),
            cpus,
            cpu: cpu_usage(usage),
        });
    }
    out.cpu = Some(cpu_usage(t.receivers.plus(t.senders)));
}
