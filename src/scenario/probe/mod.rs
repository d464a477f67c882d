//! `probe`: one-shot observations behind the classic claims that a single
//! call settles (is a pipe 16 pages, does epoll map memory into user space,
//! do TCP_CORK and TCP_NODELAY exclude each other...). Each check is one
//! case (`--param check=NAME`) and records, in the result's
//! `observations`, every call it made, what the kernel answered and the
//! figure read from it, so a reader can check the evidence rather than
//! trust a verdict. One file per check; `CHECKS` lists them.

mod epoll_ctl_constant;
mod epoll_mmap;
mod et_one_notice;
mod fd_limit_memory;
mod fd_setsize;
mod memcg;
mod nodelay_cork;
mod one_waiter;
mod pipe_16_pages;
mod pipe_read_atime;
mod pipes;
pub(crate) mod port_setup;
mod read_evicts;
mod select_needs_rebuild;
mod sendfile_offset;
mod sendfile_whole_file;
mod series;
mod spawn_nofile;
mod tcp;
mod tcp_segments;
mod writer_mtime;

use super::{CaseCtx, CaseSpec, MetricSpec, ParamKind, ParamSpec, Scenario};
use crate::model::{CaseResult, Observation};
use std::io;
use std::path::Path;

pub(crate) struct Probe;

/// One check: its `check=` name, the id of the claim it bears on (its
/// seed, then the check's name), and what it does.
pub(crate) struct Check {
    name: &'static str,
    claim: &'static str,
    run: fn(&mut Probing) -> anyhow::Result<()>,
}

pub(crate) const CHECKS: &[Check] = &[
    Check {
        name: "pipe-read-atime",
        claim: "E1-pipe-read-atime",
        run: pipe_read_atime::run,
    },
    Check {
        name: "writer-mtime",
        claim: "E1-writer-mtime",
        run: writer_mtime::run,
    },
    Check {
        name: "pipe-16-pages",
        claim: "E3-pipe-16-pages",
        run: pipe_16_pages::run,
    },
    Check {
        name: "cork-nodelay-exclusive",
        claim: "E4-cork-nodelay-exclusive",
        run: nodelay_cork::exclusive,
    },
    Check {
        name: "nodelay-beats-cork",
        claim: "E4-nodelay-beats-cork",
        run: nodelay_cork::beats,
    },
    Check {
        name: "cork-merges-header",
        claim: "E4-cork-merges-header",
        run: tcp_segments::cork_merges_header,
    },
    Check {
        name: "mss-1448",
        claim: "E4-mss-1448",
        run: tcp_segments::mss,
    },
    Check {
        name: "sendfile-offset",
        claim: "E4-sendfile-offset",
        run: sendfile_offset::run,
    },
    Check {
        name: "sendfile-whole-file",
        claim: "E4-sendfile-whole-file",
        run: sendfile_whole_file::run,
    },
    Check {
        name: "fd-setsize",
        claim: "E5-fd-setsize",
        run: fd_setsize::run,
    },
    Check {
        name: "select-needs-rebuild",
        claim: "E5-select-needs-rebuild",
        run: select_needs_rebuild::run,
    },
    Check {
        name: "epoll-mmap",
        claim: "E5-epoll-mmap",
        run: epoll_mmap::run,
    },
    Check {
        name: "et-one-notice",
        claim: "E5-et-one-notice",
        run: et_one_notice::run,
    },
    Check {
        name: "epoll-ctl-constant",
        claim: "E5-epoll-ctl-constant",
        run: epoll_ctl_constant::run,
    },
    Check {
        name: "fd-limit-memory",
        claim: "E5-fd-limit-memory",
        run: fd_limit_memory::run,
    },
    Check {
        name: "port-setup-1ms",
        claim: "E2-port-setup-1ms",
        run: port_setup::run,
    },
    Check {
        name: "spawn-vs-nofile",
        claim: "E2-spawn-vs-nofile",
        run: spawn_nofile::run,
    },
    Check {
        name: "one-waiter-woken",
        claim: "E6-one-waiter-woken",
        run: one_waiter::run,
    },
    Check {
        name: "read-evicts-cache",
        claim: "E6-read-evicts-cache",
        run: read_evicts::run,
    },
];

/// The id of the claim that check `name` bears on.
pub(crate) fn claim_of(name: &str) -> Option<&'static str> {
    CHECKS.iter().find(|c| c.name == name).map(|c| c.claim)
}

/// The checks' names, in `CHECKS`' order.
const CHECK_NAMES: &[&str] = &check_names::<{ CHECKS.len() }>();

const fn check_names<const N: usize>() -> [&'static str; N] {
    let mut names = [""; N];
    let mut i = 0;
    while i < N {
        names[i] = CHECKS[i].name;
        i += 1;
    }
    names
}

pub(crate) const CHECK: ParamSpec = ParamSpec {
    name: "check",
    kind: ParamKind::Choice(CHECK_NAMES),
    default: crate::params::every_choice!(CHECK_NAMES),
    about:
        "which observations to make (each is one case; the claim it bears on is in docs/claims.md)",
    in_name: true,
};

