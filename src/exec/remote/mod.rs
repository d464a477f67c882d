//! A side that lives on another host. The protocol an `iolab agent` and
//! `iolab run --peer` speak (`proto`: versioned handshake with a token and
//! capabilities, one request, one report; `wire`: JSON lines with size
//! limits and read timeouts), the data connection on the agent's port range
//! (`data`), and the client's handle (`client::run_remote`). The agent
//! itself (`agent/`) dispatches requests to the scenarios, a layer up.

pub(crate) mod client;
pub(crate) mod data;
pub(crate) mod proto;
pub(crate) mod wire;

pub(crate) use client::Peer;
pub(crate) use data::PortRange;
pub(crate) use proto::DEFAULT_PORT;
