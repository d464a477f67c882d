//! `--peer HOST[:PORT]` and what goes with it: the agent's address (the
//! port defaulted), `--peer-cpu`, the token (`--token` or `IOLAB_TOKEN`),
//! and the checks that only cases which can cross hosts are asked to:
//! the mechanisms with a network transport (tcp, udp), the scenarios with
//! a far side an agent runs (`scenario::far`), and file-transfer over the
//! real link, its receiver discarding.

use super::{Invocation, Planned};
use crate::cli::RunArgs;
use crate::error::{UsageError, UsageResult};
use crate::exec::remote::{Peer, DEFAULT_PORT};
use crate::measure::pin::Placement;
use crate::mechanism::Mechanism;
use crate::params::Value;

/// The scenarios whose far side an agent can run.
pub(crate) const SCENARIOS: &[&str] = &["pingpong", "stream", "file-transfer"];

/// With `--peer`, the one placement unless `--placement` says otherwise:
/// it pins the local side (the agent's is `--peer-cpu`).
pub(crate) const DEFAULT_PLACEMENT: Placement = Placement::CrossCpu;

/// The peer the command line names, if any.
pub(crate) fn of(args: &RunArgs) -> UsageResult<Option<Peer>> {
    let Some(text) = args.peer.as_deref() else {
        if let Some(cpu) = &args.peer_cpu {
            return Err(UsageError::new(format!(
                "--peer-cpu '{cpu}' needs --peer HOST[:PORT]: it pins the agent's side"
            )));
        }
        return Ok(None);
    };
    if args.explain {
        return Err(UsageError::new(
            "--explain cannot be used with --peer: the far side's scheduler is on another host"
                .to_string(),
        ));
    }
    let cpu = args
        .peer_cpu
        .as_deref()
        .map(|c| {
            c.parse::<usize>().map_err(|_| {
                UsageError::new(format!(
                    "invalid --peer-cpu '{c}': expected a CPU number of the agent's host (0, 1, ...)"
                ))
            })
        })
        .transpose()?;
    let token = args
        .token
        .clone()
        .or_else(|| std::env::var("IOLAB_TOKEN").ok())
        .filter(|t| !t.is_empty());
    Ok(Some(Peer {
        addr: address(text)?,
        token,
        cpu,
    }))
}

/// `HOST`, `HOST:PORT`, `[V6]:PORT` or a bare IPv6 address, as `HOST:PORT`.
pub(crate) fn address(text: &str) -> UsageResult<String> {
    let bad = || {
        UsageError::new(format!(
            "invalid --peer '{text}': expected HOST or HOST:PORT (port 1-65535, default {DEFAULT_PORT})"
        ))
    };
    let (host, port) = match text.rsplit_once(':') {
        _ if text.starts_with('[') && text.ends_with(']') => (text, None),
        Some((host, port)) if host.starts_with('[') || !host.contains(':') => (host, Some(port)),
        Some(_) => return Ok(format!("[{text}]:{DEFAULT_PORT}")),
        None => (text, None),
    };
    let port = match port {
        Some(p) => p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(bad)?,
        None => DEFAULT_PORT,
    };
    if host.is_empty() || host == "[]" || host.contains(char::is_whitespace) {
        return Err(bad());
    }
    Ok(format!("{host}:{port}"))
}

/// Every target must have a far side an agent runs.
pub(crate) fn check_scenarios(invocations: &[Invocation]) -> UsageResult<()> {
    match invocations
        .iter()
        .find(|i| !SCENARIOS.contains(&i.scenario.name()))
    {
        Some(i) => Err(UsageError::new(format!(
            "--peer cannot run '{}' across hosts: expected the scenarios {}",
            i.scenario.name(),
            SCENARIOS.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The mechanisms asked for must cross hosts; none asked for: those that do.
pub(crate) fn mechs(
    mechs: Vec<&'static dyn Mechanism>,
    explicit: bool,
) -> UsageResult<Vec<&'static dyn Mechanism>> {
    let crossing = |m: &dyn Mechanism| m.transport().is_some();
    if let Some(m) = mechs.iter().find(|m| explicit && !crossing(**m)) {
        let all: Vec<&str> = crate::mechanism::ALL
            .iter()
            .filter(|m| crossing(**m))
            .map(|m| m.name())
            .collect();
        return Err(UsageError::new(format!(
            "--peer cannot carry the mechanism '{}' across hosts: expected {}",
            m.name(),
            all.join(", ")
        )));
    }
    Ok(mechs.into_iter().filter(|m| crossing(*m)).collect())
}

/// file-transfer across hosts runs over the real link and discards; an
/// agent serves one pair of sides.
pub(crate) fn check_cases(planned: &[Planned]) -> UsageResult<()> {
    for p in planned.iter().filter(|p| p.case.peer.is_some()) {
        let pairs = crate::scenario::common::pairs::count(&p.case);
        if pairs > 1 {
            return Err(UsageError::new(format!(
                "pairs={pairs} cannot be used with --peer: expected pairs=1 (an agent serves one pair of sides)"
            )));
        }
        for (key, only) in [("link", "loopback"), ("sink", "discard")] {
            match p.case.values.get(key) {
                Some(Value::Text(v)) if v != only => {
                    return Err(UsageError::new(format!(
                        "{key}={v} cannot be used with --peer: expected {key}={only} \
                         (the link is the real one to the agent, which keeps no files)"
                    )))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(args: &[&str]) -> Vec<String> {
        let plan = super::super::of_args(args).unwrap();
        plan.cases.iter().map(|c| c.name()).collect()
    }

    #[test]
    fn a_peer_takes_the_network_mechanisms_and_one_placement() {
        assert_eq!(
            names(&["pingpong", "--peer", "h"]),
            [
                "udp@peer/cross-cpu/processes/1B",
                "tcp@peer/cross-cpu/processes/1B"
            ]
        );
        assert_eq!(
            names(&[
                "pingpong",
                "--peer",
                "h",
                "--mech",
                "tcp",
                "--placement",
                "unpinned"
            ]),
            ["tcp@peer/unpinned/processes/1B"]
        );
        let ft = names(&["file-transfer", "--peer", "h", "-p", "copier=sendfile"]);
        assert!(ft.iter().all(|n| n.ends_with("/discard/@peer")), "{ft:?}");
    }

    #[test]
    fn a_peer_serves_one_pair() {
        let args = ["pingpong", "--peer", "h", "-p", "pairs=1,4"];
        let err = super::super::of_args(&args).err().unwrap().0;
        assert_eq!(
            err,
            "pairs=4 cannot be used with --peer: expected pairs=1 (an agent serves one pair of sides)"
        );
    }

    #[test]
    fn addresses_get_the_default_port() {
        let ok = |t: &str| address(t).unwrap();
        assert_eq!(ok("10.0.0.2"), "10.0.0.2:5207");
        assert_eq!(ok("host.example:6000"), "host.example:6000");
        assert_eq!(ok("[::1]:6000"), "[::1]:6000");
        assert_eq!(ok("[::1]"), "[::1]:5207");
        assert_eq!(ok("::1"), "[::1]:5207");
        for bad in ["", "host:", "host:0", "host:70000", ":5207", "a b"] {
            let err = address(bad).unwrap_err().0;
            assert!(err.starts_with(&format!("invalid --peer '{bad}'")), "{err}");
        }
    }
}
