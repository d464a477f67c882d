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

/// The owning PID of an iolab name `iolab-<pid>-<rest>` (rest not empty);
/// `None` for any other name.
pub(crate) fn owner_pid(name: &str) -> Option<i32> {
    let (pid, rest) = name.strip_prefix(PREFIX)?.split_once('-')?;
    if rest.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok().filter(|pid| *pid > 0)
}

/// True only when no process `pid` exists (ESRCH); a process of another
/// user (EPERM) or a zombie counts as alive.
pub(crate) fn is_gone(pid: i32) -> bool {
    Pid::from_raw(pid).is_some_and(|pid| test_kill_process(pid) == Err(Errno::SRCH))
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
}
