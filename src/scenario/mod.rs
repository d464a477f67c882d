//! Scenarios: one experiment each, with typed parameters and defaults,
//! behind `trait Scenario`; `ALL` lists them. A scenario expands into cases
//! (mechanism x placement x parameter point) and runs one case at a time.

pub mod case;
mod event_bench;
mod fd_budget;
mod limits;
pub mod params;
mod payload;
mod pingpong;
mod poll_scale;
mod poll_scale_sides;
mod readiness;
mod side;
mod stream;
pub mod suite;
mod two_sided;
mod verdict;

pub use case::{CaseCtx, CaseSpec, Fault, Mode};
pub use params::{ParamKind, ParamSpec, Value};

use crate::model::CaseResult;

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
    fn uses_mechanisms(&self) -> bool;
    /// Runs one case, filling `out` (status, metrics, latency, cpu, sides).
    /// An error makes the case `failed` with the error chain as the reason.
    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()>;
    /// One-line findings over this scenario's results of a run.
    fn verdicts(&self, results: &[&CaseResult]) -> Vec<String>;
    /// The `limits` reference point this result is compared against.
    fn limit_for(&self, _result: &CaseResult) -> Option<LimitRef> {
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
    &poll_scale::PollScale,
    &event_bench::EventBench,
];

pub fn find(name: &str) -> Option<&'static dyn Scenario> {
    ALL.iter().copied().find(|s| s.name() == name)
}

pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|s| s.name()).collect()
}

/// Returned by `Scenario::run` when the case cannot run on this machine;
/// the runner records it as `unsupported` with this reason.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);
