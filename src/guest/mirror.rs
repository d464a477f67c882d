//! What the guest takes from the host so that a claim reads the kernel and
//! not the guest: the host's CPUs, its memory (as much as is free to give),
//! its open-file limits, and its cgroup controllers enabled in the guest's
//! cgroup v2 root. The guest's iolab gets a TMPDIR of its own: the host's
//! temp dir it writes into is no leftover for its sweep. What it cannot mirror is said, one line each, and
//! stored with the guest's run.

use std::path::Path;

/// The guest's share of the host, and what it could not take.
#[derive(Debug, Clone)]
pub(crate) struct Mirror {
    pub(crate) cpus: usize,
    pub(crate) memory_mib: u64,
    pub(crate) nofile: (u64, u64),
    /// The host's cgroup controllers, e.g. ["cpu", "memory", "pids"].
    pub(crate) controllers: Vec<String>,
    pub(crate) unmirrored: Vec<String>,
}

/// The controllers a guest's cgroup v2 root may enable.
const V2_CONTROLLERS: [&str; 5] = ["cpuset", "cpu", "io", "memory", "pids"];

impl Mirror {
    /// This host's CPUs, memory (at most three quarters of what is
    /// available now), limits and cgroup controllers.
    pub(crate) fn of_host() -> Mirror {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let kib = |key: &str| {
            meminfo
                .lines()
                .find_map(|l| {
                    l.strip_prefix(key)?
                        .split_whitespace()
                        .next()?
                        .parse::<u64>()
                        .ok()
                })
                .unwrap_or(0)
        };
        let (total, available) = (kib("MemTotal:") / 1024, kib("MemAvailable:") / 1024);
        let memory_mib = total.min(available * 3 / 4).max(512);
        let mut unmirrored = Vec::new();
        if memory_mib < total {
            unmirrored.push(format!(
                "memory: {memory_mib} MiB of the host's {total} MiB (three quarters of what was available)"
            ));
        }
        let nofile = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Mirror {
            cpus,
            memory_mib,
            nofile: (
                nofile.current.unwrap_or(1024),
                nofile.maximum.unwrap_or(1 << 20),
            ),
            controllers: host_controllers(
                &std::fs::read_to_string("/proc/self/mounts").unwrap_or_default(),
            ),
            unmirrored,
        }
    }

    /// The guest's shell script: the limits and controllers, then `iolab
    /// run ARGS` writing its run into `dir`.
    pub(crate) fn script(&self, iolab: &Path, args: &[String], dir: &Path) -> String {
        let dir = quote(&dir.display().to_string());
        let run: Vec<String> = args.iter().map(|a| quote(a)).collect();
        let (soft, hard) = self.nofile;
        format!(
            "#!/bin/sh\n\
             ulimit -Hn {hard} || echo 'open-file limit: hard {hard} refused' >> {dir}/unmirrored\n\
             ulimit -Sn {soft} || echo 'open-file limit: soft {soft} refused' >> {dir}/unmirrored\n\
             for c in {controllers}; do\n\
             \x20 if grep -qw \"$c\" /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then\n\
             \x20   echo \"+$c\" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || echo \"cgroup controller $c: not enabled in the guest\" >> {dir}/unmirrored\n\
             \x20 else echo \"cgroup controller $c: not offered by the guest's kernel\" >> {dir}/unmirrored; fi\n\
             done\n\
             export TMPDIR=\"$(mktemp -d /tmp/iolab-guest.XXXXXX)\"\n\
             {iolab} run {run} --no-store --quiet --json {dir}/run.json 2> {dir}/stderr\n",
            controllers = self.controllers.join(" "),
            iolab = quote(&iolab.display().to_string()),
            run = run.join(" "),
        )
    }
}

/// The controllers of the host's cgroup mounts: a v1 hierarchy's options,
/// a v2 mount's cgroup.subtree_control.
fn host_controllers(mounts: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in mounts.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(dir), Some(kind), Some(options)) = (fields.get(1), fields.get(2), fields.get(3))
        else {
            continue;
        };
        let names: Vec<String> = match *kind {
            "cgroup" => options
                .split(',')
                .map(|o| {
                    if o == "blkio" {
                        "io".into()
                    } else {
                        o.to_string()
                    }
                })
                .collect(),
            "cgroup2" => std::fs::read_to_string(Path::new(dir).join("cgroup.subtree_control"))
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            _ => continue,
        };
        for name in names {
            if V2_CONTROLLERS.contains(&name.as_str()) && !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

/// `text` as one shell word.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_v1_hosts_controllers_are_read_from_its_mounts() {
        let mounts = "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n\
                      cgroup /sys/fs/cgroup/blkio cgroup rw,relatime,blkio 0 0\n\
                      cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0\n\
                      proc /proc proc rw 0 0\n";
        assert_eq!(host_controllers(mounts), ["memory", "io"]);
    }

    #[test]
    fn the_script_quotes_every_argument_and_writes_into_the_dir() {
        let m = Mirror {
            cpus: 2,
            memory_mib: 1024,
            nofile: (1024, 4096),
            controllers: vec!["memory".into()],
            unmirrored: Vec::new(),
        };
        let s = m.script(
            Path::new("/x/iolab"),
            &["probe".into(), "-p".into(), "a='b c'".into()],
            Path::new("/t/d"),
        );
        assert!(s.contains("'/x/iolab' run 'probe' '-p' 'a='\\''b c'\\''' --no-store --quiet --json '/t/d'/run.json"), "{s}");
        assert!(
            s.contains("ulimit -Hn 4096") && s.contains("ulimit -Sn 1024"),
            "{s}"
        );
        assert!(s.contains("for c in memory; do"), "{s}");
    }
}
