//! Statistics as a library: estimators, intervals, the bootstrap, the
//! looks of a decision taken while interleaved rounds come in, paired
//! ratios and latency histograms. Pure: it imports nothing else of iolab
//! (`tests/architecture.rs` checks), does no I/O and makes no system call,
//! and knows no scenario; values in, figures out.

pub(crate) mod bootstrap;
pub mod estimators;
pub mod histogram;
pub(crate) mod looks;
pub(crate) mod paired;
#[cfg(test)]
mod properties;
pub(crate) mod xorshift;
