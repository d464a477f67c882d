//! `fan-in`: `senders` processes send to one receiver process, the FIFO
//! post's architecture (many network processes feeding one logic
//! process) measured per mechanism. Where a mechanism keeps each write
//! whole whoever writes it, all senders share one channel (pipe and FIFO
//! up to PIPE_BUF, datagram and record sockets, UDP, message queues);
//! byte-stream sockets give each sender its own channel, which the receiver
//! waits on with `poller`. Every message carries its sender's id and
//! sequence, and each sender's stream is verified on its own. Figures:
//! throughput at the receiver, its CPU per message, and how evenly it
//! served the senders (Jain's index).

mod channels;
mod receiver;
mod sender;

use self::channels::{Channels, Kind};
use self::receiver::{ReceiverCfg, ReceiverOut};
pub(crate) use self::sender::wait_go;
use self::sender::{SenderCfg, SenderOut};
use crate::exec::procs::{self, Child};
use crate::measure::pin;
use crate::mechanism;
use crate::model::{CaseResult, Finding, Side, Status, Verified};
use crate::scenario::common::fd_budget::restore_nofile;
use crate::scenario::common::readiness::{growth, poller_of, POLLER_PARAM};
use crate::scenario::common::side::{cpu_usage, Schedule};
use crate::scenario::common::tagged::HEADER;
use crate::scenario::common::two_sided::per_rep;
use crate::scenario::{
    CaseCtx, CaseSpec, MetricSpec, Mode, ParamKind, ParamSpec, Scenario, Unsupported, Value,
};
use crate::sys::rusage::Usage;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

pub(crate) struct FanIn;

pub(crate) const SENDERS: ParamSpec = ParamSpec {
    name: "senders",
    kind: ParamKind::Count,
    default: "1,4,16",
    about: "sender processes, all sending to the one receiver",
    in_name: true,
};

pub(crate) const SIZE: ParamSpec = ParamSpec {
    default: "64",
    about: "message size in bytes: at least 12 (sender id and sequence), at most PIPE_BUF \
            (4096) over a shared pipe or FIFO",
    ..mechanism::SIZE
};

const COUNT: ParamSpec = ParamSpec {
    name: "count",
    kind: ParamKind::Count,
    default: "50000",
    about: "messages per sender per repetition (a repetition is senders x count messages); \
            a repetition must outlast what the channels buffer (a TCP connection holds \
            tens of thousands of small messages), or it times a drain of the backlog \
            while the senders wait, a rate the runner fails as beyond the machine",
    in_name: false,
};

const POLLER: ParamSpec = ParamSpec {
    default: "epoll-lt",
    about: "how the receiver waits on one channel per sender (unix-stream, tcp); \
            shared channels need none",
    ..POLLER_PARAM
};

const PARAMS: &[ParamSpec] = &[SENDERS, SIZE, POLLER, COUNT];

const MSGS_PER_S: MetricSpec = MetricSpec {
    name: "msgs_per_s",
    unit: "1/s",
    about: "messages per second at the receiver, from all senders",
};

const BYTES_PER_S: MetricSpec = MetricSpec {
    name: "bytes_per_s",
    unit: "bytes/s",
    about: "throughput at the receiver, from all senders",
};

const RECV_CPU_NS_PER_MSG: MetricSpec = MetricSpec {
    name: "recv_cpu_ns_per_msg",
    unit: "ns",
    about: "the receiver's CPU time (user + system) per message",
};

const FAIRNESS: MetricSpec = MetricSpec {
    name: "fairness",
    unit: "index",
    about: "Jain's index of the senders' shares of each repetition: 1 even, 1/senders one took all",
};

const METRICS: &[MetricSpec] = &[MSGS_PER_S, BYTES_PER_S, RECV_CPU_NS_PER_MSG, FAIRNESS];

/// How long the senders may take to end after the receiver.
const GRACE: Duration = Duration::from_secs(5);

