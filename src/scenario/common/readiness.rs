//! What the readiness scenarios (`poll-scale`, `event-bench`) share: the
//! `poller` parameter, registering descriptors (a descriptor select cannot
//! take makes the case unsupported, not a crash), reading a ready
//! descriptor the way its poller needs, and the growth verdict.

use crate::model::{CaseResult, Finding, Status};
use crate::params::Listed;
use crate::poller::{self, PollSet, Poller, Support};
use crate::scenario::{CaseSpec, MetricSpec, ParamKind, ParamSpec, Unsupported};
use rustix::fd::{AsFd, BorrowedFd};
use std::collections::BTreeMap;
use std::io;

pub(crate) const POLLER_PARAM: ParamSpec = ParamSpec {
    name: "poller",
    kind: ParamKind::Listed(Listed(poller::names)),
    default: "select,poll,epoll-lt,epoll-et,io-uring",
    about: "readiness backends to compare",
    in_name: true,
};

/// The case's poller, or `Unsupported` when it cannot run here.
pub(crate) fn poller_of(case: &CaseSpec) -> anyhow::Result<&'static dyn Poller> {
    let name = case.text(&POLLER_PARAM);
    let p = poller::find(name).ok_or_else(|| anyhow::anyhow!("unknown poller {name}"))?;
    match p.support() {
        Support::Yes => Ok(p),
        Support::No(why) => Err(Unsupported(format!("{name}: {why}")).into()),
    }
}

/// Adds every descriptor with its index as the token. A descriptor the
/// poller refuses as out of range (select's FD_SETSIZE) is `Unsupported`.
pub(crate) fn register<'fd, F: AsFd + 'fd>(
    set: &mut dyn PollSet<'fd>,
    fds: impl IntoIterator<Item = &'fd F>,
) -> anyhow::Result<()> {
    for (token, fd) in fds.into_iter().enumerate() {
        let fd: BorrowedFd<'fd> = fd.as_fd();
        if let Err(e) = set.add(fd, token) {
            return Err(match e.kind() {
                io::ErrorKind::InvalidInput => Unsupported(e.to_string()).into(),
                _ => anyhow::Error::new(e).context("adding a descriptor to the poll set"),
            });
        }
    }
    Ok(())
}

