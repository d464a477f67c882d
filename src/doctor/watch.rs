//! The watch: until the time is up, the program exits or Ctrl-C, it reads
//! the watched processes' threads and descriptors from /proc, and opens
//! the tracer for a short window out of every period. What it gathers is
//! raw; `diagnosis` turns it into figures.

use super::calls::{self, Analysis};
use super::channels::{self, Channel, Scan};
use super::objects;
use super::procs::{self, ThreadCounters};
use crate::exec::program::Watched;
use crate::measure::clock::now_ns;
use crate::measure::sched::Stacks;
use crate::measure::watch::{Points, Window};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::time::Duration;

/// How often the tracer opens, and for how long.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Duty {
    pub(crate) on_ms: u64,
    pub(crate) period_ms: u64,
}

/// How often the channels are read again (they are read at the start, at
/// the end and whenever the watched processes change too).
const SCAN_EVERY_NS: u64 = 5_000_000_000;

/// What is watched: a running process, or a command iolab started.
pub(crate) enum Target {
    Pid { pid: i32, children: bool },
    Command(Watched),
}

impl Target {
    fn root(&self) -> i32 {
        match self {
            Target::Pid { pid, .. } => *pid,
            Target::Command(w) => w.pid(),
        }
    }

    /// The processes watched now: the root, with every descendant when
    /// following children (always for a command).
    fn family(&self) -> Vec<i32> {
        match self {
            Target::Pid {
                pid,
                children: false,
            } => vec![*pid],
            _ => procs::with_descendants(self.root()),
        }
    }
}

/// Why the watch ended.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Ending {
    TimeUp,
    Exited,
    Interrupted,
}

/// A read/write call count of the watched processes over a stretch of
/// time, traced or not: the tracer's cost is the drop in their rate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pace {
    pub(crate) traced: bool,
    pub(crate) ns: u64,
    pub(crate) calls: u64,
}

/// Everything the watch gathered.
pub(crate) struct Observed {
    pub(crate) root: i32,
    pub(crate) started: u64,
    pub(crate) ended: u64,
    pub(crate) ending: Ending,
    pub(crate) duty: Duty,
    /// Each thread's first and last reading, with their times.
    pub(crate) first: HashMap<i32, (u64, ThreadCounters)>,
    pub(crate) last: HashMap<i32, (u64, ThreadCounters)>,
    /// Every channel seen, keyed by process, descriptor and object.
    pub(crate) channels: BTreeMap<(i32, i32, u64), Channel>,
    pub(crate) scan_rest: Scan,
    pub(crate) comms: BTreeMap<i32, String>,
    /// Why there is no tracer, when there is none.
    pub(crate) untraced: Option<String>,
    pub(crate) windows: u64,
    pub(crate) traced_ns: u64,
    pub(crate) lost: u64,
    pub(crate) analysis: Analysis,
    pub(crate) stacks: Stacks,
    pub(crate) pace: Vec<Pace>,
    /// Traced time by thread: a thread is traced only while it lives.
    pub(crate) traced_by_tid: HashMap<i32, u64>,
    /// The objects traced calls acted on, by process and inode.
    pub(crate) objects: BTreeMap<(i32, u64), objects::Object>,
    /// A traced call acted on a socket or pipe no scan has described.
    unscanned: bool,
    /// The last id given to an object opened and closed inside a window.
    next_id: u64,
    /// Doctor's own CPU time over the watch (all its threads).
    pub(crate) own_cpu_ns: u64,
    /// When the last window closed, and the call count then.
    untraced_since: Option<(u64, u64)>,
    /// The command's exit status (under `-- CMD`).
    pub(crate) exit: Option<std::process::ExitStatus>,
}

/// Watches `target` for at most `for_ns` (until it exits without one),
/// calling `tick` with the time watched so far.
pub(crate) fn watch(
    target: &mut Target,
    for_ns: Option<u64>,
    duty: Duty,
    tick: &dyn Fn(u64),
) -> Observed {
    let own_cpu = procs::process_cpu_ns(std::process::id() as i32);
    let points = Points::load();
    let mut seen = Observed::new(target.root(), duty, points.as_ref().err().cloned());
    let mut family = target.family();
    let period_ns = duty.period_ms * 1_000_000;
    let mut last_scan: Option<(u64, Vec<i32>)> = None;
    for window in 1.. {
        read_counters(&mut seen, &family);
        // Reading every descriptor on the machine for the peers takes a
        // while where there are many: again when the watched processes
        // change, else not more often than `SCAN_EVERY`.
        let due = last_scan
            .as_ref()
            .is_none_or(|(at, before)| *before != family || now_ns() - at >= SCAN_EVERY_NS);
        if due {
            scan(&mut seen, &family);
            last_scan = Some((now_ns(), family.clone()));
        }
        // Windows keep their schedule whatever the reading took.
        let next = seen.started + window * period_ns - duty.on_ms * 1_000_000;
        if let Some(ending) = rest(target, &seen, for_ns, next) {
            seen.ending = ending;
            break;
        }
        family = target.family();
        if let Ok(points) = &points {
            if seen.untraced.is_none() {
                trace_window(&mut seen, points, &family);
            }
        }
        // A connection the window saw is described while it may still be
        // open.
        if std::mem::take(&mut seen.unscanned) {
            scan(&mut seen, &family);
            last_scan = Some((now_ns(), family.clone()));
        }
        // Twice a period: a short-lived thread is seen closer to its ends.
        read_counters(&mut seen, &family);
        tick(now_ns() - seen.started);
    }
    scan(&mut seen, &family);
    complete_peers(&mut seen);
    add_unscanned_objects(&mut seen);
    read_counters(&mut seen, &family);
    seen.ended = now_ns();
    seen.own_cpu_ns = procs::process_cpu_ns(std::process::id() as i32).saturating_sub(own_cpu);
    if let Target::Command(w) = target {
        seen.exit = w.stop(&started_by_us()).ok();
    }
    seen
}

