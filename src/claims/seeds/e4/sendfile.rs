//! E4's sendfile claims: must the caller advance the offset itself, and
//! does one call of the file's size send the whole file?

use crate::claims::engine::observed::{number_after, said, Observations};
use crate::claims::engine::outcome::{Found, Outcome};

pub(crate) fn sendfile_offset(o: &Observations) -> Found<Outcome> {
    let after = o.named("offset_after")?;
    let start = number_after(&after.call, "&offset = ")
        .ok_or_else(|| format!("no starting offset in '{}'", after.call))?;
    let returned = o.figure("returned")?;
    let moved = o.figure("offset_after")? - start;
    let position = o
        .named("position_after_offset_call")
        .map(|p| format!("; {}", said(p)))
        .unwrap_or_default();
    let evidence = format!("{}; returned {returned}{position}", said(after));
    Ok(match moved {
        0.0 => Outcome::agrees(
            true,
            format!("{evidence}: *offset stayed, the caller must advance it"),
        ),
        m if m == returned => Outcome::agrees(
            false,
            format!("{evidence}: the kernel advanced *offset by the return value itself"),
        ),
        m => Outcome::undecided(format!(
            "{evidence}: *offset moved by {m}, neither 0 nor the return value"
        )),
    })
}

/// Linux's cap on what one read, write or sendfile moves (MAX_RW_COUNT).
const MAX_RW_COUNT: f64 = 2_147_479_552.0;

pub(crate) fn sendfile_whole_file(o: &Observations) -> Found<Outcome> {
    let file = o.named("file")?;
    let size = o.figure("file")?;
    let one = o.named("one_call")?;
    let sent = o.figure("one_call")?;
    let evidence = format!("{}; {}", said(file), said(one));
    let short = size - sent;
    Ok(match sent {
        s if s >= size => Outcome::agrees(true, format!("{evidence}: the whole file in one call")),
        s if s == MAX_RW_COUNT => Outcome::agrees(
            false,
            format!(
                "{evidence}: {short:.0} bytes short, at Linux's cap of 0x7ffff000 bytes per call"
            ),
        ),
        s if s > 0.0 => Outcome::agrees(false, format!("{evidence}: {short:.0} bytes short")),
        _ => Outcome::undecided(format!(
            "{evidence}: nothing sent, so the call says nothing of the file's size"
        )),
    })
}
