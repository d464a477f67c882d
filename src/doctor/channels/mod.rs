//! The IPC channels of a set of processes, read from /proc.
//!
//! `scan` answers which descriptors a process uses for IPC, of what kind,
//! and which process is at the other end, without privileges for the
//! user's own processes. It only reads /proc and asks sock_diag: it never
//! opens, reads or writes a watched descriptor, and never signals or
//! traces the process. What it cannot read it names in
//! `Scan::unreadable` instead of failing.

mod diag;
mod fdinfo;
mod fds;
mod label;
mod mounts;
mod net;
mod peers;
mod process;
mod procfs;
mod shm;
mod sysv;
mod types;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

pub(crate) use fds::bracketed;
pub(crate) use peers::complete as complete_peers;
use process::{Diag, DiagSource, Process};
pub(crate) use types::{Channel, Scan, SharedMap, SysvQueue};
// The parts of a channel the doctor's code may match on.
#[allow(unused_imports)]
pub(crate) use types::{Kind, Peer, ShmKind};

/// Reads the channels of `pids` (each process's every thread shares its fd
/// table) under `proc_root` (normally "/proc").
pub(crate) fn scan(proc_root: &Path, pids: &[i32]) -> Scan {
    scan_with(proc_root, pids, &diag::dump_unix)
}

/// `scan` with the unix socket peers taken from `diag`.
fn scan_with(proc_root: &Path, pids: &[i32], diag: DiagSource) -> Scan {
    let mut pids = pids.to_vec();
    pids.sort_unstable();
    pids.dedup();
    let mut scan = Scan::default();
    let mut diag = Diag::new(diag);
    let mut known = HashMap::new();
    for &pid in &pids {
        let links = scan_process(proc_root, pid, &mut diag, &mut scan);
        known.insert(pid, links);
    }
    peers::attach(proc_root, &known, &mut scan.channels);
    scan.sysv_queues = sysv_queues(proc_root, &pids, &mut scan.unreadable);
    scan.unreadable.extend(diag.problem());
    scan
}

/// Adds the channels and shared mappings of `pid` to `scan`; its fd links.
fn scan_process(proc_root: &Path, pid: i32, diag: &mut Diag, scan: &mut Scan) -> Vec<fds::FdLink> {
    let dir = proc_root.join(pid.to_string());
    if !dir.exists() {
        scan.unreadable.push(format!("pid {pid}: no such process"));
        return Vec::new();
    }
    let links = match fds::read_links(&dir) {
        Ok((links, errors)) => {
            scan.unreadable.extend(link_problems(pid, &errors));
            links
        }
        Err(e) => {
            scan.unreadable
                .push(procfs::pid_problem(pid, &dir.join("fd"), &e));
            Vec::new()
        }
    };
    let channels = Process::new(proc_root, pid, diag, &mut scan.unreadable).channels(&links);
    scan.channels.extend(channels);
    let maps = dir.join("maps");
    match std::fs::read_to_string(&maps) {
        Ok(text) => scan.shared_memory.extend(shm::parse(&text, pid)),
        Err(e) => scan.unreadable.push(procfs::pid_problem(pid, &maps, &e)),
    }
    links
}

/// One line per kind of error among the links of `pid` that could not be
/// read: "pid 1: /proc/1/fd/0 and 47 more: Permission denied".
fn link_problems(pid: i32, errors: &fds::LinkErrors) -> Vec<String> {
    let mut by_text: Vec<(String, &Path, usize)> = Vec::new();
    for (path, err) in errors {
        let text = procfs::err_text(err);
        match by_text.iter_mut().find(|(t, ..)| *t == text) {
            Some((.., count)) => *count += 1,
            None => by_text.push((text, path, 1)),
        }
    }
    let more = |n: usize| {
        if n > 1 {
            format!(" and {} more", n - 1)
        } else {
            String::new()
        }
    };
    by_text
        .into_iter()
        .map(|(text, path, n)| format!("pid {pid}: {}{}: {text}", path.display(), more(n)))
        .collect()
}

/// The SysV queues the scanned processes sent to or received from last.
fn sysv_queues(proc_root: &Path, pids: &[i32], unreadable: &mut Vec<String>) -> Vec<SysvQueue> {
    let path = proc_root.join("sysvipc").join("msg");
    match std::fs::read_to_string(&path) {
        Ok(text) => sysv::parse(&text, pids),
        Err(e) => {
            unreadable.push(format!("{}: {}", path.display(), procfs::err_text(&e)));
            Vec::new()
        }
    }
}
