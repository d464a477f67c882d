//! The control protocol between `iolab run --peer` and `iolab agent`: the
//! serde types of its messages, one JSON object per line on one TCP
//! connection. A connection carries one side of one case:
//!
//! 1. client `hello` (protocol version, token, capabilities it needs);
//!    agent `welcome` (its version, capabilities, environment) or `error`;
//! 2. client `run` (transport, CPU, time limit, the far side's request);
//!    agent `ready` (the data port) or `error`; the client connects there;
//! 3. agent `report` (the far side's report, or why it failed).
//!
//! A client may stop after `welcome` (that is how it learns the peer's
//! environment). Anything else is an `error` line, then the agent closes.

use crate::mechanism::Transport;
use crate::model::Environment;
use serde::{Deserialize, Serialize};

/// The protocol this build speaks; both ends must speak the same.
pub(crate) const VERSION: u32 = 1;

/// Where an agent listens unless told otherwise.
pub(crate) const DEFAULT_PORT: u16 = 5207;

/// The longest line an agent reads from a client; a report may be longer
/// (histograms), so the client's limit is `REPORT_LIMIT`.
pub(crate) const LINE_LIMIT: usize = 64 * 1024;
/// How a refusal for a while (the agent serves another client, or too
/// many are saying hello) begins, unlike one for good (a wrong token).
pub(crate) const BUSY: &str = "busy: ";
pub(crate) const REPORT_LIMIT: usize = 64 * 1024 * 1024;

/// What a client sends.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum ToAgent {
    Hello(Hello),
    Run(Request),
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Hello {
    pub(crate) version: u32,
    #[serde(default)]
    pub(crate) token: Option<String>,
    /// What the client will ask for, e.g. `pingpong/echoer`, `tcp`.
    #[serde(default)]
    pub(crate) capabilities: Vec<String>,
}

/// One far side to run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Request {
    pub(crate) transport: Transport,
    /// The agent's CPU the side is pinned to (`--peer-cpu`).
    #[serde(default)]
    pub(crate) cpu: Option<usize>,
    /// How long the side may run; the agent caps it.
    pub(crate) timeout_ms: u64,
    /// The scenario's request for its far side (`scenario::far::FarSide`).
    pub(crate) side: serde_json::Value,
}

/// What an agent sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub(crate) enum FromAgent {
    Welcome {
        version: u32,
        capabilities: Vec<String>,
        environment: Box<Environment>,
    },
    Ready {
        port: u16,
    },
    Report {
        outcome: Outcome,
    },
    Error {
        message: String,
    },
}

/// How the far side ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    Done(serde_json::Value),
    Failed(String),
}

/// The agent's answer to a `hello` of another protocol version.
pub(crate) fn version_mismatch(client: u64) -> String {
    format!(
        "protocol version mismatch: the client speaks version {client}, this agent {VERSION} \
         (run the same iolab release on both hosts)"
    )
}
