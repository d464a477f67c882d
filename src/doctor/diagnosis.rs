//! What the watch found, as figures: each channel (one kernel object, all
//! the descriptors it had in a process) with its calls, failed calls,
//! bytes, time and wake-ups (observed in the traced windows; rates scaled
//! to the untraced pace), the pattern of what moved (`pattern`), the most
//! a transport could save (`ceiling`), each thread's time split (from its
//! /proc counters over the whole watch), and what the tracer cost. The
//! JSON of `iolab doctor --json`.

use super::calls::{Call, Wake};
use super::ceiling::{self, Ceiling};
use super::channels::{Channel, SharedMap, SysvQueue};
use super::pattern::{self, Moved};
use super::syscalls;
use super::watch::{Ending, Observed};
use crate::measure::profile::KernelSymbols;
use std::collections::BTreeMap;

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Diagnosis {
    pub(crate) pid: i32,
    pub(crate) command: String,
    pub(crate) watched_s: f64,
    pub(crate) ending: Ending,
    pub(crate) tracer: Tracer,
    /// Busiest first: by the program's time in calls on the channel per
    /// second (on CPU in them, preempted and blocked on them).
    pub(crate) channels: Vec<ChannelCost>,
    /// Calls on no descriptor (futex, poll, select, System V queues), per
    /// process, and calls on a descriptor whose object the watch could not
    /// tell (opened and closed inside one window).
    pub(crate) other_calls: Vec<ProcessCalls>,
    pub(crate) threads: Vec<ThreadTime>,
    pub(crate) sysv_queues: Vec<SysvQueue>,
    pub(crate) shared_memory: Vec<SharedMap>,
    pub(crate) unreadable: Vec<String>,
    pub(crate) exit_status: Option<i32>,
    /// The signal that ended the command, when one did (`exit_status` is
    /// then 128 + it, as a shell shows).
    pub(crate) signal: Option<i32>,
    /// The busiest channels' patterns measured over the alternatives here
    /// (a projection, filled in after the watch).
    pub(crate) alternatives: Vec<super::alternatives::Alternatives>,
    /// `--try-placement`: the command run again each way, or why not.
    pub(crate) placement: Option<Result<super::placement::PlacementTrial, String>>,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Tracer {
    pub(crate) windows: u64,
    pub(crate) on_ms: u64,
    pub(crate) period_ms: u64,
    /// Traced time over watched time.
    pub(crate) traced_share: f64,
    pub(crate) lost_records: u64,
    pub(crate) unavailable: Option<String>,
    /// The watched processes' read/write calls per second inside and
    /// outside the windows, and what that makes the tracer cost overall.
    pub(crate) overhead: Option<Overhead>,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Overhead {
    pub(crate) calls_per_s_traced: f64,
    pub(crate) calls_per_s_untraced: f64,
    /// 1 - traced/untraced, at least 0: the slowdown while a window is open.
    pub(crate) slowdown_in_windows: f64,
    /// The program's run made longer by the windows' slowdown (0.05: 5%
    /// longer).
    pub(crate) tracer: f64,
    /// The run made longer by doctor's own CPU time taken from CPUs the
    /// program would use; doctor's CPU as a share of one CPU; the CPUs.
    pub(crate) doctor_cpu: f64,
    pub(crate) doctor_cpu_share: f64,
    pub(crate) cpus: usize,
    /// Both: how much longer the program ran than it would have unwatched,
    /// as its user would measure it.
    pub(crate) cost: f64,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct ChannelCost {
    /// The command of the process holding the descriptor.
    pub(crate) process: String,
    pub(crate) label: String,
    pub(crate) channel: Channel,
    /// Every descriptor the process had the object on while watched.
    pub(crate) fds: Vec<i32>,
    pub(crate) calls: Vec<CallRow>,
    /// What moved, each way, and the pattern it makes.
    pub(crate) moved: Moved,
    /// The most any transport could save here; None without calls.
    pub(crate) ceiling: Option<Ceiling>,
    /// Bytes per call: (bytes, calls), most frequent first, by direction.
    pub(crate) bytes_in: Vec<(u64, u64)>,
    pub(crate) bytes_out: Vec<(u64, u64)>,
    /// Nanoseconds per second spent in calls on it, over all threads.
    pub(crate) busy_ns_per_s: f64,
    pub(crate) wakeups: WakeStats,
    /// The leaf kernel functions of CPU samples taken inside its calls.
    pub(crate) hot_kernel: Vec<(String, u64)>,
}

#[derive(Debug, Default, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct CallRow {
    pub(crate) syscall: String,
    pub(crate) direction: syscalls::Direction,
    /// Calls that succeeded; the figures below are theirs.
    pub(crate) calls: u64,
    /// Successful calls per second of untraced time: per traced second,
    /// scaled by the pace of the untraced windows (`Overhead`).
    pub(crate) per_s: f64,
    /// Calls that failed, by error (EAGAIN, EINTR...), most first.
    pub(crate) failed: u64,
    pub(crate) errors: Vec<(String, u64)>,
    pub(crate) failed_per_s: f64,
    pub(crate) median_bytes: Option<f64>,
    pub(crate) median_ns: f64,
    /// Of the calls' time: switched out asleep, and preempted.
    pub(crate) blocked_share: f64,
    pub(crate) preempted_share: f64,
    pub(crate) on_cpu_median_ns: f64,
}

#[derive(Debug, Default, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct WakeStats {
    /// Wake-ups its calls caused, per second.
    pub(crate) per_s: f64,
    pub(crate) count: u64,
    pub(crate) cross_cpu_share: f64,
    /// Wake-up to the woken thread's next event.
    pub(crate) latency_median_ns: Option<f64>,
    /// Who woke whom: (waker comm/tid, wakee comm/tid, count).
    pub(crate) pairs: Vec<(String, String, u64)>,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct ProcessCalls {
    pub(crate) pid: i32,
    pub(crate) comm: String,
    pub(crate) calls: Vec<CallRow>,
    /// Calls on a descriptor that is neither a channel nor a file (a
    /// terminal, /dev/null, a directory) or whose object opened and closed
    /// inside one window.
    pub(crate) unidentified: Vec<CallRow>,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct ThreadTime {
    pub(crate) pid: i32,
    pub(crate) tid: i32,
    pub(crate) comm: String,
    pub(crate) watched_ms: f64,
    pub(crate) user_ms: f64,
    pub(crate) kernel_ms: f64,
    /// schedstat: runnable, waiting for a CPU (after wake-ups and
    /// preemptions alike).
    pub(crate) run_queue_ms: f64,
    /// The rest of the watched time: asleep.
    pub(crate) blocked_ms: f64,
    pub(crate) voluntary_csw: u64,
    pub(crate) involuntary_csw: u64,
    /// Share of its traced time inside calls on each channel.
    pub(crate) channel_shares: Vec<(String, f64)>,
    /// While traced: wake-ups it received, and the median time from each
    /// to its next event (its share of the run-queue time after a wake-up).
    pub(crate) woken: u64,
    pub(crate) wakeup_latency_median_ns: Option<f64>,
    /// While traced: time switched out runnable inside its calls (ns).
    pub(crate) preempted_in_calls_ns: u64,
}

pub(crate) fn diagnose(seen: &Observed) -> Diagnosis {
    let traced_s = seen.traced_ns as f64 / 1e9;
    let symbols = KernelSymbols::load().ok();
    let names = Names::of(seen);
    let rates = Rates {
        traced_s,
        scale: untraced_scale(seen),
    };
    let mut channels: Vec<ChannelCost> = objects(seen)
        .into_iter()
        .map(|(c, fds)| channel_cost(seen, c, fds, &rates, symbols.as_ref(), &names))
        .collect();
    flow_ceilings(seen, &mut channels, &names);
    channels.sort_by(|a, b| b.busy_ns_per_s.total_cmp(&a.busy_ns_per_s));
    Diagnosis {
        pid: seen.root,
        command: names.comm(seen.root),
        watched_s: (seen.ended - seen.started) as f64 / 1e9,
        ending: seen.ending,
        tracer: tracer(seen),
        other_calls: other_calls(seen, &rates, &names),
        threads: threads(seen, &channels),
        channels,
        sysv_queues: seen.scan_rest.sysv_queues.clone(),
        shared_memory: seen.scan_rest.shared_memory.clone(),
        unreadable: seen.scan_rest.unreadable.clone(),
        exit_status: seen.exit.map(exit_code),
        signal: seen.exit.and_then(|s| {
            use std::os::unix::process::ExitStatusExt;
            s.signal()
        }),
        alternatives: Vec::new(),
        placement: None,
    }
}

/// Counts over traced time, and the factor that turns a traced rate into
/// an untraced one.
struct Rates {
    traced_s: f64,
    scale: f64,
}

impl Rates {
    fn per_s(&self, count: usize) -> f64 {
        count as f64 / self.traced_s.max(1e-9) * self.scale
    }
}

/// The untraced pace over the traced one (at least 1): the tracer slows
/// every call it sees, so counts per traced second are scaled by it.
fn untraced_scale(seen: &Observed) -> f64 {
    overhead(seen, 0.0)
        .map(|o| o.calls_per_s_untraced / o.calls_per_s_traced)
        .filter(|s| s.is_finite())
        .map_or(1.0, |s| s.clamp(1.0, 1000.0))
}

/// Each channel's ceiling, over the flow it belongs to (`flow_key`).
fn flow_ceilings(seen: &Observed, channels: &mut [ChannelCost], names: &Names) {
    let listening: std::collections::BTreeSet<(i32, String)> = channels
        .iter()
        .filter_map(|c| match &c.channel.kind {
            super::channels::Kind::Tcp { local, state, .. } if state == "LISTEN" => {
                Some((c.channel.pid, local.clone()))
            }
            _ => None,
        })
        .collect();
    let mut flows: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, c) in channels.iter().enumerate() {
        let key = flow_key(&c.channel, &|local| {
            listening.contains(&(c.channel.pid, local.to_string()))
        });
        flows.entry(key).or_default().push(i);
    }
    let thread = |tid| names.thread(tid);
    for members in flows.values() {
        let calls: Vec<(&Call, pattern::Shape)> = members
            .iter()
            .flat_map(|&i| {
                let c = &channels[i];
                calls_on(seen, &c.channel).map(move |call| (call, c.moved.shape))
            })
            .collect();
        let found = ceiling::ceiling(&calls, members.len(), &seen.traced_by_tid, &thread);
        for &i in members {
            channels[i].ceiling = found.clone();
        }
    }
}

/// The flow a channel belongs to: its process's connections to or from
/// one service endpoint (a TCP connection's local end where the process
/// listens there, else its remote end; a unix socket's bound path), the
/// objects opened by the same call inside windows, else the object alone.
fn flow_key(c: &Channel, listens: &dyn Fn(&str) -> bool) -> String {
    use super::channels::Kind;
    let service = |local: &str, remote: &str| -> String {
        match listens(local) {
            true => local.to_string(),
            false => remote.to_string(),
        }
    };
    let what = match &c.kind {
        Kind::Tcp { local, remote, .. } => format!("tcp {}", service(local, remote)),
        Kind::Udp { local, remote, .. } => format!("udp {}", service(local, remote)),
        Kind::Unix {
            path: Some(path), ..
        } => format!("unix {path}"),
        Kind::Unix {
            peer_path: Some(path),
            ..
        } => format!("unix {path}"),
        Kind::Other { target } if target.contains(" from ") => {
            target.split(", ").next().unwrap_or(target).to_string()
        }
        _ => format!("object {} fd {}", c.inode, c.fd),
    };
    format!("{} {what}", c.pid)
}

/// The traced calls on `channel`'s object (on its descriptor, for an
/// object without an inode).
fn calls_on<'a>(seen: &'a Observed, channel: &'a Channel) -> impl Iterator<Item = &'a Call> + 'a {
    seen.analysis
        .calls
        .iter()
        .filter(move |c| seen.pid_of(c.tid) == Some(channel.pid))
        .filter(move |c| on_object(channel, c.fd, c.object))
}

/// Whether a call on `fd` acting on `object` is on `channel`.
fn on_object(channel: &Channel, fd: Option<i32>, object: Option<u64>) -> bool {
    match channel.inode {
        0 => object.is_none() && fd == Some(channel.fd),
        inode => object == Some(inode),
    }
}

/// One channel per kernel object and process, with every descriptor it
/// had there: a dup'd descriptor is the same channel, a reused number a
/// new one. Objects without an inode (eventfd, epoll...) stay per
/// descriptor.
fn objects(seen: &Observed) -> Vec<(&Channel, Vec<i32>)> {
    let mut by_object: BTreeMap<(i32, u64, i32), (&Channel, Vec<i32>)> = BTreeMap::new();
    for c in seen.channels.values() {
        let key = match c.inode {
            0 => (c.pid, 0, c.fd),
            inode => (c.pid, inode, 0),
        };
        let entry = by_object.entry(key).or_insert((c, Vec::new()));
        if c.fd >= 0 && !entry.1.contains(&c.fd) {
            entry.1.push(c.fd);
        }
    }
    by_object
        .into_values()
        .map(|(c, mut fds)| {
            fds.sort_unstable();
            (c, fds)
        })
        .collect()
}

/// The status a shell would show: the code, or 128 + the signal.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

struct Names<'a> {
    seen: &'a Observed,
}

