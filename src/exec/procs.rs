//! A group of cooperating forked processes (e.g. server, client and idle
//! holder), for scenarios that need more than the two sides of `peers`.
//! Each child says "ready" with one byte on its status pipe, later sends its
//! outcome there as JSON, and exits. The parent waits for readiness and
//! outcomes with deadlines; a child dropped before it was finished is
//! killed and reaped, so an error path leaves no process behind.

use super::cleanup;
use super::peers::{catch_panic, stop_and_reap, track};
use crate::error::Unsupported;
use crate::measure::pin::pin_current;
use crate::sys::fork::{exit_child, fork, Forked};
use anyhow::{anyhow, Context};
use rustix::event::{poll, PollFd, PollFlags};
use rustix::fd::OwnedFd;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io;
use std::time::{Duration, Instant};

const READY: u8 = b'R';
/// How often a waiting parent looks at Ctrl-C.
const TICK: Duration = Duration::from_millis(100);

/// What a child sends back at the end.
#[derive(Serialize, Deserialize)]
enum Outcome<R> {
    Done(R),
    Failed(String),
    Unsupported(String),
}

/// Held by the child: tells the parent it is ready.
pub struct Ready(OwnedFd);

impl Ready {
    pub fn signal(&self) -> io::Result<()> {
        crate::mechanism::write_all_fd(&self.0, &[READY])
    }
}

/// The parent's handle on one child.
pub struct Child {
    role: &'static str,
    pid: i32,
    status: OwnedFd,
    ready: bool,
    reaped: bool,
}

/// Forks a child that pins itself to `cpu`, runs `f` and reports.
pub fn spawn<R, F>(role: &'static str, cpu: Option<usize>, f: F) -> anyhow::Result<Child>
where
    R: Serialize,
    F: FnOnce(&Ready) -> anyhow::Result<R>,
{
    let (rx, tx) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    match fork().with_context(|| format!("fork the {role}"))? {
        Forked::Child => {
            drop(rx);
            child_main(cpu, Ready(tx), f)
        }
        Forked::Parent(pid) => {
            track(pid);
            Ok(Child {
                role,
                pid,
                status: rx,
                ready: false,
                reaped: false,
            })
        }
    }
}

fn child_main<R: Serialize, F: FnOnce(&Ready) -> anyhow::Result<R>>(
    cpu: Option<usize>,
    ready: Ready,
    f: F,
) -> ! {
    let result = pin_current(cpu)
        .with_context(|| format!("pinning to CPU {cpu:?}"))
        .and_then(|()| catch_panic(|| f(&ready)));
    let outcome = match result {
        Ok(r) => Outcome::Done(r),
        Err(e) => match e.downcast_ref::<Unsupported>() {
            Some(why) => Outcome::Unsupported(why.0.clone()),
            None => Outcome::Failed(format!("{e:#}")),
        },
    };
    let bytes = serde_json::to_vec(&outcome).unwrap_or_default();
    let written = crate::mechanism::write_all_fd(&ready.0, &bytes);
    exit_child(if written.is_ok() { 0 } else { 121 })
}

/// Waits until every child has said it is ready. A child that ends or
/// reports instead makes this fail at once with its reason, whichever
/// child it is (the others may be waiting for it).
pub fn wait_ready(children: &mut [&mut Child], deadline: Instant) -> anyhow::Result<()> {
    loop {
        let waiting: Vec<usize> = (0..children.len())
            .filter(|i| !children[*i].ready)
            .collect();
        if waiting.is_empty() {
            return Ok(());
        }
        let fds: Vec<&OwnedFd> = waiting.iter().map(|i| &children[*i].status).collect();
        let roles: Vec<&str> = waiting.iter().map(|i| children[*i].role).collect();
        let readable = poll_any(&fds, deadline)
            .with_context(|| format!("waiting for the {} to be ready", roles.join(", ")))?;
        for i in readable.into_iter().map(|k| waiting[k]) {
            children[i].take_ready(deadline)?;
        }
    }
}

impl Child {
    /// Reads the byte a readable status pipe holds: "ready", or the start
    /// of the child's report, which then fails the wait with its reason.
    fn take_ready(&mut self, deadline: Instant) -> anyhow::Result<()> {
        let mut first = [0u8; 1];
        let n = rustix::io::read(&self.status, &mut first)?;
        if n == 1 && first[0] == READY {
            self.ready = true;
            return Ok(());
        }
        let mut rest = first[..n].to_vec();
        read_to_end(&self.status, &mut rest, deadline)?;
        let role = self.role;
        Err(decode::<serde_json::Value>(role, &rest)
            .err()
            .unwrap_or_else(|| anyhow!("the {role} reported before it was ready")))
    }
}

impl Child {
    /// Reads the child's outcome (killing it at `deadline`) and reaps it.
    pub fn finish<R: DeserializeOwned>(mut self, deadline: Instant) -> anyhow::Result<R> {
        let mut bytes = Vec::new();
        let read = read_to_end(&self.status, &mut bytes, deadline);
        self.reap();
        read.with_context(|| format!("waiting for the {}", self.role))?;
        decode(self.role, &bytes)
    }

    fn reap(&mut self) {
        if !self.reaped {
            stop_and_reap(self.pid);
            self.reaped = true;
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.reap();
    }
}

fn decode<R: DeserializeOwned>(role: &str, bytes: &[u8]) -> anyhow::Result<R> {
    let skip = bytes.iter().take_while(|b| **b == READY).count();
    if bytes.len() == skip {
        anyhow::bail!("the {role} ended without a report (killed or crashed)");
    }
    match serde_json::from_slice::<Outcome<R>>(&bytes[skip..]) {
        Ok(Outcome::Done(r)) => Ok(r),
        Ok(Outcome::Failed(why)) => Err(anyhow!("{role}: {why}")),
        Ok(Outcome::Unsupported(why)) => Err(Unsupported(why).into()),
        Err(e) => Err(anyhow!("unreadable report from the {role}: {e}")),
    }
}

fn read_to_end(fd: &OwnedFd, out: &mut Vec<u8>, deadline: Instant) -> anyhow::Result<()> {
    let mut chunk = [0u8; 65536];
    loop {
        match read_some(fd, &mut chunk, deadline)? {
            0 => return Ok(()),
            n => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// One read from `fd` once it is readable; 0 means end of file.
fn read_some(fd: &OwnedFd, buf: &mut [u8], deadline: Instant) -> anyhow::Result<usize> {
    poll_any(&[fd], deadline)?;
    Ok(rustix::io::read(fd, buf)?)
}

/// Waits until at least one of `fds` is readable and returns their
/// indices; an error at the deadline or on Ctrl-C.
fn poll_any(fds: &[&OwnedFd], deadline: Instant) -> anyhow::Result<Vec<usize>> {
    loop {
        if cleanup::cancelled() {
            anyhow::bail!("interrupted");
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            anyhow::bail!("timed out");
        }
        let ts = rustix::time::Timespec::try_from(left.min(TICK))?;
        let mut polled: Vec<PollFd> = fds
            .iter()
            .map(|fd| PollFd::new(*fd, PollFlags::IN))
            .collect();
        match poll(&mut polled, Some(&ts)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => {
                return Ok((0..polled.len())
                    .filter(|i| !polled[*i].revents().is_empty())
                    .collect())
            }
            Err(e) => return Err(e.into()),
        }
    }
}
