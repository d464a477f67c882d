//! Watching sides through their status pipes: "ready" bytes, then the
//! report, then end of file when the side has ended. One poll covers any
//! set of sides, threads and processes alike, so a group's owner learns
//! of a side that failed while the others still wait for it (`watch`).

use super::{Side, Task, READY};
use crate::exec::cleanup;
use anyhow::anyhow;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::io::Errno;
use std::borrow::BorrowMut;
use std::time::{Duration, Instant};

/// How often a waiting owner looks at Ctrl-C and deadlines.
const TICK: Duration = Duration::from_millis(100);

/// How long a watcher of `sides` may wait before looking again: a thread
/// side must be re-interrupted now and then (a signal that lands between
/// two system calls is lost), a process side needs no looking after.
pub(crate) fn tick<S: BorrowMut<Side>>(sides: &[S]) -> Duration {
    let threads = sides
        .iter()
        .any(|s| matches!(s.borrow().task, Task::Thread(_)));
    if threads {
        TICK
    } else {
        Duration::MAX
    }
}

/// Waits at most `most` until a side that has not ended writes to its
/// status pipe or ends; returns how many sides ended meanwhile.
pub(crate) fn wait_any<S: BorrowMut<Side>>(sides: &mut [S], most: Duration) -> usize {
    poll_sides(sides, most, |_| true)
}

/// Waits until every side has signalled `Ready`. A side that ends or
/// reports instead makes this fail at once with its reason, whichever side
/// it is (the others may be waiting for it); so do Ctrl-C and `deadline`.
pub(crate) fn wait_ready<S: BorrowMut<Side>>(
    sides: &mut [S],
    deadline: Instant,
) -> anyhow::Result<()> {
    loop {
        let failed = sides
            .iter_mut()
            .map(|s| s.borrow_mut())
            .find(|s| !s.ready && (s.ended || !s.report.is_empty()));
        if let Some(side) = failed {
            return Err(why_not_ready(side, deadline));
        }
        let waiting: Vec<&str> = sides
            .iter()
            .map(|s| s.borrow())
            .filter(|s| !s.ready)
            .map(|s| s.role)
            .collect();
        if waiting.is_empty() {
            return Ok(());
        }
        let roles = waiting.join(", ");
        check(deadline).map_err(|e| e.context(format!("waiting for the {roles} to be ready")))?;
        poll_sides(sides, left(deadline), |s| !s.ready);
    }
}

/// Waits until the first `awaited` of `sides` have ended. A side that
/// fails meanwhile (its body erred or panicked, or it died without a
/// report) ends the wait at once: the others, which may be waiting for
/// what it would have sent, are killed, and the error is its reason,
/// named `name(index)`. Ctrl-C and `deadline` kill them all too.
pub(crate) fn watch<S: BorrowMut<Side>>(
    sides: &mut [S],
    awaited: usize,
    deadline: Instant,
    name: impl Fn(usize) -> String,
) -> anyhow::Result<()> {
    let mut seen = vec![false; sides.len()];
    loop {
        if let Some(err) = first_failure(sides, &mut seen, &name) {
            kill_all(sides);
            return Err(err);
        }
        let Some(waiting) = (0..awaited).find(|i| !sides[*i].borrow().ended) else {
            return Ok(());
        };
        if let Err(e) = check(deadline) {
            kill_all(sides);
            return Err(e.context(format!("waiting for the {}", name(waiting))));
        }
        poll_sides(sides, left(deadline), |_| true);
    }
}

/// The first side that ended since the last look (`seen`) with anything
/// but a value, and its reason.
fn first_failure<S: BorrowMut<Side>>(
    sides: &mut [S],
    seen: &mut [bool],
    name: impl Fn(usize) -> String,
) -> Option<anyhow::Error> {
    (0..sides.len()).find_map(|i| {
        let side = sides[i].borrow_mut();
        if seen[i] || !side.ended {
            return None;
        }
        seen[i] = true;
        let ended = side.take::<serde::de::IgnoredAny>();
        ended.into_result(&name(i)).err()
    })
}

fn kill_all<S: BorrowMut<Side>>(sides: &[S]) {
    sides.iter().for_each(|s| s.borrow().kill());
}

/// The reason a side that ended (or began its report) before it was
/// ready gives, once its report is in.
fn why_not_ready(side: &mut Side, deadline: Instant) -> anyhow::Error {
    let _ = wait_end(side, deadline);
    let role = side.role;
    side.take::<serde::de::IgnoredAny>()
        .into_result(role)
        .err()
        .unwrap_or_else(|| anyhow!("the {role} reported before it was ready"))
}

/// Reads the side's status pipe to its end; an error at `deadline` or on
/// Ctrl-C.
pub(super) fn wait_end(side: &mut Side, deadline: Instant) -> anyhow::Result<()> {
    while !side.ended {
        check(deadline)?;
        poll_sides(std::slice::from_mut(side), left(deadline), |_| true);
    }
    Ok(())
}

fn check(deadline: Instant) -> anyhow::Result<()> {
    if cleanup::cancelled() {
        anyhow::bail!("interrupted");
    }
    if Instant::now() >= deadline {
        anyhow::bail!("timed out");
    }
    Ok(())
}

fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now()).min(TICK)
}

/// Polls the status pipes of the sides that have not ended and that
/// `watch` picks, for at most `most`; reads what is readable.
fn poll_sides<S: BorrowMut<Side>>(
    sides: &mut [S],
    most: Duration,
    watch: impl Fn(&Side) -> bool,
) -> usize {
    let open: Vec<usize> = (0..sides.len())
        .filter(|i| {
            let s = sides[*i].borrow();
            !s.ended && watch(s)
        })
        .collect();
    if open.is_empty() {
        return 0;
    }
    let mut fds: Vec<PollFd> = open
        .iter()
        .map(|i| PollFd::new(&sides[*i].borrow().status, PollFlags::IN))
        .collect();
    let ts = rustix::time::Timespec::try_from(most).ok();
    if poll(&mut fds, ts.as_ref()).unwrap_or(0) == 0 {
        return 0;
    }
    let readable: Vec<usize> = open
        .iter()
        .zip(&fds)
        .filter(|(_, fd)| !fd.revents().is_empty())
        .map(|(i, _)| *i)
        .collect();
    drop(fds);
    readable
        .into_iter()
        .filter(|i| sides[*i].borrow_mut().read_status())
        .count()
}

impl Side {
    /// One read from the status pipe; true if it shows the side ended.
    fn read_status(&mut self) -> bool {
        let mut chunk = [0u8; 65536];
        match rustix::io::read(&self.status, &mut chunk) {
            Ok(0) => self.ended = true,
            Ok(n) => self.absorb(&chunk[..n]),
            Err(Errno::INTR | Errno::AGAIN) => {}
            Err(_) => self.ended = true,
        }
        self.ended
    }

    /// "Ready" bytes come before the report, which never starts with one.
    fn absorb(&mut self, mut bytes: &[u8]) {
        if self.report.is_empty() {
            let skip = bytes.iter().take_while(|b| **b == READY).count();
            self.ready |= skip > 0;
            bytes = &bytes[skip..];
        }
        self.report.extend_from_slice(bytes);
    }
}
