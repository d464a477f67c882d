//! E1-writer-mtime: with O_NOATIME set on both ends, does a write still
//! move the pipe's modification and change times (the writer paying for
//! `file_update_time` whatever O_NOATIME says)? `fstat` of the write end
//! before and after a one-byte write more than a timestamp tick later, on
//! an anonymous pipe and on a FIFO.

use super::pipes::{ctime, moved, mtime, PipeKind, KINDS, PAST_A_TICK};
use super::Probing;
use anyhow::Context;
use rustix::fd::OwnedFd;
use rustix::fs::{fcntl_getfl, fcntl_setfl, fstat, OFlags};

pub(super) fn run(p: &mut Probing) -> anyhow::Result<()> {
    for kind in KINDS {
        observe(p, kind)?;
    }
    Ok(())
}

fn observe(p: &mut Probing, kind: PipeKind) -> anyhow::Result<()> {
    let (r, w) = kind.open(p.dir, "writer-mtime")?;
    noatime(p, kind, &r, &w);
    let before = fstat(&w).context("fstat")?;
    std::thread::sleep(PAST_A_TICK);
    rustix::io::write(&w, b"x").context("write")?;
    let after = fstat(&w).context("fstat")?;
    let on = kind.describe(&w);
    let gap = PAST_A_TICK.as_millis();
    for (field, key, get) in [
        ("st_mtime", "mtime", mtime as fn(&rustix::fs::Stat) -> i128),
        ("st_ctime", "ctime", ctime),
    ] {
        let (answer, delta) = moved(field, get(&before), get(&after));
        let call = format!(
            "fstat(write end) before and after write(1 B) {gap} ms later, O_NOATIME set, on {on}"
        );
        p.measured(&format!("{}_{key}", kind.key()), call, answer, delta, "ns");
    }
    Ok(())
}

/// Sets O_NOATIME on both ends and records whether F_GETFL shows the
/// kernel kept it (1) or not (0); a refusal is recorded, not fatal.
fn noatime(p: &mut Probing, kind: PipeKind, r: &OwnedFd, w: &OwnedFd) {
    let call = format!(
        "fcntl(F_SETFL, O_NOATIME) on both ends of {}, then fcntl(F_GETFL)",
        kind.describe(r)
    );
    let name = format!("{}_noatime", kind.key());
    let set = |fd: &OwnedFd| -> std::io::Result<bool> {
        fcntl_setfl(fd, fcntl_getfl(fd)? | OFlags::NOATIME)?;
        Ok(fcntl_getfl(fd)?.contains(OFlags::NOATIME))
    };
    match set(r).and_then(|kept_r| Ok(kept_r && set(w)?)) {
        Ok(true) => p.measured(&name, &call, "kept on both ends", 1.0, "flag"),
        Ok(false) => p.measured(
            &name,
            call,
            "accepted but F_GETFL does not show it",
            0.0,
            "flag",
        ),
        Err(e) => p.refused(&name, &call, &e),
    }
}
