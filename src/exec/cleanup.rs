//! Nothing is left behind: every child process, peer thread and temp dir a
//! run creates is registered here, and SIGINT/SIGTERM stop them all. The
//! first signal cancels the run (children killed, threads interrupted, the
//! runner unwinds and removes its temp dir, and reports which signal); a
//! second one exits at once after removing the registered directories and
//! running the registered teardown commands (network namespaces of an
//! emulated link). SIGKILL leaves no chance: `stale` sweeps up after it.

use crate::sys::signals::{interrupt, ThreadHandle};
use rustix::process::{kill_process, Pid, Signal};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

#[derive(Default)]
struct Registry {
    children: Vec<i32>,
    /// Process groups of their own (a guest's virtme-ng and its QEMU).
    groups: Vec<i32>,
    threads: Vec<ThreadHandle>,
    dirs: Vec<PathBuf>,
    teardowns: Vec<(u64, Vec<String>)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    children: Vec::new(),
    groups: Vec::new(),
    threads: Vec::new(),
    dirs: Vec::new(),
    teardowns: Vec::new(),
});
static NEXT_TEARDOWN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) use crate::cancel::{cancelled, cancelled_by};

pub(crate) fn track_child(pid: i32) {
    registry().children.push(pid);
}

pub(crate) fn untrack_child(pid: i32) {
    registry().children.retain(|p| *p != pid);
}

pub(crate) fn track_thread(thread: ThreadHandle) {
    registry().threads.push(thread);
}

/// A thread calls this before it exits, so the registry never names a
/// thread that is gone.
pub(crate) fn untrack_thread(thread: ThreadHandle) {
    registry().threads.retain(|t| *t != thread);
}

pub(crate) fn track_dir(dir: PathBuf) {
    registry().dirs.push(dir);
}

pub(crate) fn untrack_dir(dir: &std::path::Path) {
    registry().dirs.retain(|d| d != dir);
}

/// Registers a command (argv) that undoes something outside the process,
/// e.g. `ip netns del NAME`; the owner runs it itself and untracks it, and
/// a second Ctrl-C runs whatever is still registered before exiting.
pub(crate) fn track_teardown(argv: Vec<String>) -> u64 {
    let id = NEXT_TEARDOWN.fetch_add(1, Ordering::SeqCst);
    registry().teardowns.push((id, argv));
    id
}

pub(crate) fn untrack_teardown(id: u64) {
    registry().teardowns.retain(|(i, _)| *i != id);
}

fn run_teardowns(teardowns: &[(u64, Vec<String>)]) {
    for (_, argv) in teardowns {
        if let Some((program, args)) = argv.split_first() {
            let _ = std::process::Command::new(program)
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

/// Registers the process group `pgid` (a child started as its leader):
/// Ctrl-C kills every process in it.
pub(crate) fn track_group(pgid: i32) {
    registry().groups.push(pgid);
}

pub(crate) fn untrack_group(pgid: i32) {
    registry().groups.retain(|g| *g != pgid);
}

/// Kills every process of the group `pgid`.
pub(crate) fn kill_group(pgid: i32) {
    if let Some(pgid) = Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
    }
}

pub(crate) fn kill_child(pid: i32) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = kill_process(pid, Signal::KILL);
    }
}

/// Interrupts `thread` if it is still registered (alive).
pub(crate) fn interrupt_thread(thread: ThreadHandle) {
    let reg = registry();
    if reg.threads.contains(&thread) {
        let _ = interrupt(thread);
    }
}

/// Kills every child and interrupts every peer thread.
fn stop_everything() {
    let reg = registry();
    for pid in &reg.children {
        kill_child(*pid);
    }
    for pgid in &reg.groups {
        kill_group(*pgid);
    }
    for thread in &reg.threads {
        let _ = interrupt(*thread);
    }
}

/// Starts the signal watcher once per process. A watcher thread that
/// cannot be started (a tight `ulimit -v` leaves no room for its stack)
/// is an error: nothing may run that Ctrl-C could not stop.
pub(crate) fn install() -> anyhow::Result<()> {
    static STARTED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let started = STARTED.get_or_init(|| {
        crate::sys::signals::install_interrupt_handler();
        let signals = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
        match signal_hook::iterator::Signals::new(signals) {
            Ok(mut signals) => std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    for signal in signals.forever() {
                        on_signal(signal);
                    }
                })
                .map(drop)
                .map_err(|e| format!("cannot start the thread that watches for Ctrl-C: {e}")),
            Err(err) => {
                eprintln!("warning: cannot watch for Ctrl-C: {err}");
                Ok(())
            }
        }
    });
    started.clone().map_err(anyhow::Error::msg)
}

fn on_signal(signal: i32) {
    let first = crate::cancel::cancel(signal);
    if !first {
        let reg = registry();
        for dir in &reg.dirs {
            let _ = std::fs::remove_dir_all(dir);
        }
        run_teardowns(&reg.teardowns);
        let interrupted = crate::error::Interrupted(signal);
        eprintln!("{interrupted}");
        std::process::exit(interrupted.exit_status().into());
    }
    stop_everything();
}
