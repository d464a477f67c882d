//! Scenarios: one experiment each, with typed parameters and defaults,
//! behind `trait Scenario`; `ALL` lists them. A scenario expands into cases
//! (mechanism x placement x parameter point) and runs one case at a time.

pub mod common;
mod contention;
mod devnull;
mod event_bench;
mod file_transfer;
mod limits;
mod pingpong;
mod pipe_atime;
mod poll_scale;
mod port_ring;
mod stream;
pub mod suite;

pub use crate::error::Unsupported;
pub use crate::params::{ParamKind, ParamSpec, Value};
pub use common::case::{CaseCtx, CaseSpec, Fault, Mode};
pub(crate) use devnull::verdict::flag_not_really_moved;
pub use limits::{bounce, cacheline_rtt};

/// Repetitions when neither the command line nor the suite says.
pub const DEFAULT_REPEAT: u64 = 5;

use crate::measure::pin::Placement;
use crate::model::CaseResult;
use std::collections::BTreeMap;

/// A metric a scenario reports; names are fixed per scenario.
#[derive(Debug, Clone, Copy)]
pub struct MetricSpec {
    pub name: &'static str,
    pub unit: &'static str,
    pub about: &'static str,
}

/// Which `limits` metric a result's headline is compared against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitRef {
    pub metric: &'static str,
}

pub trait Scenario: Sync {
    fn name(&self) -> &'static str;
    /// One line for `iolab list`.
    fn about(&self) -> &'static str;
    fn params(&self) -> &'static [ParamSpec];
    /// The metrics this scenario reports; the first is the usual headline.
    fn metrics(&self) -> &'static [MetricSpec];
    /// True when the scenario runs over mechanisms and placements.
    fn uses_mechanisms(&self) -> bool {
        false
    }
    /// Runs one case, filling `out` (status, metrics, latency, cpu, sides).
    /// An error makes the case `failed` with the error chain as the reason.
    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()>;
    /// One-line findings over this scenario's results of a run.
    fn verdicts(&self, results: &[&CaseResult]) -> Vec<String>;
    /// The `limits` reference point this result is compared against.
    fn limit_for(&self, _result: &CaseResult) -> Option<LimitRef> {
        None
    }
    /// Checks one parameter point before anything runs (e.g. that a named
    /// program exists); the message becomes a usage error (exit 2).
    fn check_point(&self, _values: &BTreeMap<&'static str, Value>) -> Result<(), String> {
        Ok(())
    }

    /// Adjusts one point of the parameter sweep before it becomes a case,
    /// e.g. drops a parameter that does not apply to it; cases that end up
    /// with the same name run once.
    fn fit_point(&self, _values: &mut std::collections::BTreeMap<&'static str, Value>) {}
    /// The mechanisms to run when `--mech` is not given (None: all).
    fn default_mechs(&self) -> Option<&'static [&'static str]> {
        None
    }
    /// The placements to run when `--placement` is not given (None: the
    /// plan's default, same-cpu and cross-cpu).
    fn default_placements(&self) -> Option<&'static [Placement]> {
        None
    }

    fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params().iter().find(|p| p.name == name)
    }

    fn headline(&self) -> &'static MetricSpec {
        &self.metrics()[0]
    }
}

pub static ALL: &[&dyn Scenario] = &[
    &limits::Limits,
    &pingpong::PingPong,
    &stream::Stream,
    &file_transfer::FileTransfer,
    &devnull::DevNull,
    &pipe_atime::PipeAtime,
    &port_ring::PortRing,
    &contention::Contention,
    &poll_scale::PollScale,
    &event_bench::EventBench,
];

pub fn find(name: &str) -> Option<&'static dyn Scenario> {
    ALL.iter().copied().find(|s| s.name() == name)
}

pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|s| s.name()).collect()
}
