//! E5-epoll-ctl-constant: does adding a descriptor to epoll cost the same
//! however many are registered? One epoll instance per level is filled
//! with that many eventfds (10, 1,000, 10,000, as far as the descriptor
//! budget allows); in each of ROUNDS rounds every level in turn gets BATCH
//! more, each add timed, and removed again. Taking the levels in turn
//! within a round, not one level after the other, keeps a shift of the
//! host's speed (this machine's can halve it within milliseconds) out of
//! the comparison. Each round's mean ns per EPOLL_CTL_ADD is recorded
//! (`add_round_at_N`), so the claim weighs a measured spread, and the
//! level's figure is their median (`add_at_N`).

use super::{ns, Probing};
use crate::measure::clock::now_ns;
use crate::scenario::common::fd_budget::{with_raised_nofile, FdBudget};
use crate::scenario::Unsupported;
use crate::stats::estimators::median;
use anyhow::Context;
use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};
use rustix::event::{eventfd, EventfdFlags};
use rustix::fd::OwnedFd;

const LEVELS: [u64; 3] = [10, 1_000, 10_000];
const BATCH: u64 = 100;
const ROUNDS: usize = 25;
/// The epoll descriptor and a few the run may open meanwhile.
const FIXED: u64 = 8;

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let budget = FdBudget::process().context("reading the descriptor budget")?;
    // Every level's instance is open at once: each level fits when it and
    // the smaller ones do.
    let fixed = |level: u64| FIXED + BATCH + LEVELS.iter().filter(|l| **l < level).sum::<u64>();
    let fits: Vec<u64> = LEVELS
        .iter()
        .copied()
        .filter(|&level| {
            budget
                .check("process", "registered", level, fixed(level), 1)
                .is_ok()
        })
        .collect();
    if fits.is_empty() {
        let why = budget
            .check("process", "registered", LEVELS[0], fixed(LEVELS[0]), 1)
            .err();
        return Err(Unsupported(why.map_or_else(String::new, |u| u.0)).into());
    }
    with_raised_nofile(|| measure(p, &fits))?;
    for &level in LEVELS.iter().filter(|l| !fits.contains(l)) {
        if let Err(why) = budget.check("process", "registered", level, fixed(level), 1) {
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

/// One level's epoll instance and the descriptors registered in it.
struct Filled {
    level: u64,
    ep: OwnedFd,
    _registered: Vec<OwnedFd>,
}

fn filled(level: u64) -> anyhow::Result<Filled> {
    let ep = epoll::create(CreateFlags::CLOEXEC).context("epoll_create1")?;
    let registered = eventfds(level)?;
    for fd in &registered {
        add(&ep, fd)?;
    }
    Ok(Filled {
        level,
        ep,
        _registered: registered,
    })
}

fn measure(p: &mut Probing, levels: &[u64]) -> anyhow::Result<()> {
    let batch = eventfds(BATCH)?;
    let instances: Vec<Filled> = levels
        .iter()
        .map(|&l| filled(l))
        .collect::<anyhow::Result<_>>()?;
    let mut means: Vec<Vec<f64>> = vec![Vec::with_capacity(ROUNDS); instances.len()];
    for i in 1..=ROUNDS {
        for (f, each) in instances.iter().zip(means.iter_mut()) {
            let mean = round(&f.ep, &batch)?;
            let call = format!("round {i} of {ROUNDS}: {}", call(f.level));
            let answer = format!("{} per add", ns(mean as u64));
            p.measured(
                &format!("add_round_at_{}", f.level),
                call,
                answer,
                mean,
                "ns",
            );
            each.push(mean);
        }
    }
    for (f, mut each) in instances.iter().zip(means) {
        let figure = median(&mut each);
        let answer = format!(
            "{} per add (median of {ROUNDS} rounds' means)",
            ns(figure as u64)
        );
        p.measured(
            &format!("add_at_{}", f.level),
            call(f.level),
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
