//! Forking a measurement side. The child dies with its parent
//! (PR_SET_PDEATHSIG), so no peer outlives an iolab that crashed or was
//! killed, and it leaves through `exit_child`, never back into the caller.
//! It closes the perf events it inherited: an open perf event costs the
//! kernel work on every context switch even while disabled, and a copy in
//! a side would keep the runner's tracer events alive for the whole case.

use super::cvt;
use std::io;

pub enum Forked {
    /// In the child: run the side, then call `exit_child`.
    Child,
    Parent(i32),
}

/// PR_SET_PDEATHSIG fires when the *thread* that forked exits, so call this
/// from a thread that outlives the child (the runner's thread does).
pub fn fork() -> io::Result<Forked> {
    let parent = rustix::process::getpid();
    // SAFETY: fork has no memory-safety preconditions; the child only runs
    // the side's code, which uses glibc's fork-safe allocator, then exits
    // through `exit_child`.
    let pid = cvt(unsafe { libc::fork() })?;
    if pid != 0 {
        return Ok(Forked::Parent(pid));
    }
    if prepare_child(parent).is_err() {
        exit_child(120);
    }
    Ok(Forked::Child)
}

/// Ends the child at once: the parent's buffers, temp dirs and destructors
/// are the parent's to flush and remove, not the child's.
pub fn exit_child(code: i32) -> ! {
    // SAFETY: _exit has no preconditions and does not return.
    unsafe { libc::_exit(code) }
}

/// Dies with the parent, and leaves SIGINT to its default so a terminal's
/// Ctrl-C (sent to the whole group) also ends the child.
fn prepare_child(parent: rustix::process::Pid) -> io::Result<()> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes plain integer arguments.
    cvt(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) })?;
    if rustix::process::getppid() != Some(parent) {
        return Err(io::Error::other("parent exited during fork"));
    }
    // SAFETY: restoring the default disposition of SIGINT is always valid.
    unsafe { libc::signal(libc::SIGINT, libc::SIG_DFL) };
    close_perf_events();
    Ok(())
}

/// Closes every perf event descriptor the child inherited. None is the
/// child's: its own counters are opened by the side, after the fork.
fn close_perf_events() {
    for fd in perf_event_fds() {
        // SAFETY: `fd` is open in this process and nothing in the child
        // owns it (the parent's objects that do are never dropped here).
        unsafe { libc::close(fd) };
    }
}

/// The descriptors of this process that are perf events, by their link in
/// /proc/self/fd (listed fully before any is closed).
pub(crate) fn perf_event_fds() -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|entry| {
            std::fs::read_link(entry.path())
                .is_ok_and(|target| target.as_os_str() == "anon_inode:[perf_event]")
        })
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect()
}
