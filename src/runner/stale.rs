//! Leftovers of a run that could not clean up (SIGKILL, a crash): its temp
//! dir `$TMPDIR/iolab-<pid>-XXXXXX` (FIFOs, test files) and the network
//! namespaces `iolab-<pid>-...` of an emulated link (with their veth and
//! qdisc), the POSIX message queues `/iolab-<pid>-<n>` of `mq`, and the
//! System V queues of `sysv-msg`, which have no name and are noted in the
//! run's temp dir instead.
//! Every such name carries the owning process's PID, so the next
//! `iolab run` removes those whose owner is gone: only iolab's names, only
//! the current user's dirs, namespaces only as root. A PID that is alive
//! keeps its leftovers, even if another program reused it; a zombie (killed,
//! not yet reaped by its parent) is gone.

use crate::sys::owner::{is_gone, owner_pid};
use crate::sys::sysv_msg;
use rustix::process::geteuid;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Removes the stale leftovers and says so on stderr, one line each.
pub(crate) fn sweep() {
    let mut lines = sweep_temp_dirs(&std::env::temp_dir());
    lines.extend(sweep_netns());
    lines.extend(sweep_queues());
    for line in lines {
        eprintln!("{line}");
    }
}

/// The current user's `iolab-<pid>-*` dirs in `root` whose process is gone.
fn sweep_temp_dirs(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let me = geteuid().as_raw();
    let mut lines = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(owner_pid) else {
            continue;
        };
        // DirEntry::metadata does not follow a symlink.
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_dir() || meta.uid() != me || !is_gone(pid) {
            continue;
        }
        let path = entry.path();
        lines.extend(sweep_sysv_notes(&path, pid));
        lines.push(match std::fs::remove_dir_all(&path) {
            Ok(()) => removed(&path.display().to_string(), pid),
            Err(e) => format!(
                "warning: cannot remove {}, left by iolab process {pid}: {e}",
                path.display()
            ),
        });
    }
    lines
}

/// The System V queues a gone run noted in its temp dir (`sys::sysv_msg`),
/// removed where they still exist and are this user's.
fn sweep_sysv_notes(dir: &Path, pid: i32) -> Vec<String> {
    let Ok(notes) = std::fs::read_dir(dir.join(sysv_msg::NOTES_DIR)) else {
        return Vec::new();
    };
    notes
        .flatten()
        .filter_map(|note| note.file_name().to_str()?.parse::<i32>().ok())
        .filter(|id| sysv_msg::remove_stale(*id).unwrap_or(false))
        .map(|id| removed(&format!("System V message queue {id}"), pid))
        .collect()
}

/// As root, the `iolab-<pid>-*` network namespaces whose process is gone.
fn sweep_netns() -> Vec<String> {
    if !geteuid().is_root() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(crate::exec::link::NETNS_DIR) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Some(pid) = owner_pid(&name).filter(|pid| is_gone(*pid)) else {
            continue;
        };
        lines.push(match crate::exec::link::delete_netns(&name) {
            Ok(()) => removed(&format!("network namespace {name}"), pid),
            Err(e) => format!("warning: cannot remove network namespace {name}: {e:#}"),
        });
    }
    lines
}

/// POSIX message queues of dead iolab processes, where /dev/mqueue lists them.
fn sweep_queues() -> Option<String> {
    match crate::mechanism::mq::sweep_stale_queues() {
        Ok(0) => None,
        Ok(n) => Some(format!(
            "removed {n} stale message queue{} left by iolab processes that are gone",
            if n == 1 { "" } else { "s" }
        )),
        Err(e) => Some(format!("warning: cannot sweep stale message queues: {e}")),
    }
}

fn removed(what: &str, pid: i32) -> String {
    format!("removed stale {what}, left by iolab process {pid}, which is gone")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::owner::own_prefix;

    #[test]
    fn only_dead_owners_dirs_are_swept() {
        let root = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = root.path().join(format!("iolab-{dead}-abc"));
        std::fs::create_dir_all(stale.join("case-0")).unwrap();
        let kept = [
            format!("{}live", own_prefix()),
            format!("other-{dead}-abc"),
            "iolab-xyzabc".to_string(),
        ];
        for name in &kept {
            std::fs::create_dir(root.path().join(name)).unwrap();
        }
        std::fs::write(root.path().join(format!("iolab-{dead}-file")), b"x").unwrap();
        let lines = sweep_temp_dirs(root.path());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains(&stale.display().to_string()), "{lines:?}");
        assert!(!stale.exists());
        for name in &kept {
            assert!(root.path().join(name).exists(), "{name} was removed");
        }
        assert!(root.path().join(format!("iolab-{dead}-file")).exists());
    }
}
