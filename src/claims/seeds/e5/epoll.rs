//! E5's epoll claims: are events handed over through memory mapped into
//! user space, does edge-triggered epoll give one notice until the
//! descriptor is drained (and need non-blocking descriptors), and does
//! EPOLL_CTL_ADD cost the same however many descriptors are registered.

use crate::claims::engine::observed::{said, Observations};
use crate::claims::engine::outcome::{Found, Outcome};
use crate::claims::engine::select::Select;
use crate::claims::engine::sweep;
use crate::claims::engine::value::Value;

pub(crate) fn epoll_mmap(o: &Observations) -> Found<Outcome> {
    let wait = o.named("epoll_wait")?;
    let mmap = o.named("mmap")?;
    let maps = o.named("maps")?;
    let evidence = format!("{}; {}; {}", said(wait), said(mmap), said(maps));
    let mapped = mmap.error.is_none() && mmap.figure == Some(1.0);
    let in_maps = o.figure("maps")? > 0.0;
    if mapped || in_maps {
        return Ok(Outcome::agrees(
            true,
            format!("{evidence}: epoll memory is mapped"),
        ));
    }
    if o.figure("epoll_wait")? < 1.0 {
        return Ok(Outcome::undecided(format!(
            "{evidence}: no event came back, so how events are handed over was not seen"
        )));
    }
    Ok(Outcome::agrees(
        false,
        format!(
            "{evidence}: nothing of epoll is mapped; events are copied into the caller's array"
        ),
    ))
}

const KINDS: [&str; 2] = ["pipe", "unix_stream"];

/// Events after each step on `kind`: (first write, second unread, nothing new).
fn steps(o: &Observations, kind: &str) -> Found<(f64, f64, f64)> {
    Ok((
        o.figure(&format!("{kind}_first_write"))?,
        o.figure(&format!("{kind}_second_write_unread"))?,
        o.figure(&format!("{kind}_nothing_new"))?,
    ))
}

pub(crate) fn et_one_notice(o: &Observations) -> Found<Outcome> {
    let mut seen = Vec::new();
    let mut renotified = Vec::new();
    for kind in KINDS {
        let (first, second, idle) = steps(o, kind)?;
        seen.push(format!(
            "{kind} under EPOLLIN|EPOLLET, epoll_wait(timeout 0) after write(1 B): {first}; \
             after a second write(1 B), nothing read: {second}; with no write: {idle}"
        ));
        if first != 1.0 || idle != 0.0 {
            return Ok(Outcome::undecided(format!(
                "{}: a first write gave {first} events and an idle wait {idle}: not edge-triggered behaviour",
                seen.join("; ")
            )));
        }
        if second > 0.0 {
            renotified.push(kind);
        }
    }
    let blocking = o
        .named("et_on_blocking_fd")
        .map(|b| {
            format!(
                "; {} (non-blocking is the program's need, not the kernel's rule)",
                said(b)
            )
        })
        .unwrap_or_default();
    let evidence = format!("{}{blocking}", seen.join("; "));
    Ok(match renotified.is_empty() {
        true => Outcome::agrees(true, format!("{evidence}: no new notice until drained")),
        false => Outcome::agrees(
            false,
            format!(
                "{evidence}: a second arrival brings a new notice on {} although nothing was read",
                renotified.join(" and ")
            ),
        ),
    })
}

/// The sweep the figure names: EPOLL_CTL_ADD at each registered count.
const ADDS: Select = Select {
    label: "EPOLL_CTL_ADD",
    scenario: "probe",
    params: &[("check", "epoll-ctl-constant")],
    nearest: None,
};

/// A level's figure with the spread of its rounds (`add_round_at_N`),
/// or the figure alone when fewer than three rounds were recorded.
fn rounds(o: &Observations, level_name: &str, figure: f64) -> Value {
    let name = level_name.replacen("add_at_", "add_round_at_", 1);
    let each: Vec<f64> = o.every(&name).iter().filter_map(|r| r.figure).collect();
    match each.len() >= crate::claims::engine::margin::MEASURED {
        true => Value::from_metric(&crate::measure::metric::metric(each, "ns")),
        false => Value::single(figure).with_unit("ns"),
    }
}

pub(crate) fn epoll_ctl_constant(o: &Observations) -> Found<Outcome> {
    let mut points = Vec::new();
    let mut skipped = Vec::new();
    for seen in o.all.iter().filter(|s| s.name.starts_with("add_at_")) {
        let level: f64 = seen.name["add_at_".len()..]
            .parse()
            .map_err(|_| format!("{}: no registered count in its name", seen.name))?;
        match seen.figure {
            Some(ns) => points.push((level, rounds(o, &seen.name, ns))),
            None => skipped.push(format!("{level}: {}", seen.answer)),
        }
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (Some(near), Some(far)) = (points.first(), points.last()) else {
        return Err(format!("probe check={} recorded no add_at_*", o.check));
    };
    if points.len() < 2 || near.0 == far.0 {
        return Err(format!(
            "EPOLL_CTL_ADD measured at one registered count only ({})",
            skipped.join("; ")
        ));
    }
    let mut out = sweep::flat(&points, &ADDS, "registered")?;
    let call = o.named(&format!("add_at_{}", far.0))?.call.clone();
    let skipped = match skipped.is_empty() {
        true => String::new(),
        false => format!(" (not measured at {})", skipped.join("; ")),
    };
    out.figure = format!("{call}: {}{skipped}", out.figure);
    Ok(out)
}
