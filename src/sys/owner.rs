//! Who left a leftover behind: every name iolab gives to something that
//! can outlive a killed run (temp dirs, network namespaces, message
//! queues) is `iolab-<pid>-<rest>`, so a later run can tell whether its
//! owner is gone. Shared by the stale sweep and the mechanisms that make
//! such names.

use rustix::io::Errno;
use rustix::process::{test_kill_process, Pid};

/// What every iolab name of a leftover starts with.
pub(crate) const PREFIX: &str = "iolab-";

/// `iolab-<this process's pid>-`: the start of the names this run creates.
pub(crate) fn own_prefix() -> String {
    format!("{PREFIX}{}-", std::process::id())
}

/// `$TMPDIR/iolab-<pid>-XXXXXX`, readable by this user only: a run's FIFOs
/// and test files, or a guest's files, live inside it. The PID tells a
/// later run whether it is stale (`runner::stale`).
pub(crate) fn private_temp_dir() -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(&own_prefix())
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
}

/// The owning PID of an iolab name `iolab-<pid>-<rest>` (rest not empty);
/// `None` for any other name.
pub(crate) fn owner_pid(name: &str) -> Option<i32> {
    let (pid, rest) = name.strip_prefix(PREFIX)?.split_once('-')?;
    if rest.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok().filter(|pid| *pid > 0)
}

/// True when no process `pid` exists (ESRCH), or when it is a zombie: it
/// has died and only waits for its parent (a slow PID 1) to reap it, so
/// its leftovers are no one's. A process of another user (EPERM) counts as
/// alive.
pub(crate) fn is_gone(pid: i32) -> bool {
    let Some(pid) = Pid::from_raw(pid) else {
        return false;
    };
    match test_kill_process(pid) {
        Err(Errno::SRCH) => true,
        _ => is_zombie(pid.as_raw_nonzero().get()),
    }
}

/// Whether every thread of `pid` is dead (state `Z` or `X` in
/// /proc/PID/task/TID/stat): a leader that exited while other threads run
/// reads `Z` too, but its process lives.
fn is_zombie(pid: i32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    let mut seen = false;
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        if !matches!(state(&stat), Some('Z' | 'X')) {
            return false;
        }
        seen = true;
    }
    seen
}

/// The state letter of a /proc stat line: the field after the command,
/// which is in parentheses and may itself hold `)`.
fn state(stat: &str) -> Option<char> {
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temp_dir_is_private_and_named_for_this_run() {
        use std::os::unix::fs::PermissionsExt;
        let dir = private_temp_dir().unwrap();
        let mode = std::fs::metadata(dir.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let name = dir.path().file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(&own_prefix()), "{name}");
        assert_eq!(owner_pid(name), Some(std::process::id() as i32));
    }

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
    fn the_state_is_read_past_a_command_holding_parentheses() {
        assert_eq!(state("42 (a) b) Z 1 42"), Some('Z'));
        assert_eq!(state("7 (sleep) S 1 7"), Some('S'));
        assert_eq!(state(""), None);
    }

    #[test]
    fn a_zombie_is_gone_until_reaped_and_after() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !is_zombie(pid) {
            assert!(std::time::Instant::now() < deadline, "`true` never ended");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(is_gone(pid), "a zombie owns nothing");
        child.wait().unwrap();
        assert!(is_gone(pid));
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
}
