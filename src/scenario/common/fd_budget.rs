//! Descriptor budgets for the readiness scenarios: how many descriptors a
//! process may hold (RLIMIT_NOFILE's hard limit, or select's FD_SETSIZE),
//! raising the soft limit as far as allowed, and turning "does not fit" into
//! an `unsupported` reason that names the largest value that would fit.

use crate::poller::Poller;
use crate::scenario::Unsupported;
use anyhow::Context;
use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
use std::io;

/// What one process may still open.
pub(crate) struct FdBudget {
    /// The most descriptors the process may hold at once.
    pub(crate) limit: u64,
    /// Why that is the limit, e.g. "the hard RLIMIT_NOFILE of 20000".
    pub(crate) why: String,
    /// Descriptors open now (inherited by forked children).
    pub(crate) open: u64,
}

impl FdBudget {
    /// The budget of this process: its hard RLIMIT_NOFILE.
    pub(crate) fn process() -> io::Result<FdBudget> {
        let hard = getrlimit(Resource::Nofile).maximum.unwrap_or(u64::MAX);
        let open = std::fs::read_dir("/proc/self/fd")?
            .count()
            .saturating_sub(1) as u64;
        Ok(FdBudget {
            limit: hard,
            why: format!("the hard RLIMIT_NOFILE of {hard}"),
            open,
        })
    }

    /// The budget of this process when waiting with `poller`.
    pub(crate) fn for_poller(poller: &dyn Poller) -> io::Result<FdBudget> {
        let mut budget = FdBudget::process()?;
        if let Some(max) = poller.max_fds().filter(|m| *m < budget.limit) {
            budget.limit = max;
            budget.why = format!("{}'s FD_SETSIZE of {max}", poller.name());
        }
        Ok(budget)
    }

    /// Succeeds with the total needed when `fixed + per_unit * n` more
    /// descriptors fit in `who`; otherwise says so, with the largest
    /// `param` that would fit.
    pub(crate) fn check(
        &self,
        who: &str,
        param: &str,
        n: u64,
        fixed: u64,
        per_unit: u64,
    ) -> Result<u64, Unsupported> {
        let base = self.open + fixed;
        let need = base.saturating_add(per_unit.saturating_mul(n));
        if need <= self.limit {
            return Ok(need);
        }
        let largest = match self.limit.checked_sub(base) {
            Some(room) => format!("the largest {param} that fits is {}", room / per_unit),
            None => format!("no {param} fits"),
        };
        Err(Unsupported(format!(
            "{param}={n} needs {need} descriptors in the {who}, above {}; {largest}",
            self.why
        )))
    }
}

/// Raises this process's soft RLIMIT_NOFILE to the hard limit; returns
/// the previous limits so they can be restored.
pub(crate) fn raise_nofile() -> io::Result<Rlimit> {
    let old = getrlimit(Resource::Nofile);
    let raised = Rlimit {
        current: old.maximum,
        maximum: old.maximum,
    };
    setrlimit(Resource::Nofile, raised)?;
    Ok(old)
}

/// Puts back the soft limit `raise_nofile` replaced.
pub(crate) fn restore_nofile(old: Rlimit) {
    let _ = setrlimit(Resource::Nofile, old);
}

/// Runs `run` with the soft RLIMIT_NOFILE raised to the hard limit, put
/// back after whatever `run` returns.
pub(crate) fn with_raised_nofile<T>(run: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    let old = raise_nofile().context("raising RLIMIT_NOFILE")?;
    let result = run();
    restore_nofile(old);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(limit: u64, open: u64) -> FdBudget {
        FdBudget {
            limit,
            why: "select's FD_SETSIZE of 1024".into(),
            open,
        }
    }

    #[test]
    fn fits_up_to_the_limit_and_names_the_largest_value() {
        let b = budget(1024, 10);
        assert!(b.check("server", "idle", 1000, 14, 1).is_ok());
        let err = b.check("server", "idle", 1001, 14, 1).unwrap_err();
        assert_eq!(
            err.0,
            "idle=1001 needs 1025 descriptors in the server, above select's FD_SETSIZE of 1024; \
             the largest idle that fits is 1000"
        );
        let err = b.check("process", "fds", 600, 1, 2).unwrap_err();
        assert!(
            err.0.ends_with("the largest fds that fits is 506"),
            "{}",
            err.0
        );
    }
}