impl Scenario for FanIn {
    fn name(&self) -> &'static str {
        "fan-in"
    }
    fn about(&self) -> &'static str {
        "many sender processes to one receiver: throughput, receiver CPU, fairness"
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
        Some(&[
            "pipe",
            "fifo",
            "unix-stream",
            "unix-dgram",
            "unix-seqpacket",
            "udp",
            "tcp",
            "mq",
            "sysv-msg",
        ])
    }
    fn default_placements(&self) -> Option<&'static [pin::Placement]> {
        Some(&[pin::Placement::Unpinned])
    }
    fn check_point(&self, values: &BTreeMap<&'static str, Value>) -> Result<(), String> {
        match SIZE.int(values) {
            Some(size) if size < HEADER as u64 => Err(format!(
                "size={size} is too small for fan-in: every message carries its sender id \
                 and sequence, at least {HEADER} bytes"
            )),
            _ => Ok(()),
        }
    }
    /// A shared channel needs no poller, and a mechanism that cannot fan
    /// in none of its own parameters: their cases run once.
    fn fit_mech_point(
        &self,
        mech: &dyn mechanism::Mechanism,
        values: &mut BTreeMap<&'static str, Value>,
    ) {
        let kind = channels::kind(mech);
        if kind != Ok(Kind::PerSender) {
            values.remove(POLLER.name);
        }
        if kind.is_err() {
            mech.params()
                .iter()
                .for_each(|p| drop(values.remove(p.name)));
        }
    }

    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let mech = case.mech.expect("fan-in runs over a mechanism");
        let kind = channels::kind(mech).map_err(Unsupported)?;
        if case.mode != Mode::Processes {
            let why = "fan-in's senders and receiver are processes; --mode threads does not apply";
            return Err(Unsupported(why.into()).into());
        }
        channels::check_atomic(mech, case.int(&SIZE))?;
        let poller = match kind {
            Kind::PerSender => Some(poller_of(case)?),
            Kind::Shared => None,
        };
        let old = channels::fit_fds(kind, poller, case.int(&SENDERS))?;
        let result = run_case(case, ctx, kind, poller, out);
        restore_nofile(old);
        result
    }

    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        growth(results, &SENDERS, Some(&MSGS_PER_S))
    }
}

/// The case's numbers, read once.
#[derive(Clone, Copy)]
struct Shape {
    senders: usize,
    size: usize,
    /// Repetitions in messages of all senders together.
    sched: Schedule,
}

fn run_case(
    case: &CaseSpec,
    ctx: &CaseCtx,
    kind: Kind,
    poller: Option<&'static dyn crate::poller::Poller>,
    out: &mut CaseResult,
) -> anyhow::Result<()> {
    let senders = case.int(&SENDERS) as usize;
    let count = case.int(&COUNT);
    let n = senders as u64;
    let shape = Shape {
        senders,
        size: case.int(&SIZE) as usize,
        sched: Schedule {
            warmup: n * case.warmup_or(count / 10),
            reps: case.repeat,
            count: n * count,
            explain: false,
        },
    };
    let placement = case.placement.unwrap_or(pin::Placement::Unpinned);
    let cpus = pin::choose(placement).map_err(Unsupported)?;
    let mut ch = Channels::connect(case, ctx, kind, senders)?;
    let deadline = Instant::now() + ctx.timeout;
    let (rcv, sides) = start(&mut ch, shape, poller, cpus, ctx, deadline)?;
    let ended = finish(rcv, sides, deadline)?;
    settle(out, ended, shape);
    Ok(())
}

type Started = (Child, Vec<Child>);

/// Starts the receiver and every sender, waits until all are ready, and
/// lets the senders go.
fn start(
    ch: &mut Channels,
    shape: Shape,
    poller: Option<&'static dyn crate::poller::Poller>,
    cpus: pin::Cpus,
    ctx: &CaseCtx,
    deadline: Instant,
) -> anyhow::Result<Started> {
    let Channels {
        kind,
        pairs,
        credits,
        stop,
    } = ch;
    let (go_rx, go_tx) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    let cfg = ReceiverCfg {
        senders: shape.senders,
        size: shape.size,
        sched: shape.sched,
        stop,
        go: &go_rx,
        credits: credits.as_ref().map(|c| (&c.pipes[..], c.step)),
        poller,
    };
    let ends: Vec<_> = pairs.iter_mut().map(|(_, r)| r).collect();
    let mut rcv = procs::spawn("receiver", cpus[0], |r| receiver::run(ends, cfg, r))?;
    let victim = ctx.fault.map(|_| shape.senders / 2);
    let mut sides = Vec::with_capacity(shape.senders);
    for i in 0..shape.senders {
        let ep = &mut pairs[if *kind == Kind::Shared { 0 } else { i }].0;
        let cfg = SenderCfg {
            id: i as u32,
            size: shape.size,
            go: &go_rx,
            stop,
            credit: credits.as_ref().map(|c| (&c.pipes[i].0, c.window)),
            fault: ctx.fault.filter(|_| victim == Some(i)),
        };
        sides.push(procs::spawn("sender", cpus[1], |r| {
            sender::run(ep, cfg, r)
        })?);
    }
    procs::wait_ready(sides.as_mut_slice(), deadline)?;
    procs::wait_ready(&mut [&mut rcv], deadline)?;
    mechanism::write_all_fd(&go_tx, b"g")?;
    Ok((rcv, sides))
}

