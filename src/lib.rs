//! iolab: a laboratory for Linux IPC and I/O primitives. The library holds
//! everything; `main.rs` only maps the outcome to an exit code. `unsafe` is
//! denied everywhere but `sys`, the thin wrappers over kernel calls.

#![deny(unsafe_code)]

pub(crate) mod ab;
pub(crate) mod agent;
pub mod app;
pub(crate) mod cancel;
pub mod claims;
pub mod cli;
pub(crate) mod compare;
pub(crate) mod copier;
pub(crate) mod doctor;
pub(crate) mod env;
pub mod error;
pub mod exec;
pub(crate) mod fleet;
pub mod format;
pub(crate) mod guest;
pub(crate) mod listing;
pub(crate) mod live_tables;
pub mod measure;
pub mod mechanism;
pub(crate) mod mem;
pub mod model;
pub mod params;
pub(crate) mod plan;
pub(crate) mod poller;
pub(crate) mod report;
pub(crate) mod runner;
pub mod scenario;
pub mod stats;
pub(crate) mod stdout;
pub mod store;
#[allow(unsafe_code)]
pub mod sys;
