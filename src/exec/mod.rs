//! The harness: the one way every experiment starts its sides. A side runs
//! as a thread, a forked process or an external program; the harness
//! places it (pinning), gives it its start barrier, its CPU and
//! context-switch accounting and its result channel, and kills and reaps
//! it on error, timeout and Ctrl-C. Scenarios never fork, spawn or scope
//! threads themselves.

pub mod cleanup;
pub(crate) mod link;
pub mod peers;
pub mod procs;

/// How the sides of a case run: threads of iolab or forked processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Threads,
    Processes,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Threads => "threads",
            Mode::Processes => "processes",
        }
    }
}
