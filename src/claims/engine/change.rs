//! What besides a claim's test says why its verdict differs between two
//! kernels: a known upstream change (the version that made it, the commit
//! and where that is written), or a fact of the machine the claim reads
//! (its memory, its open-file limit) that a guest may not share with the
//! host. Each seed keeps its own as data beside its claims.

use crate::model::{ClaimStatus, Environment};

/// A kernel change that turned a claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KernelChange {
    /// The claim's id, e.g. "E1-pipe-read-atime".
    pub(crate) claim: &'static str,
    /// The first mainline version with the change, e.g. "6.15".
    pub(crate) version: &'static str,
    /// The claim's verdict from that version on.
    pub(crate) became: ClaimStatus,
    /// The upstream commit's subject, when the change has one (changes
    /// before git, as 2.5.71's, have none).
    pub(crate) subject: Option<&'static str>,
    /// The commit's id in Linus's tree.
    pub(crate) commit: Option<&'static str>,
    /// Where the change is written down.
    pub(crate) source: &'static str,
}

impl KernelChange {
    /// "Linux 6.15: pipe: don't update {a,c,m}time for anonymous pipes (f017b0a4951f)".
    pub(crate) fn describe(&self) -> String {
        let subject = match (self.subject, self.commit) {
            (Some(s), Some(c)) => format!(": {s} ({})", &c[..c.len().min(12)]),
            (Some(s), None) => format!(": {s}"),
            _ => String::new(),
        };
        format!("Linux {}{subject}", self.version)
    }
}

/// A fact of the machine a claim's verdict reads besides the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MachineFact {
    /// Its memory (fs.file-max scales with it).
    Memory,
    /// The open-file limit (RLIMIT_NOFILE) the run started with.
    OpenFiles,
}

impl MachineFact {
    /// The fact in `env`, as a person reads it: "1 GiB", "1024/4096".
    pub(crate) fn of(self, env: &Environment) -> String {
        match self {
            MachineFact::Memory => crate::format::binary_size(env.memory_bytes as f64, 1),
            MachineFact::OpenFiles => format!("{}/{}", env.nofile_soft, env.nofile_hard),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            MachineFact::Memory => "memory",
            MachineFact::OpenFiles => "open-file limit",
        }
    }
}

/// A claim whose verdict reads `fact` of the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadsMachine {
    pub(crate) claim: &'static str,
    pub(crate) fact: MachineFact,
}
