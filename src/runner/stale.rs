//! Leftovers of a run that could not clean up (SIGKILL, a crash): its temp
//! dir `$TMPDIR/iolab-<pid>-XXXXXX` (FIFOs, test files) and the network
//! namespaces `iolab-<pid>-...` of an emulated link (with their veth and
//! qdisc). Every such name carries the owning process's PID, so the next
//! `iolab run` removes those whose owner is gone: only iolab's names, only
//! the current user's dirs, namespaces only as root. A PID that is alive
//! keeps its leftovers, even if another program reused it.

use rustix::io::Errno;
use rustix::process::{geteuid, test_kill_process, Pid};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What every iolab temp dir and network namespace name starts with.
const PREFIX: &str = "iolab-";

/// `iolab-<this process's pid>-`: the start of the names this run creates.
pub(crate) fn own_prefix() -> String {
    format!("{PREFIX}{}-", std::process::id())
}

/// The owning PID of an iolab name `iolab-<pid>-<rest>` (rest not empty);
/// `None` for any other name.
fn owner_pid(name: &str) -> Option<i32> {
    let (pid, rest) = name.strip_prefix(PREFIX)?.split_once('-')?;
    if rest.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok().filter(|pid| *pid > 0)
}

/// True only when no process `pid` exists (ESRCH); a process of another
/// user (EPERM) or a zombie counts as alive.
fn is_gone(pid: i32) -> bool {
    Pid::from_raw(pid).is_some_and(|pid| test_kill_process(pid) == Err(Errno::SRCH))
}

/// Removes the stale leftovers and says so on stderr, one line each.
pub(crate) fn sweep() {
    let mut lines = sweep_temp_dirs(&std::env::temp_dir());
    lines.extend(sweep_netns());
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

/// As root, the `iolab-<pid>-*` network namespaces whose process is gone.
fn sweep_netns() -> Vec<String> {
    if !geteuid().is_root() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(crate::scenario::link::NETNS_DIR) else {
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
        lines.push(match crate::scenario::link::delete_netns(&name) {
            Ok(()) => removed(&format!("network namespace {name}"), pid),
            Err(e) => format!("warning: cannot remove network namespace {name}: {e:#}"),
        });
    }
    lines
}

fn removed(what: &str, pid: i32) -> String {
    format!("removed stale {what}, left by iolab process {pid}, which is gone")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_iolab_names_with_a_pid_have_an_owner() {
        assert_eq!(owner_pid("iolab-123-abc"), Some(123));
        assert_eq!(owner_pid("iolab-7-0-s"), Some(7));
        for other in [
            "iolab-abcdef",
            "iolab-123-",
            "iolab--x",
            "iolab-12a-x",
            "iolab-0-x",
            "iolab-+5-x",
            "xiolab-123-abc",
            "other-123-abc",
            "iolab-99999999999999999999-x",
        ] {
            assert_eq!(owner_pid(other), None, "{other}");
        }
        let own = format!("{}x", own_prefix());
        assert_eq!(owner_pid(&own), Some(std::process::id() as i32));
    }

    #[test]
    fn a_reaped_process_is_gone_and_a_live_one_is_not() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        child.wait().unwrap();
        assert!(is_gone(pid));
        assert!(!is_gone(std::process::id() as i32));
        assert!(!is_gone(1), "init is alive (and not ours)");
    }

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
