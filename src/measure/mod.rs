//! The measurement core: the clock, latency histograms, statistics over
//! repetitions, CPU accounting and pinning. Everything a scenario needs to
//! turn raw timings into the figures of a result.

pub(crate) mod bootstrap;
pub(crate) mod canary;
pub mod clock;
pub mod histogram;
pub(crate) mod host;
pub(crate) mod kcounters;
pub(crate) mod noise;
pub(crate) mod paired;
pub mod pin;
pub(crate) mod procstat;
pub(crate) mod profile;
pub(crate) mod sched;
pub(crate) mod sequential;
pub mod stats;
pub mod ticks;
pub(crate) mod time;
pub mod topology;
pub(crate) mod watch;
