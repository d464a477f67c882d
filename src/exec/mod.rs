//! The harness: the one way every experiment starts its sides. Scenarios
//! never fork, spawn or scope threads themselves; they describe a side and
//! get back a handle. What it offers:
//!
//! - `side`: one side of an experiment. `side::start(Spec, body)` runs a
//!   closure as a thread or a forked process (`Mode`), pinned to a CPU or
//!   not, with its start barrier (`Ready`, awaited by `side::wait_ready`),
//!   the CPU time and context switches its body cost, and its result
//!   channel; the `Side` handle waits (`wait_any`, `finish`), interrupts,
//!   kills and takes the outcome (`Ended`), and kills and reaps on drop.
//!   `start_all` starts a group, each forked side keeping only its own
//!   body; `side::fork` forks a side whose body borrows from the caller;
//!   `side::both` runs two borrowing closures on two pinned threads.
//! - `program`: external programs (an echo program), started with piped
//!   stdin/stdout, dying with iolab, killed and reaped on drop.
//! - `peers`: the two sides of a case over a mechanism, with a timeout and
//!   a grace period; `procs`: a group of forked processes with readiness,
//!   and a watch that stops the group when one of them fails.
//! - `cleanup`: the registry of children, threads, temp dirs and teardown
//!   commands that Ctrl-C stops and removes.
//! - `link`: the emulated network link in namespaces.
//! - `remote`: a side on another host, run by `iolab agent` (the control
//!   protocol, the data connection, the client's handle).

pub(crate) mod cleanup;
pub mod link;
pub(crate) mod peers;
pub(crate) mod procs;
pub(crate) mod program;
pub(crate) mod remote;
pub(crate) mod side;

/// How the sides of a case run: threads of iolab or forked processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Threads,
    Processes,
}

impl Mode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Threads => "threads",
            Mode::Processes => "processes",
        }
    }
}
