//! E5-epoll-ctl-constant: does adding a descriptor to epoll cost the same
//! however many are registered? One epoll instance is filled with
//! eventfds up to each level (10, 1,000, 10,000, as far as the descriptor
//! budget allows); at each level BATCH more are added, each add timed,
//! and removed again, ROUNDS times. Each round's mean ns per EPOLL_CTL_ADD
//! is recorded (`add_round_at_N`), so the claim weighs a measured spread,
//! and the level's figure is their median (`add_at_N`).

use super::{ns, Probing};
use crate::measure::clock::now_ns;
use crate::measure::stats::median;
use crate::scenario::common::fd_budget::{with_raised_nofile, FdBudget};
use crate::scenario::Unsupported;
use anyhow::Context;
use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};
use rustix::event::{eventfd, EventfdFlags};
use rustix::fd::OwnedFd;

const LEVELS: [u64; 3] = [10, 1_000, 10_000];
const BATCH: u64 = 100;
const ROUNDS: usize = 9;
/// The epoll descriptor and a few the run may open meanwhile.
const FIXED: u64 = 8;

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let budget = FdBudget::process().context("reading the descriptor budget")?;
    let fits: Vec<u64> = LEVELS
        .iter()
        .copied()
        .filter(|&level| {
            budget
                .check("process", "registered", level, FIXED + BATCH, 1)
                .is_ok()
        })
        .collect();
    let Some(&top) = fits.last() else {
        let why = budget
            .check("process", "registered", LEVELS[0], FIXED + BATCH, 1)
            .err();
        return Err(Unsupported(why.map_or_else(String::new, |u| u.0)).into());
    };
    with_raised_nofile(|| measure(p, &fits))?;
    for &level in LEVELS.iter().filter(|l| **l > top) {
        if let Err(why) = budget.check("process", "registered", level, FIXED + BATCH, 1) {
            p.saw(
                &format!("add_at_{level}"),
                call(level),
                format!("not measured: {}", why.0),
            );
        }
    }
    Ok(())
}

fn call(level: u64) -> String {
    format!(
        "epoll_ctl(EPOLL_CTL_ADD, eventfd) x {BATCH}, {level} already registered; {ROUNDS} rounds"
    )
}

fn measure(p: &mut Probing, levels: &[u64]) -> anyhow::Result<()> {
    let ep = epoll::create(CreateFlags::CLOEXEC).context("epoll_create1")?;
    let batch = eventfds(BATCH)?;
    let mut registered: Vec<OwnedFd> = Vec::new();
    for &level in levels {
        let more = eventfds(level - registered.len() as u64)?;
        for fd in &more {
            add(&ep, fd)?;
        }
        registered.extend(more);
        let mut means = Vec::with_capacity(ROUNDS);
        for i in 1..=ROUNDS {
            let mean = round(&ep, &batch)?;
            let name = format!("add_round_at_{level}");
            let call = format!("round {i} of {ROUNDS}: {}", call(level));
            p.measured(
                &name,
                call,
                format!("{} per add", ns(mean as u64)),
                mean,
                "ns",
            );
            means.push(mean);
        }
        let figure = median(&mut means);
        let answer = format!(
            "{} per add (median of {ROUNDS} rounds' means)",
            ns(figure as u64)
        );
        p.measured(
            &format!("add_at_{level}"),
            call(level),
            answer,
            figure,
            "ns",
        );
    }
    Ok(())
}

/// Adds every descriptor of `batch`, timing each add; removes them again.
/// Returns the mean ns per add.
fn round(ep: &OwnedFd, batch: &[OwnedFd]) -> anyhow::Result<f64> {
    let mut total = 0u64;
    for fd in batch {
        let start = now_ns();
        add(ep, fd)?;
        total += now_ns() - start;
    }
    for fd in batch {
        epoll::delete(ep, fd).context("EPOLL_CTL_DEL")?;
    }
    Ok(total as f64 / batch.len() as f64)
}

fn add(ep: &OwnedFd, fd: &OwnedFd) -> anyhow::Result<()> {
    epoll::add(ep, fd, EventData::new_u64(0), EventFlags::IN).context("EPOLL_CTL_ADD")
}

fn eventfds(n: u64) -> anyhow::Result<Vec<OwnedFd>> {
    (0..n)
        .map(|_| eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK).context("eventfd"))
        .collect()
}