type Ended = (
    anyhow::Result<(ReceiverOut, Usage)>,
    Vec<anyhow::Result<(SenderOut, Usage)>>,
);

/// Waits for the receiver; a process that fails first fails the case at
/// once, naming it (the receiver would wait for a dead sender's messages).
/// Then the receiver's report, then the senders'; they get a grace period
/// after a clean receiver, none after one that gave up.
fn finish(mut rcv: Child, mut sides: Vec<Child>, deadline: Instant) -> anyhow::Result<Ended> {
    let mut all: Vec<&mut Child> = std::iter::once(&mut rcv).chain(&mut sides).collect();
    procs::watch(&mut all, 1, deadline, |i| match i {
        0 => "receiver".into(),
        i => format!("sender {}", i - 1),
    })?;
    let r = rcv.finish_with_usage::<ReceiverOut>(deadline);
    let clean = matches!(&r, Ok((o, _)) if o.side.mismatch.is_none());
    let grace = if clean { GRACE } else { Duration::ZERO };
    let until = deadline.min(Instant::now() + grace);
    let s: Vec<_> = sides
        .into_iter()
        .map(|side| side.finish_with_usage::<SenderOut>(until))
        .collect();
    if let Err(e) = &r {
        if let Some(u) = e.downcast_ref::<Unsupported>() {
            return Err(Unsupported(u.0.clone()).into());
        }
    }
    Ok((r, s))
}

/// The result's status, verification, sides and figures.
fn settle(out: &mut CaseResult, (r, s): Ended, shape: Shape) {
    let fail = |out: &mut CaseResult, reason: String| {
        out.status = Status::Failed;
        out.reason = Some(reason);
    };
    let (rcv, rcv_usage) = match r {
        Ok(ok) => ok,
        Err(e) => return fail(out, format!("{e:#}")),
    };
    out.verified = Some(Verified {
        ok: rcv.side.mismatch.is_none(),
        messages: rcv.side.messages,
        bytes: rcv.side.bytes,
    });
    if let Some(why) = &rcv.side.mismatch {
        return fail(out, format!("verification failed: {why}"));
    }
    let mut senders = Vec::with_capacity(s.len());
    for (i, x) in s.into_iter().enumerate() {
        match x {
            Ok(ok) => senders.push(ok),
            Err(e) => return fail(out, format!("sender {i}: {e:#}")),
        }
    }
    record_sides(out, &rcv, rcv_usage, &senders);
    fill_metrics(out, &rcv, shape);
}

/// The receiver as one side and the senders together as another.
fn record_sides(
    out: &mut CaseResult,
    rcv: &ReceiverOut,
    usage: Usage,
    senders: &[(SenderOut, Usage)],
) {
    let sent = senders
        .iter()
        .fold(Usage::default(), |acc, (_, u)| acc.plus(*u));
    let mut cpus: Vec<usize> = senders.iter().map(|(o, _)| o.cpu).collect();
    cpus.sort_unstable();
    cpus.dedup();
    out.sides.push(Side {
        role: "receiver".into(),
        cpus: rcv.side.cpus.clone(),
        cpu: cpu_usage(usage),
    });
    out.sides.push(Side {
        role: "senders".into(),
        cpus,
        cpu: cpu_usage(sent),
    });
    out.cpu = Some(cpu_usage(usage.plus(sent)));
}

fn fill_metrics(out: &mut CaseResult, rcv: &ReceiverOut, shape: Shape) {
    let side = &rcv.side;
    let reps = side.rep_ns.len().min(side.rep_usage.len());
    let count = shape.sched.count as f64;
    let rate = |i: usize| count * 1e9 / side.rep_ns[i] as f64;
    MSGS_PER_S.set(out, per_rep(reps, rate));
    BYTES_PER_S.set(out, per_rep(reps, |i| rate(i) * shape.size as f64));
    let cpu = |i: usize| side.rep_usage[i].cpu_ns as f64 / count;
    RECV_CPU_NS_PER_MSG.set(out, per_rep(reps, cpu));
    FAIRNESS.set(out, rcv.fairness.clone());
    MSGS_PER_S.set_headline(out);
}
