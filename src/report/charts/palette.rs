//! The report's visual language: a mechanism, poller or copier has one
//! colour on every chart of every scenario, chosen by its name (not by the
//! order lines appear); the other dimensions of a case are a line style
//! (dash pattern) or a marker shape; a comparison's baseline run is lighter
//! with hollow markers.
//!
//! Colours: Okabe & Ito's colour-blind-safe set (its yellow dropped: it
//! vanishes on white), extended with Paul Tol's "muted" scheme, which is
//! also designed to stay apart for colour-blind readers, and one colour of
//! his "dark" scheme (its red, a brown no other colour here is near).

use super::marks::Marker;

/// Okabe-Ito: blue, orange, bluish green, vermillion, reddish purple, sky blue, black.
const OKABE_ITO: [&str; 7] = [
    "#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#000000",
];
/// Paul Tol's muted: indigo, wine, olive, teal, rose, purple, green, sand, cyan.
const TOL_MUTED: [&str; 9] = [
    "#332288", "#882255", "#999933", "#44aa99", "#cc6677", "#aa4499", "#117733", "#ddcc77",
    "#88ccee",
];
/// Paul Tol's dark red, a brown.
const TOL_DARK_RED: &str = "#663333";

/// The known names of src/mechanism, src/poller and src/copier. Names of
/// one family share a chart, so they differ within a family; `io-uring`
/// (a poller and a copier) is one name with one colour.
const KNOWN: [(&str, &str); 27] = [
    ("pipe", OKABE_ITO[0]),
    ("fifo", OKABE_ITO[5]),
    ("eventfd", OKABE_ITO[1]),
    ("unix-stream", OKABE_ITO[2]),
    ("unix-dgram", OKABE_ITO[4]),
    ("udp", OKABE_ITO[3]),
    ("tcp", OKABE_ITO[6]),
    ("shm", TOL_MUTED[1]),
    ("mq", TOL_MUTED[2]),
    ("unix-seqpacket", TOL_MUTED[3]),
    ("sysv-msg", TOL_MUTED[0]),
    ("futex", TOL_MUTED[4]),
    ("signal", TOL_MUTED[5]),
    ("channel", TOL_MUTED[6]),
    ("condvar", TOL_MUTED[7]),
    ("vmsplice", TOL_MUTED[8]),
    ("io-uring-msg", TOL_DARK_RED),
    ("select", OKABE_ITO[3]),
    ("poll", OKABE_ITO[1]),
    ("epoll-lt", OKABE_ITO[0]),
    ("epoll-et", OKABE_ITO[5]),
    ("io-uring", OKABE_ITO[2]),
    ("read-write", OKABE_ITO[0]),
    ("mmap-write", OKABE_ITO[1]),
    ("sendfile", OKABE_ITO[4]),
    ("splice", OKABE_ITO[3]),
    ("copy-file-range", TOL_MUTED[0]),
];

/// The parameters whose value decides a line's colour, first found wins.
pub(crate) const FAMILIES: [&str; 3] = ["mech", "poller", "copier"];

/// The colour (CSS hex) of a mechanism, poller or copier; any other name
/// gets a colour from a hash of its name, the same on every chart.
pub(crate) fn color(name: &str) -> &'static str {
    match KNOWN.iter().find(|(n, _)| *n == name) {
        Some((_, c)) => c,
        None => {
            let all: Vec<&'static str> = OKABE_ITO.iter().chain(&TOL_MUTED).copied().collect();
            all[(xxhash_rust::xxh3::xxh3_64(name.as_bytes()) % all.len() as u64) as usize]
        }
    }
}

/// The neutral grey of legend entries that stand for a style, not a colour.
pub(crate) const NEUTRAL: &str = "#555555";
/// How opaque a baseline run's lines and bars are.
pub(crate) const BASELINE_OPACITY: f64 = 0.45;

/// SVG dash patterns for the values of the dimension drawn as line style.
const DASHES: [&str; 4] = ["", "7 4", "2 3", "9 3 2 3"];
/// Placements in a fixed order, so same-cpu is solid on every chart.
const PLACEMENTS: [&str; 4] = ["same-cpu", "cross-cpu", "unpinned", "any"];

/// The dash pattern of the `index`th value of the dashed dimension, a
/// placement by its own name.
pub(crate) fn dash(value: &str, index: usize) -> &'static str {
    let i = PLACEMENTS.iter().position(|p| *p == value).unwrap_or(index);
    DASHES[i % DASHES.len()]
}

/// What the style of a dash pattern is called in the legend.
pub(crate) fn dash_name(dash: &str) -> &'static str {
    match DASHES.iter().position(|d| *d == dash) {
        Some(0) => "solid",
        Some(1) => "dashed",
        Some(2) => "dotted",
        _ => "dash-dot",
    }
}

/// A legend icon: a short line in `color` with `dash`, and `marker` on it
/// (hollow for a baseline run).
pub(crate) fn icon(color: &str, dash: &str, marker: Option<Marker>, hollow: bool) -> String {
    let dash = match dash {
        "" => String::new(),
        d => format!(" stroke-dasharray=\"{d}\""),
    };
    let mark = marker
        .map(|m| m.svg(15.0, 6.0, color, hollow))
        .unwrap_or_default();
    format!(
        "<svg width=\"30\" height=\"12\" aria-hidden=\"true\"><line x1=\"1\" y1=\"6\" x2=\"29\" \
         y2=\"6\" stroke=\"{color}\" stroke-width=\"2.5\"{dash}/>{mark}</svg>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_never_shares_a_colour() {
        let families: [&[&str]; 3] = [
            crate::mechanism::names().leak(),
            crate::poller::names().leak(),
            crate::copier::names().leak(),
        ];
        for names in families {
            let colors: std::collections::BTreeSet<&str> = names.iter().map(|n| color(n)).collect();
            assert_eq!(colors.len(), names.len(), "{names:?}");
            assert!(names.iter().all(|n| KNOWN.iter().any(|(k, _)| k == n)));
        }
    }

    #[test]
    fn unknown_names_keep_their_colour() {
        assert_eq!(color("someday-mechanism"), color("someday-mechanism"));
        assert_eq!(dash("cross-cpu", 0), "7 4");
        assert_eq!(dash("threads", 0), "");
        assert_eq!(dash_name(dash("unpinned", 0)), "dotted");
    }
}
