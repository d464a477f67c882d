//! The measurement core: the clock, CPU accounting and pinning, the noise
//! guard, the tracers, and the figures of a result made from raw timings
//! (a metric from repetitions, a latency summary); the statistics
//! themselves are the pure `stats`.

pub(crate) mod canary;
pub mod clock;
pub(crate) mod host;
pub(crate) mod kcounters;
pub(crate) mod latency;
pub mod metric;
pub(crate) mod noise;
pub mod pin;
pub(crate) mod procstat;
pub(crate) mod profile;
pub(crate) mod sched;
pub mod ticks;
pub(crate) mod time;
pub mod topology;
pub(crate) mod watch;