impl<'a> Names<'a> {
    fn of(seen: &'a Observed) -> Names<'a> {
        Names { seen }
    }

    fn comm(&self, pid: i32) -> String {
        self.seen
            .comms
            .get(&pid)
            .cloned()
            .unwrap_or_else(|| "?".into())
    }

    fn thread(&self, tid: i32) -> String {
        match self.seen.last.get(&tid) {
            Some((_, t)) => format!("{} ({tid})", t.comm),
            None => format!("thread {tid}"),
        }
    }
}

fn tracer(seen: &Observed) -> Tracer {
    let watched = (seen.ended - seen.started).max(1) as f64;
    let traced_share = seen.traced_ns as f64 / watched;
    Tracer {
        windows: seen.windows,
        on_ms: seen.duty.on_ms,
        period_ms: seen.duty.period_ms,
        traced_share,
        lost_records: seen.lost,
        unavailable: seen.untraced.clone(),
        overhead: overhead(seen, traced_share),
    }
}

/// What the watch cost the program as its user would see it: the work
/// the windows held back (the program's pace there against outside) as a
/// longer run, and doctor's own CPU time where the program wants the
/// machine's CPUs too (on a machine with few, it takes them from it).
fn overhead(seen: &Observed, traced_share: f64) -> Option<Overhead> {
    let rate = |traced: bool| {
        let (ns, calls) = seen
            .pace
            .iter()
            .filter(|p| p.traced == traced)
            .fold((0u64, 0u64), |(n, c), p| (n + p.ns, c + p.calls));
        (ns > 0 && calls > 0).then(|| calls as f64 * 1e9 / ns as f64)
    };
    let (on, off) = (rate(true)?, rate(false)?);
    let slowdown = (1.0 - on / off).max(0.0);
    // The windows do a share `traced * (1 - slowdown)` of the work of
    // their time: the rest takes that much longer outside them.
    let held_back = traced_share * slowdown;
    let tracer = held_back / (1.0 - held_back).max(0.01);
    let cpu = doctor_cpu_cost(seen);
    Some(Overhead {
        calls_per_s_traced: on,
        calls_per_s_untraced: off,
        slowdown_in_windows: slowdown,
        tracer,
        doctor_cpu: cpu.0,
        doctor_cpu_share: cpu.1,
        cpus: cpu.2,
        cost: tracer + cpu.0,
    })
}

/// Doctor's own CPU as a cost to the program: the CPUs doctor took
/// (`doctor_cpu_share` of one), over the machine's, as far as the program
/// kept them busy. Returns (cost, share of one CPU, CPUs).
fn doctor_cpu_cost(seen: &Observed) -> (f64, f64, usize) {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let wall = (seen.ended - seen.started).max(1) as f64;
    let mine = seen.own_cpu_ns as f64 / wall;
    let program: f64 = seen
        .last
        .iter()
        .filter_map(|(tid, (_, last))| {
            let (_, first) = seen.first.get(tid)?;
            Some(last.oncpu_ns.saturating_sub(first.oncpu_ns) as f64)
        })
        .sum::<f64>()
        / wall;
    let free = (cpus as f64 - mine).max(0.1);
    let cost = mine / cpus as f64 * (program / free).min(1.0);
    (cost, mine, cpus)
}

fn channel_cost(
    seen: &Observed,
    channel: &Channel,
    fds: Vec<i32>,
    rates: &Rates,
    symbols: Option<&KernelSymbols>,
    names: &Names,
) -> ChannelCost {
    let on_it = |tid: i32, fd: Option<i32>, object: Option<u64>| {
        seen.pid_of(tid) == Some(channel.pid) && on_object(channel, fd, object)
    };
    let calls: Vec<&Call> = calls_on(seen, channel).collect();
    let wakes: Vec<&Wake> = seen
        .analysis
        .wakes
        .iter()
        .filter(|w| w.during.is_some_and(|(_, fd)| on_it(w.waker, fd, w.object)))
        .collect();
    let hot_kernel = hot_kernel(seen, symbols, |t| {
        t.during.is_some_and(|(_, fd)| on_it(t.tid, fd, t.object))
    });
    let moved = pattern::moved(&calls);
    ChannelCost {
        process: names.comm(channel.pid),
        label: channel.label(),
        channel: channel.clone(),
        fds,
        ceiling: None,
        moved,
        bytes_in: byte_counts(&calls, syscalls::Direction::In),
        bytes_out: byte_counts(&calls, syscalls::Direction::Out),
        busy_ns_per_s: calls.iter().map(|c| c.total_ns as f64).sum::<f64>()
            / rates.traced_s.max(1e-9),
        calls: call_rows(&calls, rates),
        wakeups: wake_stats(&wakes, rates.traced_s, names),
        hot_kernel,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    crate::stats::estimators::median(&mut values)
}

fn byte_counts(calls: &[&Call], direction: syscalls::Direction) -> Vec<(u64, u64)> {
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for c in calls.iter().filter(|c| c.direction == direction) {
        if let Some(b) = c.bytes {
            *counts.entry(b).or_default() += 1;
        }
    }
    let mut list: Vec<(u64, u64)> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    list
}

fn call_rows(calls: &[&Call], rates: &Rates) -> Vec<CallRow> {
    let mut by_nr: BTreeMap<i64, Vec<&Call>> = BTreeMap::new();
    for c in calls {
        by_nr.entry(c.nr).or_default().push(c);
    }
    let mut rows: Vec<CallRow> = by_nr
        .into_iter()
        .map(|(nr, list)| call_row(nr, &list, rates))
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.calls + r.failed));
    rows
}

