//! The fidelity baseline for iolab's pipe round trip: the smallest program
//! that does the same thing, two processes pinned to one CPU exchanging one
//! byte over two pipes, timed as a whole with no per-operation clock reads,
//! histograms or checks. Compare its figure with
//! `iolab run pingpong --mech pipe --placement same-cpu` run back to back.
//!
//! cargo run --release --example pipe_baseline -- [ROUND_TRIPS] [REPS]

use iolab::measure::clock::now_ns;
use iolab::measure::pin::{choose, pin_current, Placement};
use iolab::measure::stats::median;
use iolab::sys::fork::{exit_child, fork, Forked};
use rustix::io::{read, write};
use rustix::pipe::pipe;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let trips: u64 = args.next().map_or(Ok(20_000), |a| a.parse())?;
    let reps: u64 = args.next().map_or(Ok(5), |a| a.parse())?;
    let [cpu, _] = choose(Placement::SameCpu).map_err(anyhow::Error::msg)?;
    let (to_child_rx, to_child_tx) = pipe()?;
    let (to_parent_rx, to_parent_tx) = pipe()?;
    let total = trips * (reps + 1);
    if let Forked::Child = fork()? {
        pin_current(cpu)?;
        let mut byte = [0u8; 1];
        for _ in 0..total {
            read(&to_child_rx, &mut byte)?;
            write(&to_parent_tx, &byte)?;
        }
        exit_child(0);
    }
    pin_current(cpu)?;
    let mut byte = [b'x'; 1];
    let mut per_rep = Vec::new();
    for rep in 0..=reps {
        let start = now_ns();
        for _ in 0..trips {
            write(&to_child_tx, &byte)?;
            read(&to_parent_rx, &mut byte)?;
        }
        if rep > 0 {
            per_rep.push((now_ns() - start) as f64 / trips as f64);
        }
    }
    let (lo, hi) = per_rep
        .iter()
        .fold((f64::MAX, 0f64), |(l, h), v| (l.min(*v), h.max(*v)));
    println!(
        "pipe same-cpu processes 1B: {:.0} ns per round trip (median of {reps}, spread {lo:.0}-{hi:.0})",
        median(&mut per_rep)
    );
    Ok(())
}
