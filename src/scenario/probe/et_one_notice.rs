//! E5-et-one-notice: under EPOLLET, does a second arrival bring a new
//! notice while the first was not read? On a pipe and on an AF_UNIX
//! stream socket pair (non-blocking): one byte sent, wait, a second byte
//! sent without reading, wait, then a wait with nothing new. And does
//! epoll accept EPOLLET on a blocking descriptor?

use super::Probing;
use anyhow::Context;
use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};
use rustix::fd::OwnedFd;
use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};
use rustix::pipe::{pipe_with, PipeFlags};

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let pipe = pipe_with(PipeFlags::NONBLOCK | PipeFlags::CLOEXEC).context("pipe2")?;
    notices(p, "pipe", pipe)?;
    let flags = SocketFlags::NONBLOCK | SocketFlags::CLOEXEC;
    let (a, b) =
        socketpair(AddressFamily::UNIX, SocketType::STREAM, flags, None).context("socketpair")?;
    notices(p, "unix_stream", (a, b))?;
    blocking(p)
}

/// `ends`: (the end watched, the end written).
fn notices(p: &mut Probing, kind: &str, ends: (OwnedFd, OwnedFd)) -> anyhow::Result<()> {
    let (watched, written) = ends;
    let ep = epoll::create(CreateFlags::CLOEXEC).context("epoll_create1")?;
    let flags = EventFlags::IN | EventFlags::ET;
    epoll::add(&ep, &watched, EventData::new_u64(1), flags).context("epoll_ctl")?;
    let steps = [
        ("first_write", "write(1 B); epoll_wait(timeout 0)", true),
        (
            "second_write_unread",
            "write(1 B) again, nothing read; epoll_wait(timeout 0)",
            true,
        ),
        ("nothing_new", "no write; epoll_wait(timeout 0)", false),
    ];
    for (name, what, write) in steps {
        if write {
            rustix::io::write(&written, b"x").context("write")?;
        }
        let n = ready(&ep)?;
        let call = format!("{kind} under EPOLLIN|EPOLLET: {what}");
        p.measured(
            &format!("{kind}_{name}"),
            call,
            crate::format::plural(n, "event"),
            n as f64,
            "events",
        );
    }
    Ok(())
}

fn ready(ep: &OwnedFd) -> anyhow::Result<usize> {
    let mut events = Vec::with_capacity(4);
    let zero = rustix::time::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    epoll::wait(ep, rustix::buffer::spare_capacity(&mut events), Some(&zero)).context("epoll_wait")
}

fn blocking(p: &mut Probing) -> anyhow::Result<()> {
    let ep = epoll::create(CreateFlags::CLOEXEC).context("epoll_create1")?;
    let (r, _w) = rustix::pipe::pipe().context("pipe")?;
    let call = "epoll_ctl(EPOLL_CTL_ADD, EPOLLIN|EPOLLET) on a blocking pipe";
    match epoll::add(
        &ep,
        &r,
        EventData::new_u64(1),
        EventFlags::IN | EventFlags::ET,
    ) {
        Ok(()) => p.measured("et_on_blocking_fd", call, "accepted", 1.0, "flag"),
        Err(e) => p.refused("et_on_blocking_fd", call, &e.into()),
    }
    Ok(())
}