/// One call's row: the figures of the calls that succeeded (of the failed
/// ones when none did), the failed ones counted by error.
fn call_row(nr: i64, all: &[&Call], rates: &Rates) -> CallRow {
    let (ok, failed): (Vec<&Call>, Vec<&Call>) = all.iter().partition(|c| c.error.is_none());
    let list = if ok.is_empty() { &failed } else { &ok };
    let total: f64 = list.iter().map(|c| c.total_ns as f64).sum::<f64>().max(1.0);
    let share = |f: fn(&Call) -> u64| list.iter().map(|c| f(c) as f64).sum::<f64>() / total;
    let values = |f: fn(&Call) -> f64| median(list.iter().map(|c| f(c)).collect());
    let bytes: Vec<f64> = ok
        .iter()
        .filter_map(|c| c.bytes)
        .map(|b| b as f64)
        .collect();
    let mut errors: BTreeMap<i32, u64> = BTreeMap::new();
    for e in failed.iter().filter_map(|c| c.error) {
        *errors.entry(e).or_default() += 1;
    }
    let mut errors: Vec<(String, u64)> = errors
        .into_iter()
        .map(|(e, n)| (syscalls::error_name(e), n))
        .collect();
    errors.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    CallRow {
        syscall: syscalls::name(nr),
        direction: all
            .first()
            .map_or(syscalls::Direction::Other, |c| c.direction),
        calls: ok.len() as u64,
        per_s: rates.per_s(ok.len()),
        failed: failed.len() as u64,
        failed_per_s: rates.per_s(failed.len()),
        errors,
        median_bytes: (!bytes.is_empty()).then(|| median(bytes)),
        median_ns: values(|c| c.total_ns as f64),
        blocked_share: share(|c| c.blocked_ns),
        preempted_share: share(|c| c.preempted_ns),
        on_cpu_median_ns: values(|c| {
            c.total_ns.saturating_sub(c.blocked_ns + c.preempted_ns) as f64
        }),
    }
}

