//! E4's TCP claims: do TCP_CORK and TCP_NODELAY exclude each other, does
//! TCP_NODELAY send at once whatever TCP_CORK says, does the cork merge a
//! header with the file's first segment, and how large is a segment's
//! payload over an Ethernet-sized link.

use crate::claims::engine::observed::{number_after, said, Observations};
use crate::claims::engine::outcome::{Found, Outcome};
use crate::model::Observation;

const ORDERS: [&str; 2] = ["cork_then_nodelay", "nodelay_then_cork"];

/// Whether the options set in `order` both stayed set, and what was seen.
fn kept_both(o: &Observations, order: &str) -> Found<(bool, String)> {
    let set = o.named(&format!("{order}_set"))?;
    if set.error.is_some() {
        return Ok((false, said(set)));
    }
    let cork = o.named(&format!("{order}_tcp_cork"))?;
    let nodelay = o.named(&format!("{order}_tcp_nodelay"))?;
    let both = o.figure(&cork.name)? == 1.0 && o.figure(&nodelay.name)? == 1.0;
    let seen = format!(
        "{}: TCP_CORK reads {}, TCP_NODELAY reads {}",
        set.call, cork.answer, nodelay.answer
    );
    Ok((both, seen))
}

pub(crate) fn cork_nodelay_exclusive(o: &Observations) -> Found<Outcome> {
    let mut seen = Vec::new();
    let mut kept = 0;
    for order in ORDERS {
        let (both, text) = kept_both(o, order)?;
        kept += usize::from(both);
        seen.push(text);
    }
    let evidence = seen.join("; ");
    Ok(match kept {
        2 => Outcome::agrees(
            false,
            format!(
                "{evidence}: both stay set in either order (tcp(7): combinable since Linux 2.5.71)"
            ),
        ),
        0 => Outcome::agrees(
            true,
            format!("{evidence}: one excludes the other in either order"),
        ),
        _ => Outcome::undecided(format!("{evidence}: one order keeps both, the other not")),
    })
}

/// A write counts as sent at once when the peer can read it within this...
const AT_ONCE_NS: f64 = 20e6;
/// ...and as held by the cork from this on (its timer fires at 200 ms).
const HELD_NS: f64 = 100e6;

#[derive(Clone, Copy, PartialEq)]
enum Delivery {
    AtOnce,
    Held,
    Unclear,
}

fn delivery(o: &Observation) -> Delivery {
    match o.figure {
        Some(ns) if ns < AT_ONCE_NS => Delivery::AtOnce,
        Some(ns) if ns >= HELD_NS => Delivery::Held,
        None if o.answer.starts_with("not readable") => Delivery::Held,
        _ => Delivery::Unclear,
    }
}

pub(crate) fn nodelay_beats_cork(o: &Observations) -> Found<Outcome> {
    let first = o.named("both_first_write")?;
    let second = o.named("both_second_write")?;
    let alone = o.named("cork_only")?;
    let evidence = format!(
        "{}; the second write: {}; {}",
        said(first),
        second.answer,
        said(alone)
    );
    let rule = "(at once: under 20 ms; held: 100 ms or more, the cork's timer being 200 ms)";
    if delivery(alone) != Delivery::Held {
        return Ok(Outcome::undecided(format!(
            "{evidence}: TCP_CORK alone did not hold the write, so there was nothing to beat {rule}"
        )));
    }
    let both = [delivery(first), delivery(second)];
    Ok(match both {
        _ if both.contains(&Delivery::Held) => Outcome::agrees(
            false,
            format!("{evidence}: with both set the cork still held the write {rule}"),
        ),
        [Delivery::AtOnce, Delivery::AtOnce] => Outcome::agrees(
            true,
            format!("{evidence}: with both set every write went out at once {rule}"),
        ),
        _ => Outcome::undecided(format!("{evidence}: neither at once nor held {rule}")),
    })
}

/// Segments sent and the MSS they were cut to, for `mode` over the veth link.
fn segments(o: &Observations, mode: &str) -> Found<(f64, f64, f64, String)> {
    let name = format!("veth_{mode}_data_segments");
    let seen = o.named(&name)?;
    let segs = o.figure(&name)?;
    let mss = o.figure(&format!("veth_{mode}_snd_mss"))?;
    let bytes = number_after(&seen.answer, "for ")
        .ok_or_else(|| format!("{name}: no byte count in '{}'", seen.answer))?;
    if mss <= 0.0 {
        return Err(format!("{name}: an MSS of {mss}"));
    }
    Ok((segs, (bytes / mss).ceil(), mss, said(seen)))
}

pub(crate) fn cork_merges_header(o: &Observations) -> Found<Outcome> {
    let (cork, cork_fewest, _, cork_said) = segments(o, "cork")?;
    let (nodelay, nodelay_fewest, mss, nodelay_said) = segments(o, "nodelay")?;
    let merged = cork <= cork_fewest;
    let alone = nodelay > nodelay_fewest;
    let figure = format!(
        "{cork_said}; {nodelay_said}: under TCP_CORK {cork} segments, {} the fewest the MSS allows \
         ({cork_fewest}); under TCP_NODELAY {nodelay}, {} the fewest ({nodelay_fewest} at MSS {mss})",
        if merged { "as" } else { "more than" },
        if alone { "more than" } else { "as" },
    );
    Ok(Outcome::agrees(merged && alone, figure))
}

/// Ethernet's 1500-byte MTU less 40 bytes of IP and TCP headers and 12 of
/// TCP timestamps.
const MSS: f64 = 1448.0;

pub(crate) fn mss_1448(o: &Observations) -> Found<Outcome> {
    let veth = o.named("veth_snd_mss")?;
    let mss = o.figure("veth_snd_mss")?;
    let pmtu = o
        .named("veth_pmtu")
        .map(|p| format!(" (path MTU {})", p.answer))
        .unwrap_or_default();
    let lo = o
        .named("loopback_snd_mss")
        .map(|l| format!("; over loopback {} (its MTU is 64 KiB)", l.answer))
        .unwrap_or_default();
    let figure = format!(
        "{}{pmtu}: at most {MSS} per segment over an Ethernet-sized link: {}{lo}",
        said(veth),
        if mss <= MSS { "yes" } else { "no" }
    );
    Ok(Outcome::agrees(mss <= MSS, figure))
}
