//! E5-select-needs-rebuild: does watching more than FD_SETSIZE descriptors
//! with select need a kernel rebuild? A pipe's read end is duplicated to a
//! descriptor number of several thousand (F_DUPFD: the numbers below it
//! need not be open), and select is called with a bitmap the caller
//! allocated and that nfds: nothing ready, then one byte written.

use super::Probing;
use crate::scenario::common::fd_budget::{with_raised_nofile, FdBudget};
use crate::scenario::Unsupported;
use crate::sys::select::{select_read_bits, FD_SETSIZE, WORD_BITS};
use anyhow::Context;
use rustix::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

/// Eight times FD_SETSIZE, as far as the descriptor budget allows.
const WANTED_NFDS: u64 = 8 * FD_SETSIZE as u64;

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    let budget = FdBudget::process().context("reading the descriptor budget")?;
    let nfds = WANTED_NFDS.min(budget.limit);
    if nfds <= FD_SETSIZE as u64 {
        return Err(Unsupported(format!(
            "no descriptor above FD_SETSIZE ({FD_SETSIZE}) can be opened: {}",
            budget.why
        ))
        .into());
    }
    with_raised_nofile(|| observe(p, nfds as usize))
}

fn observe(p: &mut Probing, nfds: usize) -> anyhow::Result<()> {
    let (r, w) = rustix::pipe::pipe().context("pipe")?;
    let high: OwnedFd = rustix::io::fcntl_dupfd_cloexec(&r, (nfds - 1) as i32)
        .with_context(|| format!("F_DUPFD to {}", nfds - 1))?;
    let fd = high.as_raw_fd() as usize;
    let words = nfds.div_ceil(WORD_BITS);
    let mut bits = vec![0 as libc::c_ulong; words];
    bits[fd / WORD_BITS] |= 1 << (fd % WORD_BITS);
    let call = |what: &str| {
        format!(
            "select(nfds = {nfds}, readfds = a bitmap of {} bytes with only fd {fd} set, timeout 0){what}",
            words * std::mem::size_of::<libc::c_ulong>()
        )
    };
    for (name, what) in [
        ("nothing_written", ""),
        ("one_byte_written", " after write(1 B)"),
    ] {
        if name == "one_byte_written" {
            rustix::io::write(&w, b"x").context("write")?;
        }
        let mut ready = bits.clone();
        match select_read_bits(nfds, &mut ready, Duration::ZERO) {
            Ok(n) => {
                let set = ready == bits;
                let answer = format!("{n} ready; fd {fd} {}", if set { "set" } else { "clear" });
                p.measured(name, call(what), answer, n as f64, "descriptors");
            }
            Err(e) => p.refused(name, call(what), &e),
        }
    }
    Ok(())
}
