//! `poll-scale` (E5): select, poll and epoll against idle connections. A
//! server process waits on all its connections with the poller under test
//! and answers one-byte requests; a client process keeps `active` requests
//! outstanding; a third process holds `idle` connections open and silent.
//! The time for 40,000 round trips (the original's y axis, at the rate of
//! each repetition of `requests`) shows what each idle connection costs
//! the poller: the original found poll linear in them, epoll flat.

mod sides;
use crate::exec::procs::{self, Child};
use crate::measure::pin::{self, Placement};
use crate::model::{CaseResult, Finding, LatencyKind};
use crate::scenario::classic::{ClassicChart, ClassicKind, Mark, Original};
use crate::scenario::common::fd_budget::FdBudget;
use crate::scenario::common::readiness::{growth, poller_of, POLLER_PARAM};
use crate::scenario::common::side::cpu_usage;
use crate::scenario::common::side::{Schedule, SideOut};
use crate::scenario::common::two_sided::{per_rep, settle};
use crate::scenario::{CaseCtx, CaseSpec, MetricSpec, ParamKind, ParamSpec, Scenario};
use crate::stats::histogram::Latencies;
use anyhow::Context;
use sides::{client, idle_holder, listener, server, ServerCfg};
use std::time::{Duration, Instant};

pub(crate) struct PollScale;

const TRANSPORT: ParamSpec = ParamSpec {
    name: "transport",
    kind: ParamKind::Choice(&["tcp", "unix"]),
    default: "tcp",
    about: "connections over TCP on loopback (as the original) or Unix stream sockets",
    in_name: true,
};

pub(crate) const IDLE: ParamSpec = ParamSpec {
    name: "idle",
    kind: ParamKind::Number,
    default: "0,100,1000",
    about: "idle connections (the original's zombies): connected, never sending",
    in_name: true,
};

const ACTIVE: ParamSpec = ParamSpec {
    name: "active",
    kind: ParamKind::Count,
    default: "10",
    about: "active connections, each with one request outstanding at all times",
    in_name: false,
};

const REQUESTS: ParamSpec = ParamSpec {
    name: "requests",
    kind: ParamKind::Count,
    default: "40000",
    about: "request/answer round trips per repetition, over all active connections",
    in_name: false,
};

const PARAMS: &[ParamSpec] = &[POLLER_PARAM, TRANSPORT, IDLE, ACTIVE, REQUESTS];

pub(crate) const SECONDS: MetricSpec = MetricSpec {
    name: "seconds",
    unit: "s",
    about: "time for 40000 round trips: the original's, at the client, at the rate of this repetition's `requests` (the original's y axis; comparable whatever a repetition times)",
};

const REQ_PER_S: MetricSpec = MetricSpec {
    name: "req_per_s",
    unit: "1/s",
    about: "round trips per second",
};

pub(crate) const SERVER_CPU_US_PER_REQ: MetricSpec = MetricSpec {
    name: "server_cpu_us_per_req",
    unit: "us",
    about: "server CPU time (user + system) per request answered",
};

const METRICS: &[MetricSpec] = &[SECONDS, REQ_PER_S, SERVER_CPU_US_PER_REQ];

/// Descriptors a process holds besides its connections: the poll set,
/// report and control pipes inherited from the parent, a little room.
const EXTRA_FDS: u64 = 12;
/// How long the server and the idle holder may take to end after the client.
const GRACE: Duration = Duration::from_secs(5);

/// The post's graph: seconds for the requests against idle connections.
const CLASSIC: &[ClassicChart] = &[ClassicChart {
    title: "E5: time to complete the requests against idle connections, a line per poller",
    kind: ClassicKind::Sweep {
        x: IDLE.name,
        metric: &SECONDS,
        points: 12,
    },
    only: &[("transport", "tcp")],
    original: Some(Original {
        label: "original (2006, 40,000 requests, the post's graph): poll's time grows \
                linearly over 0-10,240 idle connections, epoll's stays flat",
        mark: Mark::None,
        only: &[],
    }),
    full: "the seeds suite sweeps the original's 12 points, 0-10,240 idle connections \
           (`iolab run seeds`, or `iolab run poll-scale --param idle=0,10,20,40,80,160,320,640,1280,2560,5120,10240`)",
}];