/// Every process iolab started, directly or not: as their subreaper, the
/// orphans of a stopped command are iolab's children too.
fn started_by_us() -> Vec<i32> {
    let me = std::process::id() as i32;
    procs::with_descendants(me)
        .into_iter()
        .filter(|p| *p != me)
        .collect()
}

impl Observed {
    fn new(root: i32, duty: Duty, untraced: Option<String>) -> Observed {
        Observed {
            root,
            started: now_ns(),
            ended: 0,
            ending: Ending::TimeUp,
            duty,
            first: HashMap::new(),
            last: HashMap::new(),
            channels: BTreeMap::new(),
            scan_rest: Scan::default(),
            comms: BTreeMap::new(),
            untraced,
            windows: 0,
            traced_ns: 0,
            lost: 0,
            analysis: Analysis::default(),
            stacks: Stacks::default(),
            pace: Vec::new(),
            traced_by_tid: HashMap::new(),
            objects: BTreeMap::new(),
            unscanned: false,
            next_id: 0,
            own_cpu_ns: 0,
            untraced_since: None,
            exit: None,
        }
    }

    /// The process each watched thread belongs to.
    pub(crate) fn pid_of(&self, tid: i32) -> Option<i32> {
        self.last.get(&tid).map(|(_, t)| t.pid)
    }
}