/// Reads a descriptor reported ready, handing each chunk to `take`. Level-
/// triggered: one read of up to `buf.len()` bytes (the rest is reported
/// again). Edge-triggered: reads until a short read, since no new report
/// comes for bytes already there. Returns the bytes read; end of file is
/// an error (no peer closes during a measurement).
pub(crate) fn read_ready(
    fd: BorrowedFd<'_>,
    edge: bool,
    buf: &mut [u8],
    mut take: impl FnMut(&[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let mut total = 0;
    loop {
        let n = match rustix::io::read(fd, &mut *buf) {
            Ok(0) => anyhow::bail!("a peer closed its connection during the measurement"),
            Ok(n) => n,
            Err(rustix::io::Errno::AGAIN) => return Ok(total),
            Err(e) => return Err(e.into()),
        };
        take(&buf[..n])?;
        total += n as u64;
        if !edge || n < buf.len() {
            return Ok(total);
        }
    }
}

/// Per series (every parameter but `x` the same), how the headline time
/// grows from the smallest to the largest `x` that ran, e.g. "poll: 34.0x
/// slower at idle=10240 than at idle=0"; and from which `x` it could not run.
/// `metric` None means each result's headline.
pub(crate) fn growth(
    results: &[&CaseResult],
    x: &ParamSpec,
    metric: Option<&MetricSpec>,
) -> Vec<Finding> {
    let x = x.name;
    let mut series: BTreeMap<String, Vec<&CaseResult>> = BTreeMap::new();
    for r in results {
        series.entry(series_name(r, x)).or_default().push(r);
    }
    series
        .into_iter()
        .filter_map(|(name, rs)| growth_line(&name, &rs, x, metric))
        .collect()
}

fn x_of(r: &CaseResult, x: &str) -> Option<u64> {
    r.params.get(x).and_then(|v| v.as_u64())
}

/// The case name without its `x=...` part, e.g. "poll/tcp".
fn series_name(r: &CaseResult, x: &str) -> String {
    let own = x_of(r, x).map(|v| format!("{x}={v}"));
    r.case
        .split('/')
        .filter(|part| Some(part.to_string()) != own)
        .collect::<Vec<_>>()
        .join("/")
}

fn growth_line(
    name: &str,
    rs: &[&CaseResult],
    x: &str,
    metric: Option<&MetricSpec>,
) -> Option<Finding> {
    let mut ok: Vec<(u64, f64, &str, &str)> = rs
        .iter()
        .filter(|r| r.status == Status::Ok)
        .filter_map(|r| {
            let (name, m) = match metric {
                Some(spec) => (spec.name, spec.of(r)?),
                None => r.headline_metric()?,
            };
            Some((x_of(r, x)?, m.value, name, m.unit.as_str()))
        })
        .collect();
    ok.sort_by_key(|(v, _, _, _)| *v);
    let unsupported_from = rs
        .iter()
        .filter(|r| r.status == Status::Unsupported)
        .filter_map(|r| x_of(r, x))
        .min();
    let tail = unsupported_from
        .map(|v| format!("; unsupported from {x}={v}"))
        .unwrap_or_default();
    let (&(lo_x, lo, name_of, unit), &(hi_x, hi, _, _)) = (ok.first()?, ok.last()?);
    if ok.len() < 2 {
        let text = |_| format!("{name}: ran only at {x}={lo_x}{tail}");
        return unsupported_from.map(text).map(|t| Finding::new(name, t));
    }
    let ratio = hi / lo;
    // A headline here is a time; another metric is just higher or lower.
    let (up, down) = match metric {
        None => ("slower", "faster"),
        Some(_) => ("higher", "lower"),
    };
    let shape = if (ratio - 1.0).abs() <= 0.10 {
        let ratio = crate::format::ratio(ratio);
        format!("flat within 10% from {x}={lo_x} to {x}={hi_x} ({ratio})")
    } else if ratio > 1.0 {
        let ratio = crate::format::ratio(ratio);
        format!("{ratio} {up} at {x}={hi_x} than at {x}={lo_x}")
    } else {
        let ratio = crate::format::ratio(1.0 / ratio);
        format!("{ratio} {down} at {x}={hi_x} than at {x}={lo_x}")
    };
    let text = format!(
        "{name}: {shape} ({name_of} {} -> {}){tail}",
        crate::format::human(lo, unit),
        crate::format::human(hi, unit)
    );
    let at = |v: u64| format!("{name_of} at {x}={v}");
    let finding = Finding::new(format!("{name} {name_of}"), text);
    Some(finding.with(&at(lo_x), lo, unit).with(&at(hi_x), hi, unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::poll_scale::{IDLE, SECONDS};

    fn result(poller: &str, idle: u64, seconds: Option<f64>) -> CaseResult {
        let mut params = BTreeMap::new();
        params.insert("poller".to_string(), poller.into());
        params.insert("idle".to_string(), idle.into());
        let mut r = CaseResult::new("poll-scale", &format!("{poller}/tcp/idle={idle}"), params);
        match seconds {
            Some(s) => {
                SECONDS.set(&mut r, vec![s]);
                SECONDS.set_headline(&mut r);
            }
            None => r.status = Status::Unsupported,
        }
        r
    }

    #[test]
    fn select_refuses_a_high_descriptor_as_unsupported() {
        let old = crate::scenario::common::fd_budget::raise_nofile().unwrap();
        let (rx, _tx) = rustix::pipe::pipe().unwrap();
        let high = match rustix::io::fcntl_dupfd_cloexec(&rx, 1500) {
            Ok(fd) => fd,
            Err(_) => return, // the hard limit is too low to try here
        };
        let select = crate::poller::find("select").unwrap();
        let mut set = select.open(2).unwrap();
        let err = register(&mut *set, [&rx, &high]).unwrap_err();
        let why = err
            .downcast_ref::<Unsupported>()
            .expect("unsupported, not failed");
        assert!(
            why.0
                .ends_with("is at or above select's FD_SETSIZE of 1024"),
            "{}",
            why.0
        );
        crate::scenario::common::fd_budget::restore_nofile(old);
    }

    #[test]
    fn growth_says_slower_flat_and_where_it_stopped() {
        let rs = [
            result("poll", 0, Some(0.5)),
            result("poll", 2560, Some(17.0)),
            result("epoll-lt", 0, Some(0.50)),
            result("epoll-lt", 2560, Some(0.52)),
            result("select", 0, Some(0.4)),
            result("select", 640, Some(0.8)),
            result("select", 1280, None),
        ];
        let refs: Vec<&CaseResult> = rs.iter().collect();
        assert_eq!(
            growth(&refs, &IDLE, None),
            vec![
                "epoll-lt/tcp: flat within 10% from idle=0 to idle=2560 (1.04x) (seconds 500 ms -> 520 ms)",
                "poll/tcp: 34x slower at idle=2560 than at idle=0 (seconds 500 ms -> 17.0 s)",
                "select/tcp: 2.00x slower at idle=640 than at idle=0 (seconds 400 ms -> 800 ms); unsupported from idle=1280",
            ]
        );
    }
}