fn wake_stats(wakes: &[&Wake], traced_s: f64, names: &Names) -> WakeStats {
    if wakes.is_empty() {
        return WakeStats::default();
    }
    let cross = wakes.iter().filter(|w| w.cross_cpu).count();
    let latencies: Vec<f64> = wakes
        .iter()
        .filter_map(|w| w.latency_ns)
        .map(|l| l as f64)
        .collect();
    let mut pairs: BTreeMap<(i32, i32), u64> = BTreeMap::new();
    for w in wakes {
        *pairs.entry((w.waker, w.wakee)).or_default() += 1;
    }
    let mut pairs: Vec<(String, String, u64)> = pairs
        .into_iter()
        .map(|((a, b), n)| (names.thread(a), names.thread(b), n))
        .collect();
    pairs.sort_by_key(|p| std::cmp::Reverse(p.2));
    WakeStats {
        per_s: wakes.len() as f64 / traced_s.max(1e-9),
        count: wakes.len() as u64,
        cross_cpu_share: cross as f64 / wakes.len() as f64,
        latency_median_ns: (!latencies.is_empty()).then(|| median(latencies)),
        pairs,
    }
}

/// Top leaf kernel functions of the CPU samples `inside` selects.
fn hot_kernel(
    seen: &Observed,
    symbols: Option<&KernelSymbols>,
    inside: impl Fn(&super::calls::Tick) -> bool,
) -> Vec<(String, u64)> {
    let Some(symbols) = symbols else {
        return Vec::new();
    };
    let stacks = seen.stacks.list();
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for t in seen
        .analysis
        .ticks
        .iter()
        .filter(|t| t.stack > 0 && inside(t))
    {
        let leaf = stacks
            .get(t.stack as usize - 1)
            .and_then(|chain| chain.first())
            .and_then(|ip| symbols.name(*ip));
        if let Some(name) = leaf {
            *counts.entry(name.to_string()).or_default() += 1;
        }
    }
    let mut list: Vec<(String, u64)> = counts.into_iter().collect();
    list.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    list.truncate(5);
    list
}

