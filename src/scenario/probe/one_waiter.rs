//! E6-one-waiter-woken: can many threads wait on one event port with only
//! one getting each event? Four threads block in epoll_wait on one shared
//! epoll fd watching an eventfd; one write makes it ready, and after a
//! bounded wait the threads that returned with it are counted. Level- and
//! edge-triggered, and EPOLLEXCLUSIVE with one epoll fd per thread. A stop
//! eventfd then releases every thread still waiting (each wait also has a
//! timeout), so none is left behind.

use super::Probing;
use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};
use rustix::event::{eventfd, EventfdFlags};
use rustix::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

pub(crate) const WAITERS: usize = 4;
pub(crate) const ROUNDS: usize = 3;
/// Time for the threads to block in epoll_wait before the event.
const SETTLE: Duration = Duration::from_millis(20);
/// Time every woken thread has to return after the event.
const WINDOW: Duration = Duration::from_millis(50);
/// The longest any wait may last, should the stop event not reach it.
const TIMEOUT: rustix::time::Timespec = rustix::time::Timespec {
    tv_sec: 2,
    tv_nsec: 0,
};
const DATA: u64 = 1;
const STOP: u64 = 2;

#[derive(Clone, Copy, PartialEq)]
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
            match round(mode) {
                Ok(n) => {
                    let answer = format!("{n} of {WAITERS} threads woken");
                    p.measured(
                        &format!("{name}_wakeups"),
                        &call,
                        answer,
                        n as f64,
                        "threads",
                    );
                }
                Err(e) => p.refused(&format!("{name}_wakeups"), &call, &e),
            }
        }
    }
    Ok(())
}

/// One event among `WAITERS` waiting threads: how many returned with it.
fn round(mode: Mode) -> std::io::Result<usize> {
    let flags = EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK;
    let (data, stop) = (eventfd(0, flags)?, eventfd(0, flags)?);
    let ports = match mode {
        Mode::Exclusive => WAITERS,
        _ => 1,
    };
    let watched = match mode {
        Mode::Level => EventFlags::IN,
        Mode::Edge => EventFlags::IN | EventFlags::ET,
        Mode::Exclusive => EventFlags::IN | EventFlags::EXCLUSIVE,
    };
    let mut eps = Vec::with_capacity(ports);
    for _ in 0..ports {
        let ep = epoll::create(CreateFlags::CLOEXEC)?;
        epoll::add(&ep, &data, EventData::new_u64(DATA), watched)?;
        epoll::add(&ep, &stop, EventData::new_u64(STOP), EventFlags::IN)?;
        eps.push(ep);
    }
    let (woken, stopped) = (AtomicUsize::new(0), AtomicBool::new(false));
    thread::scope(|s| {
        let waiters: Vec<_> = (0..WAITERS)
            .map(|i| {
                let ep = &eps[i % ports];
                let (woken, stopped) = (&woken, &stopped);
                s.spawn(move || wait_once(ep, woken, stopped))
            })
            .collect();
        thread::sleep(SETTLE);
        let fired = rustix::io::write(&data, &1u64.to_ne_bytes());
        thread::sleep(WINDOW);
        stopped.store(true, Ordering::SeqCst);
        let released = rustix::io::write(&stop, &1u64.to_ne_bytes());
        let waited: Vec<std::io::Result<()>> = waiters
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("waiter panicked")))
            })
            .collect();
        fired?;
        released?;
        waited.into_iter().collect::<std::io::Result<()>>()
    })?;
    Ok(woken.into_inner())
}

/// One epoll_wait; counts a return with the event before the stop.
fn wait_once(ep: &OwnedFd, woken: &AtomicUsize, stopped: &AtomicBool) -> std::io::Result<()> {
    let mut events = Vec::with_capacity(1);
    epoll::wait(
        ep,
        rustix::buffer::spare_capacity(&mut events),
        Some(&TIMEOUT),
    )?;
    let got_data = events.iter().any(|e| e.data.u64() == DATA);
    if got_data && !stopped.load(Ordering::SeqCst) {
        woken.fetch_add(1, Ordering::SeqCst);
    }
    Ok(())
}
