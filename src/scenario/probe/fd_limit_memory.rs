//! E5-fd-limit-memory: epoll's limit is said to be the open-file maximum,
//! about 100,000 per GB of memory. The system-wide `fs.file-max` beside
//! the memory, and every other limit on how many descriptors one process
//! can watch: RLIMIT_NOFILE, `fs.nr_open` (the most RLIMIT_NOFILE may be
//! raised to) and `fs.epoll.max_user_watches`; the lowest binds first.

use super::{read_number, Probing};
use anyhow::Context;
use rustix::process::{getrlimit, Resource};

const GIB: f64 = (1u64 << 30) as f64;

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let memory = mem_total().context("reading MemTotal from /proc/meminfo")?;
    p.measured(
        "mem_total",
        "read MemTotal in /proc/meminfo",
        format!("{memory} bytes"),
        memory as f64,
        "bytes",
    );
    let mut limits: Vec<(&str, u64)> = Vec::new();
    for (name, path) in [
        ("file_max", "/proc/sys/fs/file-max"),
        ("nr_open", "/proc/sys/fs/nr_open"),
        ("max_user_watches", "/proc/sys/fs/epoll/max_user_watches"),
    ] {
        let call = format!("read {path}");
        match read_number(path) {
            Ok(v) => {
                p.measured(name, call, v.to_string(), v as f64, "descriptors");
                limits.push((name, v));
            }
            Err(e) => p.refused(name, call, &e),
        }
    }
    if let Some((_, max)) = limits.iter().find(|(n, _)| *n == "file_max") {
        let per_gib = *max as f64 / (memory as f64 / GIB);
        let answer = format!("{per_gib:.0} per GiB");
        p.measured(
            "file_max_per_gib",
            "fs.file-max / (MemTotal / 1 GiB)",
            answer,
            per_gib,
            "descriptors/GiB",
        );
    }
    let rl = getrlimit(Resource::Nofile);
    for (name, value) in [("nofile_soft", rl.current), ("nofile_hard", rl.maximum)] {
        let v = value.unwrap_or(u64::MAX);
        let shown = value.map_or("unlimited".to_string(), |v| v.to_string());
        p.measured(
            name,
            format!("getrlimit(RLIMIT_NOFILE) {}", &name[7..]),
            shown,
            v as f64,
            "descriptors",
        );
        if name == "nofile_hard" {
            limits.push((name, v));
        }
    }
    binds_first(p, &limits);
    Ok(())
}

/// The lowest of the limits on how many descriptors one process may watch.
fn binds_first(p: &mut Probing, limits: &[(&str, u64)]) {
    let Some((name, value)) = limits.iter().min_by_key(|(_, v)| *v) else {
        return;
    };
    let all: Vec<String> = limits.iter().map(|(n, v)| format!("{n} {v}")).collect();
    let answer = format!("{name} binds first at {value} ({})", all.join(", "));
    p.measured(
        "binds_first",
        "the lowest of fs.file-max, fs.nr_open, max_user_watches and the hard RLIMIT_NOFILE",
        answer,
        *value as f64,
        "descriptors",
    );
}

fn mem_total() -> anyhow::Result<u64> {
    let text = std::fs::read_to_string("/proc/meminfo")?;
    let line = text
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .context("no MemTotal line")?;
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .context("no value")?
        .parse()?;
    Ok(kib * 1024)
}
