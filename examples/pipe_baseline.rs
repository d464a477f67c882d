//! The fidelity baseline for iolab's pipe round trip: the smallest program
//! that does the same thing, two processes pinned to one CPU exchanging one
//! byte over two pipes through std's read/write (libc), timed as a whole
//! with no per-operation clock reads, histograms or checks. Compare its figure with
//! `iolab run pingpong --mech pipe --placement same-cpu` run back to back.
//!
//! cargo run --release --example pipe_baseline -- [ROUND_TRIPS] [REPS]

use iolab::measure::clock::now_ns;
use iolab::measure::pin::{choose, pin_current, Placement};
use iolab::stats::estimators::median;
use iolab::sys::fork::{exit_child, fork, Forked};
use rustix::pipe::pipe;
use std::fs::File;
use std::io::{Read, Write};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let trips: u64 = args.next().map_or(Ok(20_000), |a| a.parse())?;
    let reps: u64 = args.next().map_or(Ok(5), |a| a.parse())?;
    let [cpu, _] = choose(Placement::SameCpu).map_err(anyhow::Error::msg)?;
    let (mut to_child_rx, mut to_child_tx) = files(pipe()?);
    let (mut to_parent_rx, mut to_parent_tx) = files(pipe()?);
    let total = trips * (reps + 1);
    if let Forked::Child = fork()? {
        pin_current(cpu)?;
        let mut byte = [0u8; 1];
        for _ in 0..total {
            to_child_rx.read_exact(&mut byte)?;
            to_parent_tx.write_all(&byte)?;
        }
        exit_child(0);
    }
    pin_current(cpu)?;
    let mut byte = [b'x'; 1];
    let mut per_rep = Vec::new();
    for rep in 0..=reps {
        let start = now_ns();
        for _ in 0..trips {
            to_child_tx.write_all(&byte)?;
            to_parent_rx.read_exact(&mut byte)?;
        }
        if rep > 0 {
            per_rep.push((now_ns() - start) as f64 / trips as f64);
        }
    }
    let usage = iolab::sys::rusage::usage(iolab::sys::rusage::Who::Thread)?;
    let (lo, hi) = per_rep
        .iter()
        .fold((f64::MAX, 0f64), |(l, h), v| (l.min(*v), h.max(*v)));
    println!(
        "pipe same-cpu processes 1B: {:.0} ns per round trip (median of {reps}, spread {lo:.0}-{hi:.0})",
        median(&mut per_rep)
    );
    println!(
        "initiator context switches: {} voluntary, {} involuntary",
        usage.voluntary_csw, usage.involuntary_csw
    );
    Ok(())
}

/// Pipe ends as `File`s, so the loop calls read(2) and write(2) through
/// libc as a hand-written C or Rust program would.
fn files((rx, tx): (rustix::fd::OwnedFd, rustix::fd::OwnedFd)) -> (File, File) {
    (File::from(rx), File::from(tx))
}
