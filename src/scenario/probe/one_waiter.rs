//! E6-one-waiter-woken: can many threads wait on one event port with only
//! one getting each event? Four threads block in epoll_wait on one shared
//! epoll fd watching an eventfd; one write makes it ready, and after a
//! bounded wait the threads that returned with it are counted. Level- and
//! edge-triggered, and EPOLLEXCLUSIVE with one epoll fd per thread. A stop
//! eventfd then releases every thread still waiting (each wait also has a
//! timeout), so none is left behind.

use super::Probing;
use crate::exec::side::{self, Ready, Spec};
use anyhow::Context;
use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};
use rustix::event::{eventfd, EventfdFlags};
use rustix::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const WAITERS: usize = 4;
const ROUNDS: usize = 3;
/// Time for the threads to block in epoll_wait before the event.
const SETTLE: Duration = Duration::from_millis(20);
/// Time every woken thread has to return after the event.
const WINDOW: Duration = Duration::from_millis(50);
/// The longest any wait may last, should the stop event not reach it.
const TIMEOUT: rustix::time::Timespec = rustix::time::Timespec {
    tv_sec: 2,
    tv_nsec: 0,
};
/// The longest a round may take in all.
const DEADLINE: Duration = Duration::from_secs(10);
const DATA: u64 = 1;
const STOP: u64 = 2;

#[derive(Clone, Copy)]
enum Mode {
    Level,
    Edge,
    Exclusive,
}

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    for (mode, name, how) in [
        (Mode::Level, "level", "EPOLLIN on one shared epoll fd"),
        (Mode::Edge, "edge", "EPOLLIN|EPOLLET on one shared epoll fd"),
        (
            Mode::Exclusive,
            "exclusive",
            "EPOLLIN|EPOLLEXCLUSIVE on one epoll fd per thread",
        ),
    ] {
        let call = format!(
            "{WAITERS} threads in epoll_wait, an eventfd watched with {how}; \
             write(eventfd, 1); count the threads returned with it within {} ms",
            WINDOW.as_millis()
        );
        for _ in 0..ROUNDS {
            let n = round(mode).with_context(|| format!("a {name} round"))?;
            let answer = format!("{n} of {WAITERS} threads woken");
            let name = format!("{name}_wakeups");
            p.measured(&name, &call, answer, n as f64, "threads");
        }
    }
    Ok(())
}

/// One event among `WAITERS` waiting threads: how many returned with it.
fn round(mode: Mode) -> anyhow::Result<usize> {
    let flags = EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK;
    let (data, stop) = (eventfd(0, flags)?, eventfd(0, flags)?);
    let eps = ports(mode, &data, &stop)?;
    let stopped = Arc::new(AtomicBool::new(false));
    let mut sides = Vec::with_capacity(WAITERS);
    for i in 0..WAITERS {
        let (ep, stopped) = (Arc::clone(&eps[i % eps.len()]), Arc::clone(&stopped));
        let spec = Spec::new("waiter", crate::exec::Mode::Threads);
        sides.push(side::start(spec, move |ready| {
            wait_once(&ep, ready, &stopped)
        })?);
    }
    let deadline = Instant::now() + DEADLINE;
    side::wait_ready(&mut sides, deadline)?;
    thread::sleep(SETTLE);
    rustix::io::write(&data, &1u64.to_ne_bytes()).context("write(eventfd)")?;
    thread::sleep(WINDOW);
    stopped.store(true, Ordering::SeqCst);
    rustix::io::write(&stop, &1u64.to_ne_bytes()).context("write(stop eventfd)")?;
    let mut woken = 0;
    for s in sides {
        woken += usize::from(s.finish::<bool>(deadline)?);
    }
    Ok(woken)
}

/// The epoll fds the waiters share (one, or one per waiter under
/// EPOLLEXCLUSIVE), each watching `data` as `mode` says and `stop`.
fn ports(mode: Mode, data: &OwnedFd, stop: &OwnedFd) -> anyhow::Result<Vec<Arc<OwnedFd>>> {
    let (count, watched) = match mode {
        Mode::Level => (1, EventFlags::IN),
        Mode::Edge => (1, EventFlags::IN | EventFlags::ET),
        Mode::Exclusive => (WAITERS, EventFlags::IN | EventFlags::EXCLUSIVE),
    };
    (0..count)
        .map(|_| {
            let ep = epoll::create(CreateFlags::CLOEXEC).context("epoll_create1")?;
            epoll::add(&ep, data, EventData::new_u64(DATA), watched).context("epoll_ctl")?;
            epoll::add(&ep, stop, EventData::new_u64(STOP), EventFlags::IN).context("epoll_ctl")?;
            Ok(Arc::new(ep))
        })
        .collect()
}

/// One epoll_wait, after telling the caller this waiter is about to
/// block; true when it returned with the event before the stop.
fn wait_once(ep: &OwnedFd, ready: &Ready, stopped: &AtomicBool) -> anyhow::Result<bool> {
    ready.signal()?;
    let mut events = Vec::with_capacity(1);
    epoll::wait(
        ep,
        rustix::buffer::spare_capacity(&mut events),
        Some(&TIMEOUT),
    )
    .context("epoll_wait")?;
    let got_data = events.iter().any(|e| e.data.u64() == DATA);
    Ok(got_data && !stopped.load(Ordering::SeqCst))
}