const PARAMS: &[ParamSpec] = &[CHECK];

pub(crate) const OBSERVATIONS: MetricSpec = MetricSpec {
    name: "observations",
    unit: "observations",
    about: "calls recorded with the kernel's answers (listed under the table and in the JSON's observations)",
};

const METRICS: &[MetricSpec] = &[
    OBSERVATIONS,
    port_setup::PORT_SETUP_NS,
    port_setup::PORT_SETUP_CPU_NS,
];

impl Scenario for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }
    fn about(&self) -> &'static str {
        "one-shot observations behind the claims: each call made and the kernel's answer"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let name = case.text(&CHECK);
        let check = CHECKS
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| anyhow::anyhow!("unknown probe check {name}"))?;
        let mut probing = Probing { dir: ctx.dir, out };
        (check.run)(&mut probing)?;
        let count = out.observations.len() as f64;
        OBSERVATIONS.set(out, vec![count]);
        OBSERVATIONS.set_headline(out);
        Ok(())
    }
}

/// What a running check writes to: the case's private directory, and the
/// result whose `observations` it appends to (kept even when the check
/// then stops as unsupported or failed, so the evidence gathered so far
/// is not lost).
pub(crate) struct Probing<'a> {
    pub(crate) dir: &'a Path,
    out: &'a mut CaseResult,
}

impl Probing<'_> {
    /// Records that `call` was answered with `answer`.
    pub(crate) fn saw(&mut self, name: &str, call: impl Into<String>, answer: impl Into<String>) {
        self.out.observations.push(Observation {
            name: name.to_string(),
            call: call.into(),
            answer: answer.into(),
            ..Observation::default()
        });
    }

    /// Records `call`, its answer and the figure read from it.
    pub(crate) fn measured(
        &mut self,
        name: &str,
        call: impl Into<String>,
        answer: impl Into<String>,
        figure: f64,
        unit: &str,
    ) {
        self.saw(name, call, answer);
        if let Some(o) = self.out.observations.last_mut() {
            o.figure = Some(figure);
            o.unit = unit.to_string();
        }
    }

    /// Records that `call` failed with `err`, by its errno name.
    pub(crate) fn refused(&mut self, name: &str, call: impl Into<String>, err: &io::Error) {
        let errno = errno_name(err);
        self.saw(name, call, format!("failed: {errno} ({})", plain(err)));
        if let Some(o) = self.out.observations.last_mut() {
            o.error = Some(errno);
        }
    }
}

/// `ENODEV` for an error carrying that errno, `errno N` for another, or
/// the error's kind for one that carries none.
pub(crate) fn errno_name(err: &io::Error) -> String {
    let Some(code) = err.raw_os_error() else {
        return format!("{:?}", err.kind());
    };
    let name = match code {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EBUSY => "EBUSY",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::ENFILE => "ENFILE",
        libc::EMFILE => "EMFILE",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::ENOSYS => "ENOSYS",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        other => return format!("errno {other}"),
    };
    name.to_string()
}

/// The error's message without Rust's " (os error N)" tail.
fn plain(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// "1.50 ms": a duration in nanoseconds as people read it.
pub(crate) fn ns(value: u64) -> String {
    crate::format::human(value as f64, "ns")
}

/// "1024" or "the first line" of a /proc or /sys file, trimmed.
pub(crate) fn read_number(path: &str) -> io::Result<u64> {
    let text = std::fs::read_to_string(path)?;
    let first = text.split_whitespace().next().unwrap_or_default();
    first
        .parse()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, format!("{path}: {text:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_is_a_choice_and_the_default_names_them_all_in_order() {
        assert_eq!(CHECK_NAMES.len(), 19);
        assert_eq!(CHECK.kind.words().unwrap(), CHECK_NAMES);
        assert_eq!(
            CHECK.default.split(',').collect::<Vec<_>>(),
            CHECKS.iter().map(|c| c.name).collect::<Vec<_>>()
        );
        assert!(CHECK
            .default
            .starts_with("pipe-read-atime,writer-mtime,pipe-16-pages,"));
        assert!(CHECK
            .default
            .ends_with(",one-waiter-woken,read-evicts-cache"));
    }

    #[test]
    fn each_check_names_a_claim_of_its_seed() {
        for c in CHECKS {
            let (seed, rest) = c.claim.split_once('-').unwrap();
            assert!(seed.starts_with('E') && seed.len() == 2, "{}", c.claim);
            assert_eq!(rest, c.name);
            assert_eq!(claim_of(c.name), Some(c.claim));
        }
        assert_eq!(claim_of("nope"), None);
    }

    #[test]
    fn errno_names_read_as_the_constants() {
        let err = io::Error::from_raw_os_error(libc::ENODEV);
        assert_eq!(errno_name(&err), "ENODEV");
        assert_eq!(plain(&err), "No such device");
        assert_eq!(
            errno_name(&io::Error::from_raw_os_error(4095)),
            "errno 4095"
        );
        let other = io::Error::other("x");
        assert_eq!(errno_name(&other), "Other");
    }
}
