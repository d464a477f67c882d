//! E5's descriptor limits: what FD_SETSIZE is, whether select can watch
//! descriptors beyond it without a kernel rebuild, and whether epoll's
//! limit is the open-file maximum of about 100,000 per GB of memory.

use crate::claims::engine::observed::{said, Observations};
use crate::claims::engine::outcome::{Found, Outcome};
use crate::sys::select::FD_SETSIZE;

const CLAIMED_SETSIZE: f64 = 2048.0;

pub(crate) fn fd_setsize(o: &Observations) -> Found<Outcome> {
    let constant = o.named("fd_setsize")?;
    let size = o.figure("fd_setsize")?;
    let bits = o.named("fd_set_bits")?;
    let evidence = format!("{}; {}", said(constant), said(bits));
    if o.figure("fd_set_bits")? != size {
        return Ok(Outcome::undecided(format!(
            "{evidence}: the constant and the bits of an fd_set disagree"
        )));
    }
    let other = match size == 1024.0 {
        true => " (the post's other figure, 1024, is this one)",
        false => "",
    };
    Ok(Outcome::agrees(
        size == CLAIMED_SETSIZE,
        format!("{evidence}: FD_SETSIZE is {size}{other}"),
    ))
}

pub(crate) fn select_needs_rebuild(o: &Observations) -> Found<Outcome> {
    let before = o.named("nothing_written")?;
    let after = o.named("one_byte_written")?;
    let evidence = format!("{}; {}", said(before), said(after));
    let beyond = format!("a descriptor beyond FD_SETSIZE ({FD_SETSIZE})");
    if after.error.is_some() {
        return Ok(Outcome::agrees(
            true,
            format!("{evidence}: the kernel refused {beyond}"),
        ));
    }
    Ok(
        match (o.figure("nothing_written")?, o.figure("one_byte_written")?) {
            (b, a) if b == 0.0 && a == 1.0 => Outcome::agrees(
                false,
                format!(
                    "{evidence}: this kernel watched {beyond} with a bitmap the caller allocated"
                ),
            ),
            (b, a) if b == 0.0 && a == 0.0 => Outcome::agrees(
                true,
                format!("{evidence}: the write to {beyond} went unseen"),
            ),
            _ => Outcome::undecided(format!(
                "{evidence}: select reported descriptors that were not ready"
            )),
        },
    )
}

/// "About 100,000 per GB": within a factor of two of it.
const PER_GIB: (f64, f64) = (50_000.0, 200_000.0);

/// The kernel's limits on how many descriptors one process can watch.
const LIMITS: [(&str, &str); 3] = [
    ("file_max", "fs.file-max"),
    ("nr_open", "fs.nr_open"),
    ("max_user_watches", "fs.epoll.max_user_watches"),
];

pub(crate) fn fd_limit_memory(o: &Observations) -> Found<Outcome> {
    let per_gib = o.figure("file_max_per_gib")?;
    let mut limits = Vec::new();
    for (name, sysctl) in LIMITS {
        limits.push((sysctl, o.figure(name)?));
    }
    let (lowest, value) = limits
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or(("fs.file-max", 0.0));
    let about = (PER_GIB.0..=PER_GIB.1).contains(&per_gib);
    let binds = lowest == "fs.file-max";
    let all: Vec<String> = limits.iter().map(|(n, v)| format!("{n} {v:.0}")).collect();
    let nofile = o
        .named("nofile_hard")
        .map(|n| format!("; this process's hard RLIMIT_NOFILE {}", n.answer))
        .unwrap_or_default();
    let figure = format!(
        "{}: fs.file-max is {per_gib:.0} per GiB of memory ({}about 100,000); \
         of {}, {lowest} ({value:.0}) binds first{}{nofile}",
        said(o.named("file_max_per_gib")?),
        if about { "" } else { "not " },
        all.join(", "),
        if binds {
            ""
        } else {
            ", before the open-file maximum"
        },
    );
    Ok(Outcome::agrees(about && binds, figure))
}