impl Scenario for PollScale {
    fn name(&self) -> &'static str {
        "poll-scale"
    }
    fn about(&self) -> &'static str {
        "a server answering active clients while idle connections pile up, per poller (3 processes)"
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
    /// Interleaved rounds size the requests by time; `seconds` is the time
    /// for the original's 40,000 at each repetition's rate, so a sized
    /// case and a planned one still compare.
    fn batch_work(&self) -> Option<&'static ParamSpec> {
        Some(&REQUESTS)
    }
    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let poller = poller_of(case)?;
        let (idle, active) = (case.int(&IDLE), case.int(&ACTIVE));
        FdBudget::for_poller(poller)?.check("server", IDLE.name, idle, active + EXTRA_FDS, 1)?;
        FdBudget::process()?.check("idle holder", IDLE.name, idle, EXTRA_FDS, 1)?;
        let requests = case.int(&REQUESTS);
        let sched = Schedule {
            warmup: case.warmup_or(requests / 10),
            reps: case.repeat,
            count: requests,
            explain: false,
        };
        let corrupt_at = sched.fault_at(ctx.fault);
        let deadline = Instant::now() + ctx.timeout;
        let (listen_fd, addr) = listener(case.text(&TRANSPORT), ctx.dir)?;
        let (go_rx, go_tx) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
        let (stop_rx, stop_tx) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
        let cpus = pin::choose(Placement::CrossCpu).unwrap_or([None, None]);
        let cfg = ServerCfg {
            poller,
            conns: idle + active,
            tcp: addr.is_tcp(),
            total: sched.total(),
            corrupt_at,
        };
        let mut srv = procs::spawn("server", cpus[0], |r| server(listen_fd, cfg, r))?;
        let mut holder = procs::spawn("idle holder", None, |r| {
            idle_holder(&addr, idle, stop_rx, r)
        })?;
        let mut cli = procs::spawn("client", cpus[1], |r| {
            client(&addr, active, sched, go_rx, r)
        })?;
        procs::wait_ready(&mut [&mut srv, &mut holder, &mut cli], deadline)?;
        crate::mechanism::write_all_fd(&go_tx, b"g").context("starting the client")?;
        let reports = finish_pair(cli, srv, deadline)?;
        let _ = crate::mechanism::write_all_fd(&stop_tx, b"s");
        holder.finish::<u64>(deadline.min(Instant::now() + GRACE))?;
        if let Some([c, s]) = settle(out, reports, ["client", "server"]) {
            fill_metrics(out, &c, &s, sched);
        }
        Ok(())
    }

    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        // Wall time is what the original plotted; the server's CPU per
        // request shows the same cost without the machine's other load.
        let mut lines = growth(results, &IDLE, None);
        lines.extend(growth(results, &IDLE, Some(&SERVER_CPU_US_PER_REQ)));
        lines
    }
}

type Reports = [Result<SideOut, String>; 2];

/// The client's and the server's reports; an `unsupported` from either
/// (select refusing a descriptor) makes the whole case unsupported.
/// The server stops by itself after the last answer: once the client is
/// done it gets a short grace period, none if the client gave up early.
fn finish_pair(cli: Child, srv: Child, deadline: Instant) -> anyhow::Result<Reports> {
    let c = cli.finish::<SideOut>(deadline);
    let clean = matches!(&c, Ok(out) if out.mismatch.is_none());
    let grace = if clean { GRACE } else { Duration::ZERO };
    let s = srv.finish::<SideOut>(deadline.min(Instant::now() + grace));
    for r in [&c, &s] {
        if let Err(e) = r {
            if let Some(u) = e.downcast_ref::<crate::scenario::Unsupported>() {
                return Err(crate::scenario::Unsupported(u.0.clone()).into());
            }
        }
    }
    Ok([c, s].map(|r| r.map_err(|e| format!("{e:#}"))))
}

/// The original's requests, in whose time `seconds` is given: interleaved
/// rounds time fewer a repetition (`Scenario::batch_work`), and a plain
/// run's points and a round's must compare.
const ORIGINAL_REQUESTS: f64 = 40_000.0;

fn fill_metrics(out: &mut CaseResult, c: &SideOut, s: &SideOut, sched: Schedule) {
    let count = sched.count as f64;
    let reps = c.rep_ns.len();
    let seconds = per_rep(reps, |i| {
        c.rep_ns[i] as f64 / 1e9 * ORIGINAL_REQUESTS / count
    });
    let rate = per_rep(reps, |i| count * 1e9 / c.rep_ns[i] as f64);
    SECONDS.set(out, seconds);
    REQ_PER_S.set(out, rate);
    let server = s.total_usage();
    let cpu_us = server.cpu_ns as f64 / 1e3 / s.messages.max(1) as f64;
    SERVER_CPU_US_PER_REQ.set(out, vec![cpu_us]);
    out.cpu = Some(cpu_usage(server));
    SECONDS.set_headline(out);
    if let Some(blob) = &c.histogram {
        if let Ok(hist) = Latencies::from_v2(blob) {
            out.latency = Some(hist.summary(LatencyKind::RoundTrip));
        }
        out.histogram = Some(blob.clone());
    }
}
