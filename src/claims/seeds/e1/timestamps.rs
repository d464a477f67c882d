//! E1's pipe timestamps: does a read move a pipe's access time, and does
//! a write still move its modification time with O_NOATIME set? Both are
//! decided on the anonymous pipe (the original's `pipe(2)`); the FIFO's
//! answer is cited beside it. Linux 6.15 dropped the timestamp updates of
//! anonymous pipes (FIFOs keep them), so the verdict names that change
//! when the evidence shows it.

use crate::claims::engine::observed::{said, Observations};
use crate::claims::engine::outcome::{Found, Outcome};

/// What the evidence says when only the FIFO's timestamps move.
const SINCE_6_15: &str = "the anonymous pipe's timestamps stay while the FIFO's move, as since \
     Linux 6.15, which dropped the timestamp updates of anonymous pipes (FIFOs keep them)";
const BEFORE_6_15: &str = "the anonymous pipe's timestamps move, as before Linux 6.15";

/// The FIFO's answer to cite, or why there is none.
fn fifo(o: &Observations, name: &str) -> (String, Option<f64>) {
    match o.named(name) {
        Ok(f) => (said(f), f.figure),
        Err(why) => (why, None),
    }
}

/// The note on the kernel change that explains `moved` on the anonymous
/// pipe, given whether the FIFO's timestamp moved.
fn version_note(moved: bool, fifo_moved: Option<f64>) -> &'static str {
    match (moved, fifo_moved) {
        (true, _) => BEFORE_6_15,
        (false, Some(f)) if f > 0.0 => SINCE_6_15,
        (false, _) => "neither pipe's timestamp moved",
    }
}

pub(crate) fn pipe_read_atime(o: &Observations) -> Found<Outcome> {
    let anon = o.named("anon_pipe")?;
    let moved = o.figure("anon_pipe")? > 0.0;
    let (fifo_said, fifo_moved) = fifo(o, "fifo");
    let figure = format!(
        "{}; {fifo_said}: {}",
        said(anon),
        version_note(moved, fifo_moved)
    );
    Ok(Outcome::agrees(moved, figure))
}

pub(crate) fn writer_mtime(o: &Observations) -> Found<Outcome> {
    let flag = o.named("anon_pipe_noatime")?;
    if flag.error.is_some() || flag.figure != Some(1.0) {
        return Ok(Outcome::undecided(format!(
            "O_NOATIME is not set, so the claim cannot be tried: {}",
            said(flag)
        )));
    }
    let mtime = o.named("anon_pipe_mtime")?;
    let moved = o.figure("anon_pipe_mtime")? > 0.0 || o.figure("anon_pipe_ctime")? > 0.0;
    let (fifo_said, fifo_moved) = fifo(o, "fifo_mtime");
    let figure = format!(
        "{}; {}; {fifo_said}: {}",
        said(flag),
        said(mtime),
        version_note(moved, fifo_moved)
    );
    Ok(Outcome::agrees(moved, figure))
}
