//! E5-epoll-mmap: does epoll hand events over through memory mapped into
//! user space? After an epoll_wait has returned an event, an epoll
//! descriptor is asked for a shared mapping, and the process's mappings
//! are searched for anything of epoll's.

use super::Probing;
use crate::sys::mmap::Mapping;
use anyhow::Context;
use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};

const MAPS: &str = "/proc/self/maps";

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let ep = epoll::create(CreateFlags::CLOEXEC).context("epoll_create1")?;
    let (r, w) = rustix::pipe::pipe().context("pipe")?;
    epoll::add(&ep, &r, EventData::new_u64(1), EventFlags::IN).context("epoll_ctl")?;
    rustix::io::write(&w, b"x").context("write")?;
    let mut events = Vec::with_capacity(4);
    let zero = rustix::time::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let n = epoll::wait(
        &ep,
        rustix::buffer::spare_capacity(&mut events),
        Some(&zero),
    )
    .context("epoll_wait")?;
    let answer = format!("{n} event copied into the caller's array");
    p.measured(
        "epoll_wait",
        "epoll_wait(epfd, events, 4, 0) with one pipe readable",
        answer,
        n as f64,
        "events",
    );
    let call = "mmap(NULL, 4096, PROT_READ, MAP_SHARED, epfd, 0)";
    match Mapping::of(&ep, 4096) {
        Ok(map) => {
            drop(map);
            p.measured("mmap", call, "mapped (then unmapped)", 1.0, "flag");
        }
        Err(e) => p.refused("mmap", call, &e),
    }
    let maps = std::fs::read_to_string(MAPS).with_context(|| format!("reading {MAPS}"))?;
    let epoll_lines = maps.lines().filter(|l| l.contains("eventpoll")).count();
    let answer = format!(
        "{epoll_lines} of {} mappings name eventpoll",
        maps.lines().count()
    );
    p.measured(
        "maps",
        format!("read {MAPS} after epoll_wait"),
        answer,
        epoll_lines as f64,
        "mappings",
    );
    Ok(())
}
