//! A group of cooperating forked processes (e.g. server, client and idle
//! holder), for scenarios that need more than the two sides of `peers`:
//! sides that are always processes, so their bodies may borrow from the
//! caller. Each child says "ready" through its `Ready`, later reports its
//! outcome, and exits; the parent waits for readiness (`wait_ready`) and
//! outcomes (`Child::finish`) with deadlines. Once they are under way,
//! `watch` waits for the group: a child that fails (errs, panics, dies)
//! stops the others at once, so none is left waiting for messages that
//! will never come. A child dropped before it was finished is killed and
//! reaped, so an error path leaves no process.

use super::side::Side;
use serde::Serialize;

pub(crate) use super::side::{wait_ready, watch, Ready};

/// The parent's handle on one child.
pub(crate) type Child = Side;

/// Forks a child that pins itself to `cpu`, runs `f` and reports.
pub(crate) fn spawn<R, F>(role: &'static str, cpu: Option<usize>, f: F) -> anyhow::Result<Child>
where
    R: Serialize,
    F: FnOnce(&Ready) -> anyhow::Result<R>,
{
    super::side::fork(role, cpu, f)
}
