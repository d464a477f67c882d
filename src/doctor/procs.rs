//! The watched processes as /proc shows them, readable without privileges
//! for the user's own processes: which processes descend from which,
//! their threads, and each thread's counters (CPU time by user and kernel,
//! time on CPU and waiting to run from `schedstat`, context switches).

use crate::sys::kernel_text::read_text;
use std::path::Path;

/// One reading of a thread's counters.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct ThreadCounters {
    pub(crate) pid: i32,
    pub(crate) tid: i32,
    pub(crate) comm: String,
    pub(crate) user_ns: u64,
    pub(crate) kernel_ns: u64,
    /// `schedstat`: time on CPU and runnable but waiting for one.
    pub(crate) oncpu_ns: u64,
    pub(crate) run_delay_ns: u64,
    pub(crate) voluntary_csw: u64,
    pub(crate) involuntary_csw: u64,
    /// The CPU it last ran on.
    pub(crate) cpu: u32,
}

/// `/proc/PID/task`: the process's threads (empty once it has gone).
pub(crate) fn threads(pid: i32) -> Vec<i32> {
    numbered_entries(&format!("/proc/{pid}/task"))
}

/// Every process now alive.
pub(crate) fn all_pids() -> Vec<i32> {
    numbered_entries("/proc")
}

fn numbered_entries(dir: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<i32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    found.sort_unstable();
    found
}

/// `pid` and every process descended from it.
pub(crate) fn with_descendants(pid: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = all_pids()
        .into_iter()
        .filter_map(|p| Some((p, parent_of(p)?)))
        .collect();
    let mut family = vec![pid];
    let mut i = 0;
    while i < family.len() {
        let parent = family[i];
        family.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    family
}

fn parent_of(pid: i32) -> Option<i32> {
    stat_fields(&read_text(format!("/proc/{pid}/stat"))?)?
        .get(1)?
        .parse()
        .ok()
}

/// The fields of a `stat` line after the command name, which may hold
/// spaces and parentheses: field 3 of proc(5) (`state`) is index 0.
fn stat_fields(line: &str) -> Option<Vec<&str>> {
    let (_, rest) = line.rsplit_once(") ")?;
    Some(rest.split_whitespace().collect())
}

/// A process's command name, or `?` once it has gone.
pub(crate) fn comm(pid: i32) -> String {
    read_text(format!("/proc/{pid}/comm"))
        .map(|c| c.trim().to_string())
        .unwrap_or_else(|| "?".into())
}

/// Whether `pid` is a process (not a thread id of one) alive now: a
/// zombie (exited, not yet reaped by its parent) is not.
pub(crate) fn is_process(pid: i32) -> bool {
    pid > 0 && Path::new(&format!("/proc/{pid}/task/{pid}")).exists() && !is_zombie(pid)
}

/// Whether `pid` has exited and waits for its parent to reap it.
pub(crate) fn is_zombie(pid: i32) -> bool {
    read_text(format!("/proc/{pid}/stat"))
        .and_then(|line| Some(stat_fields(&line)?.first() == Some(&"Z")))
        .unwrap_or(false)
}

/// Read and write calls the process has made (`/proc/PID/io` syscr +
/// syscw), None where the file is not readable.
pub(crate) fn io_calls(pid: i32) -> Option<u64> {
    let text = read_text(format!("/proc/{pid}/io"))?;
    let value = |key: &str| -> Option<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(key))?
            .trim()
            .parse()
            .ok()
    };
    Some(value("syscr:")? + value("syscw:")?)
}

/// A process's CPU time so far, all its threads, user and kernel (0 once
/// it has gone).
pub(crate) fn process_cpu_ns(pid: i32) -> u64 {
    let tick_ns = 1_000_000_000 / rustix::param::clock_ticks_per_second().max(1);
    let Some(line) = read_text(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    let fields = stat_fields(&line).unwrap_or_default();
    let ticks = |i: usize| -> u64 { fields.get(i).and_then(|v| v.parse().ok()).unwrap_or(0) };
    (ticks(11) + ticks(12)) * tick_ns
}

/// One thread's counters now; None once it has gone.
pub(crate) fn read_thread(pid: i32, tid: i32) -> Option<ThreadCounters> {
    let dir = format!("/proc/{pid}/task/{tid}");
    let stat = read_text(format!("{dir}/stat"))?;
    let status = read_text(format!("{dir}/status")).unwrap_or_default();
    let schedstat = read_text(format!("{dir}/schedstat")).unwrap_or_default();
    parse_thread(pid, tid, &stat, &status, &schedstat)
}

fn parse_thread(
    pid: i32,
    tid: i32,
    stat: &str,
    status: &str,
    schedstat: &str,
) -> Option<ThreadCounters> {
    let fields = stat_fields(stat)?;
    let ticks = |i: usize| -> u64 { fields.get(i).and_then(|v| v.parse().ok()).unwrap_or(0) };
    let tick_ns = 1_000_000_000 / rustix::param::clock_ticks_per_second().max(1);
    let comm = stat
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map_or("?", |(c, _)| c)
        .to_string();
    let mut sched = schedstat.split_whitespace().map(|v| v.parse().unwrap_or(0));
    let switches = |key: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    Some(ThreadCounters {
        pid,
        tid,
        comm,
        user_ns: ticks(11) * tick_ns,
        kernel_ns: ticks(12) * tick_ns,
        oncpu_ns: sched.next().unwrap_or(0),
        run_delay_ns: sched.next().unwrap_or(0),
        voluntary_csw: switches("voluntary_ctxt_switches:"),
        involuntary_csw: switches("nonvoluntary_ctxt_switches:"),
        cpu: ticks(36) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threads_counters_come_from_stat_status_and_schedstat() {
        let stat = "812 (my (odd) name) S 1 812 812 0 -1 4194560 100 0 0 0 \
                    250 30 0 0 20 0 1 0 100 1000 10 18446744073709551615 1 1 0 0 0 0 0 \
                    0 0 0 0 0 17 1 0 0 0 0 0";
        let status = "Name:\tcat\nvoluntary_ctxt_switches:\t42\nnonvoluntary_ctxt_switches:\t7\n";
        let t = parse_thread(812, 813, stat, status, "5000 600 9\n").unwrap();
        let tick_ns = 1_000_000_000 / rustix::param::clock_ticks_per_second();
        assert_eq!(t.comm, "my (odd) name");
        assert_eq!((t.user_ns, t.kernel_ns), (250 * tick_ns, 30 * tick_ns));
        assert_eq!((t.oncpu_ns, t.run_delay_ns), (5000, 600));
        assert_eq!((t.voluntary_csw, t.involuntary_csw), (42, 7));
        assert_eq!(t.cpu, 1);
    }

    #[test]
    fn this_process_is_found_with_its_threads_and_parent() {
        let me = std::process::id() as i32;
        assert!(is_process(me));
        assert!(threads(me).contains(&me));
        let parent = parent_of(me).unwrap();
        assert!(with_descendants(parent).contains(&me));
        assert!(read_thread(me, me).is_some());
        assert!(!is_process(-3));
    }
}
