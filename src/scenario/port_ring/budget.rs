//! The descriptors a port-ring case holds in iolab at its peak, checked
//! against RLIMIT_NOFILE before anything starts: a ring too big for the
//! limit is `unsupported` with the count it needs, not a "Too many open
//! files" halfway through building it.

use super::rings::Shape;
use crate::scenario::common::fd_budget::{raise_nofile, FdBudget};
use crate::scenario::Unsupported;
use rustix::process::{getrlimit, Resource, Rlimit};

/// Held briefly beyond the steady count: spawning an echo program opens
/// its two pipes' child ends, /dev/null and the exec-error pipe (5), and a
/// forked relay's report pipe has both ends open until the fork (1).
const EXTRA_FDS: u64 = 8;

/// What iolab holds per relay: the two ends of its link (its input and the
/// previous relay's output), its echo program's stdin and stdout, and its
/// side's status pipe (`exec::side`): the read end in processes mode (the
/// write end is the child's), both ends in threads mode.
fn per_relay(shape: Shape, echo: bool) -> u64 {
    let status = if shape.processes { 1 } else { 2 };
    2 + if echo { 2 } else { 0 } + status
}

/// Refuses a shape whose descriptors cannot fit under the hard limit,
/// naming the largest `relays` (when one ring does not fit) or `rings`
/// that would; otherwise raises the soft limit if the shape needs it and
/// returns the limits to put back.
pub(crate) fn fit(shape: Shape, echo: bool) -> anyhow::Result<Option<Rlimit>> {
    let budget = FdBudget::process()?;
    let per = per_relay(shape, echo);
    let who = format!("iolab process ({per} per relay)");
    // Each ring also holds a second descriptor for its entry, until it
    // is started.
    budget.check(&who, "relays", shape.relays as u64, EXTRA_FDS + 1, per)?;
    let per_ring = (shape.relays as u64).saturating_mul(per).saturating_add(1);
    let need = budget.check(&who, "rings", shape.rings as u64, EXTRA_FDS, per_ring)?;
    let soft = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
    if need <= soft {
        return Ok(None);
    }
    Ok(Some(raise_nofile().map_err(|e| {
        Unsupported(format!(
            "needs {need} descriptors, above the soft RLIMIT_NOFILE of {soft}, which could not be raised: {e}"
        ))
    })?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(relays: usize, rings: usize, processes: bool) -> Shape {
        Shape {
            relays,
            messages: 1,
            rings,
            processes,
        }
    }

    #[test]
    fn counts_links_echo_pipes_and_reports() {
        assert_eq!(per_relay(shape(10, 8, false), true), 6);
        assert_eq!(per_relay(shape(10, 8, true), true), 5);
        assert_eq!(per_relay(shape(10, 8, false), false), 4);
    }

    #[test]
    fn a_ring_beyond_the_hard_limit_is_unsupported_with_what_it_needs() {
        let hard = getrlimit(Resource::Nofile).maximum.unwrap_or(u64::MAX);
        let relays = (hard / 4 + 1) as usize;
        let err = fit(shape(relays, 1, false), true).unwrap_err();
        let why = err
            .downcast_ref::<Unsupported>()
            .expect("unsupported")
            .0
            .clone();
        assert!(
            why.starts_with(&format!("relays={relays} needs "))
                && why.contains(&format!("above the hard RLIMIT_NOFILE of {hard}")),
            "{why}"
        );
        let err = fit(shape(10, (hard / 40) as usize, false), true).unwrap_err();
        let why = err
            .downcast_ref::<Unsupported>()
            .expect("unsupported")
            .0
            .clone();
        assert!(why.contains("the largest rings that fits is "), "{why}");
        assert!(fit(shape(2, 1, false), true).unwrap().is_none());
    }
}