/// Waits until `until` (CLOCK_MONOTONIC ns) in short steps; Some when the
/// watch must end.
fn rest(target: &mut Target, seen: &Observed, for_ns: Option<u64>, until: u64) -> Option<Ending> {
    loop {
        if crate::cancel::cancelled() {
            return Some(Ending::Interrupted);
        }
        let gone = match target {
            Target::Command(w) => w.exited().is_some(),
            Target::Pid { pid, .. } => !procs::is_process(*pid),
        };
        if gone {
            return Some(Ending::Exited);
        }
        if for_ns.is_some_and(|limit| now_ns() - seen.started >= limit) {
            return Some(Ending::TimeUp);
        }
        if now_ns() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One traced window, and the pace of the calls before and inside it.
fn trace_window(seen: &mut Observed, points: &Points, family: &[i32]) {
    let owners: HashMap<i32, i32> = family
        .iter()
        .flat_map(|&p| procs::threads(p).into_iter().map(move |t| (t, p)))
        .collect();
    let tids: Vec<i32> = owners.keys().copied().collect();
    let tables = objects::read_tables(family);
    // A connection open now is described now: it may be gone by the
    // window's end.
    if has_unscanned(seen, &tables) {
        scan(seen, family);
    }
    let before = (now_ns(), io_calls(&seen.comms));
    if let (Some((at, calls)), Some(now)) = (seen.untraced_since.take(), before.1) {
        seen.pace.push(Pace {
            traced: false,
            ns: before.0 - at,
            calls: now.saturating_sub(calls),
        });
    }
    let mut window = match Window::open(points, &tids) {
        Ok(w) => w,
        Err(why) => {
            seen.untraced = Some(why);
            return;
        }
    };
    let opened = (now_ns(), io_calls(&seen.comms));
    std::thread::sleep(Duration::from_millis(seen.duty.on_ms));
    let closing = (now_ns(), io_calls(&seen.comms));
    window.stop();
    // The tables as the window ended, before its records are read.
    let after = objects::read_tables(family);
    let log = window.close(&mut seen.stacks);
    seen.windows += 1;
    seen.traced_ns += log.end - log.start;
    for tid in &tids {
        *seen.traced_by_tid.entry(*tid).or_default() += log.end - log.start;
    }
    seen.lost += log.lost;
    let mut found = calls::analyse(&log);
    let owner = |tid| owners.get(&tid).copied();
    let inside = objects::resolve(&mut found, &owner, &tables, &after, &mut seen.next_id);
    seen.objects
        .extend(inside.into_iter().map(|(pid, o)| ((pid, o.inode), o)));
    note_objects(seen, &found, &owners, [&tables, &after]);
    seen.analysis.calls.extend(found.calls);
    seen.analysis.wakes.extend(found.wakes);
    seen.analysis.ticks.extend(found.ticks);
    if let (Some(o), Some(c)) = (opened.1, closing.1) {
        seen.pace.push(Pace {
            traced: true,
            ns: closing.0 - opened.0,
            calls: c.saturating_sub(o),
        });
    }
    let after = (now_ns(), io_calls(&seen.comms));
    seen.untraced_since = after.1.map(|calls| (after.0, calls));
}

/// Whether a socket or pipe in `tables` is in no scan yet.
fn has_unscanned(seen: &Observed, tables: &objects::Tables) -> bool {
    let scanned: BTreeSet<(i32, u64)> = seen.channels.keys().map(|(p, _, i)| (*p, *i)).collect();
    tables.iter().any(|(pid, fds)| {
        fds.values()
            .any(|o| !o.file && !scanned.contains(&(*pid, o.inode)))
    })
}

/// Keeps the objects the window's calls acted on, and whether one of
/// them is a socket or pipe no scan has described yet.
fn note_objects(
    seen: &mut Observed,
    found: &Analysis,
    owners: &HashMap<i32, i32>,
    tables: [&objects::Tables; 2],
) {
    for c in &found.calls {
        let (Some(fd), Some(inode), Some(&pid)) = (c.fd, c.object, owners.get(&c.tid)) else {
            continue;
        };
        let known = seen.objects.contains_key(&(pid, inode));
        let entry = tables
            .iter()
            .filter_map(|t| t.get(&pid)?.get(&fd))
            .find(|o| o.inode == inode);
        if let (false, Some(object)) = (known, entry) {
            let scanned = seen
                .channels
                .keys()
                .any(|(p, _, i)| *p == pid && *i == inode);
            seen.unscanned |= !object.file && !scanned;
            seen.objects.insert((pid, inode), object.clone());
        }
    }
}

/// The watched processes' read and write calls so far, None when one of
/// them cannot be read.
fn io_calls(comms: &BTreeMap<i32, String>) -> Option<u64> {
    comms
        .keys()
        .filter(|p| procs::is_process(**p))
        .map(|p| procs::io_calls(*p))
        .sum()
}

fn read_counters(seen: &mut Observed, family: &[i32]) {
    let now = now_ns();
    for &pid in family {
        // Read each time: a forked child takes its name at exec.
        let comm = procs::comm(pid);
        if comm != "?" {
            seen.comms.insert(pid, comm);
        }
        for tid in procs::threads(pid) {
            if let Some(t) = procs::read_thread(pid, tid) {
                seen.first.entry(tid).or_insert_with(|| (now, t.clone()));
                seen.last.insert(tid, (now, t));
            }
        }
    }
}

/// Matches the ends seen in different reads of /proc with each other.
fn complete_peers(seen: &mut Observed) {
    let mut all: Vec<Channel> = std::mem::take(&mut seen.channels).into_values().collect();
    let comms = &seen.comms;
    let comm = |pid| comms.get(&pid).cloned().unwrap_or_else(|| procs::comm(pid));
    channels::complete_peers(&mut all, &comm);
    seen.channels = all
        .into_iter()
        .map(|c| ((c.pid, c.fd, c.inode), c))
        .collect();
}

/// The objects the calls acted on that no scan described (the program's
/// files, a connection gone before the next scan) become channels too.
fn add_unscanned_objects(seen: &mut Observed) {
    let scanned: BTreeSet<(i32, u64)> = seen.channels.keys().map(|(p, _, i)| (*p, *i)).collect();
    let fds: HashMap<(i32, u64), i32> = seen
        .analysis
        .calls
        .iter()
        .filter_map(|c| Some(((seen.pid_of(c.tid)?, c.object?), c.fd?)))
        .collect();
    for (&(pid, inode), object) in &seen.objects {
        if scanned.contains(&(pid, inode)) {
            continue;
        }
        let fd = fds.get(&(pid, inode)).copied().unwrap_or(-1);
        let channel = Channel {
            pid,
            fd,
            inode,
            kind: object.kind(),
            peers: Vec::new(),
        };
        seen.channels.insert((pid, fd, inode), channel);
    }
}

fn scan(seen: &mut Observed, family: &[i32]) {
    let found = channels::scan(Path::new("/proc"), family);
    for mut c in found.channels {
        // A peer seen once stays: it may have exited by the last scan.
        if let Some(before) = seen.channels.get(&(c.pid, c.fd, c.inode)) {
            for peer in &before.peers {
                if !c.peers.contains(peer) {
                    c.peers.push(peer.clone());
                }
            }
        }
        seen.channels.insert((c.pid, c.fd, c.inode), c);
    }
    let rest = &mut seen.scan_rest;
    // A process that exits mid-watch is no error of the scan.
    let gone = |line: &String| line.ends_with(": no such process");
    let unreadable: BTreeSet<String> = rest
        .unreadable
        .drain(..)
        .chain(found.unreadable.into_iter().filter(|l| !gone(l)))
        .collect();
    rest.unreadable = unreadable.into_iter().collect();
    rest.sysv_queues = found.sysv_queues;
    if rest.shared_memory.is_empty() {
        rest.shared_memory = found.shared_memory;
    }
}
