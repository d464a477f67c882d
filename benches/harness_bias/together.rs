//! iolab's pair and the C loop's run at once on one CPU, both sampled
//! there (`perf record -C`, software cpu-clock): each one's CPU time per
//! round trip, and the user-mode share of it. Run apart, two runs a second
//! apart differ by up to a third on a busy host; run together, the host's
//! speed is the same for both at every moment, and the scheduler gives each
//! pair its turns, so the ratio of their CPU per round trip is the harness's
//! own cost, free of when each ran.

use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

/// One sample per 100 us of CPU time.
const PERIOD_NS: u64 = 100_000;

/// What one pair measured: each side's CPU ns per round trip and the
/// user-mode share of it, iolab first.
pub struct Together {
    pub ns_per_trip: [f64; 2],
    pub user_share: [f64; 2],
}

/// Runs `iolab` (pinned to `cpu` by `taskset`) and, once its two sides
/// exist, `c_loop`, both doing `trips` round trips, sampled on `cpu`.
pub fn run(iolab: Command, mut c_loop: Command, cpu: usize, trips: u64, data: &Path) -> Together {
    let mut perf = spawn(
        Command::new("perf")
            .args(["record", "-q", "-e", "cpu-clock", "-c"])
            .arg(PERIOD_NS.to_string())
            .arg("-C")
            .arg(cpu.to_string())
            .arg("-o")
            .arg(data),
    );
    std::thread::sleep(Duration::from_millis(300)); // perf's events open
    let mut runner = spawn(pinned(&iolab, cpu).stdout(std::process::Stdio::null()));
    let iolab_sides = children(runner.id(), 2);
    let mut c = spawn(c_loop.stdout(std::process::Stdio::null()));
    let mut c_pids = children(c.id(), 1);
    c_pids.push(c.id());
    assert!(runner.wait().unwrap().success(), "iolab failed");
    assert!(c.wait().unwrap().success(), "the C loop failed");
    let pid = rustix::process::Pid::from_raw(perf.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    // perf record writes its file and ends by the SIGINT it was sent.
    let stopped = perf.wait().unwrap();
    assert!(stopped.signal() == Some(2), "perf record: {stopped}");
    let per_pid = samples(data);
    let of = |pids: &[u32]| {
        let (all, user) = pids
            .iter()
            .filter_map(|p| per_pid.get(p))
            .fold((0u64, 0u64), |(a, u), (all, user)| (a + all, u + user));
        // Each side of a pair does half the work: a process that is not
        // one of them (a helper the runner started) would show.
        assert!(
            pids.iter()
                .all(|p| per_pid.get(p).is_some_and(|(n, _)| 4 * n > all)),
            "{pids:?} are not the two sides of a pair: {per_pid:?}"
        );
        (
            all as f64 * PERIOD_NS as f64 / trips as f64,
            user as f64 / all as f64,
        )
    };
    let (iolab_ns, iolab_user) = of(&iolab_sides);
    let (c_ns, c_user) = of(&c_pids);
    Together {
        ns_per_trip: [iolab_ns, c_ns],
        user_share: [iolab_user, c_user],
    }
}

fn spawn(command: &mut Command) -> Child {
    command
        .spawn()
        .unwrap_or_else(|e| panic!("{:?}: {e}", command.get_program()))
}

/// `command` under `taskset -c cpu`: iolab places a same-CPU pair on a
/// CPU its affinity allows.
fn pinned(command: &Command, cpu: usize) -> Command {
    let mut taskset = Command::new("taskset");
    taskset
        .arg("-c")
        .arg(cpu.to_string())
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            taskset.env(key, value);
        }
    }
    taskset
}

/// The first `n` children of `pid`, waited for.
fn children(pid: u32, n: usize) -> Vec<u32> {
    for _ in 0..30_000 {
        let mut found = Vec::new();
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
        {
            let path = task.unwrap().path().join("children");
            let listed = std::fs::read_to_string(path).unwrap_or_default();
            found.extend(
                listed
                    .split_whitespace()
                    .filter_map(|c| c.parse::<u32>().ok()),
            );
        }
        if found.len() >= n {
            return found;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("process {pid} did not start {n} children in 30 s");
}

/// Samples per process: (all, in user mode).
fn samples(data: &Path) -> HashMap<u32, (u64, u64)> {
    let out = Command::new("perf")
        .args(["script", "-F", "pid,ip,dso", "-i"])
        .arg(data)
        .output()
        .expect("perf script");
    assert!(out.status.success(), "perf script -i {}", data.display());
    let mut per_pid: HashMap<u32, (u64, u64)> = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(pid) = line.split_whitespace().next().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let (all, user) = per_pid.entry(pid).or_default();
        *all += 1;
        *user += u64::from(!line.contains("[kernel."));
    }
    per_pid
}