fn other_calls(seen: &Observed, rates: &Rates, names: &Names) -> Vec<ProcessCalls> {
    let anonymous: std::collections::BTreeSet<(i32, i32)> = seen
        .channels
        .values()
        .filter(|c| c.inode == 0)
        .map(|c| (c.pid, c.fd))
        .collect();
    let mut by_pid: BTreeMap<i32, (Vec<&Call>, Vec<&Call>)> = BTreeMap::new();
    for c in &seen.analysis.calls {
        let Some(pid) = seen.pid_of(c.tid) else {
            continue;
        };
        match (c.fd, c.object) {
            (None, _) => by_pid.entry(pid).or_default().0.push(c),
            (Some(fd), None) if !anonymous.contains(&(pid, fd)) => {
                by_pid.entry(pid).or_default().1.push(c)
            }
            _ => {}
        }
    }
    by_pid
        .into_iter()
        .map(|(pid, (none, unnamed))| ProcessCalls {
            pid,
            comm: names.comm(pid),
            calls: call_rows(&none, rates),
            unidentified: call_rows(&unnamed, rates),
        })
        .collect()
}

fn threads(seen: &Observed, channels: &[ChannelCost]) -> Vec<ThreadTime> {
    let mut list: Vec<ThreadTime> = seen
        .last
        .iter()
        .filter_map(|(tid, (at, last))| {
            let (from, first) = seen.first.get(tid)?;
            let ms = |ns: u64| ns as f64 / 1e6;
            let watched = at.saturating_sub(*from);
            let oncpu = last.oncpu_ns.saturating_sub(first.oncpu_ns);
            let run_queue = last.run_delay_ns.saturating_sub(first.run_delay_ns);
            Some(ThreadTime {
                pid: last.pid,
                tid: *tid,
                comm: last.comm.clone(),
                watched_ms: ms(watched),
                user_ms: ms(last.user_ns.saturating_sub(first.user_ns)),
                kernel_ms: ms(last.kernel_ns.saturating_sub(first.kernel_ns)),
                run_queue_ms: ms(run_queue),
                blocked_ms: ms(watched.saturating_sub(oncpu + run_queue)),
                voluntary_csw: last.voluntary_csw.saturating_sub(first.voluntary_csw),
                involuntary_csw: last.involuntary_csw.saturating_sub(first.involuntary_csw),
                channel_shares: shares(seen, *tid, channels),
                woken: woken_latencies(seen, *tid).len() as u64,
                wakeup_latency_median_ns: Some(woken_latencies(seen, *tid))
                    .filter(|l| !l.is_empty())
                    .map(median),
                preempted_in_calls_ns: seen
                    .analysis
                    .calls
                    .iter()
                    .filter(|c| c.tid == *tid)
                    .map(|c| c.preempted_ns)
                    .sum(),
            })
        })
        .collect();
    list.sort_by_key(|t| (t.pid, t.tid));
    list
}

/// The latencies of the traced wake-ups of thread `tid`.
fn woken_latencies(seen: &Observed, tid: i32) -> Vec<f64> {
    seen.analysis
        .wakes
        .iter()
        .filter(|w| w.wakee == tid)
        .filter_map(|w| w.latency_ns)
        .map(|l| l as f64)
        .collect()
}

/// The share of the thread's traced time spent in calls on each channel of
/// its process.
fn shares(seen: &Observed, tid: i32, channels: &[ChannelCost]) -> Vec<(String, f64)> {
    let traced = seen.traced_by_tid.get(&tid).copied().unwrap_or(0).max(1) as f64;
    channels
        .iter()
        .filter(|c| seen.pid_of(tid) == Some(c.channel.pid))
        .filter_map(|c| {
            let ns: u64 = seen
                .analysis
                .calls
                .iter()
                .filter(|call| call.tid == tid)
                .filter(|call| on_object(&c.channel, call.fd, call.object))
                .map(|call| call.total_ns)
                .sum();
            (ns > 0).then(|| (c.label.clone(), ns as f64 / traced))
        })
        .collect()
}
