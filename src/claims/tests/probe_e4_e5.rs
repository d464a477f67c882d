//! The probe claims on sendfile and on E5's descriptor limits and epoll,
//! on fabricated observations (helpers in `probe.rs`): each verdict both
//! ways and inconclusive, the figure citing the evidence.

use super::probe::{assert_verdict, fig, judged, refused, seen};
use crate::model::{ClaimStatus, Observation};
use ClaimStatus::{DoesNotHold, Holds, Inconclusive};

fn offset(after: f64) -> Vec<Observation> {
    let mut o = seen("offset_after", &format!("*offset = {after}"), Some(after));
    o.call = "sendfile(/dev/null, file, &offset = 1000, 4096)".into();
    vec![
        fig("returned", 4096.0),
        o,
        fig("position_after_offset_call", 0.0),
    ]
}

#[test]
fn the_caller_advances_the_offset_only_if_the_kernel_does_not() {
    let (id, check) = ("E4-sendfile-offset", "sendfile-offset");
    let v = judged(id, check, offset(1000.0));
    assert_verdict(
        &v,
        Holds,
        &["&offset = 1000, 4096) -> *offset = 1000", "*offset stayed"],
    );
    let v = judged(id, check, offset(5096.0));
    assert_verdict(
        &v,
        DoesNotHold,
        &["-> *offset = 5096", "advanced *offset by the return value"],
    );
    let v = judged(id, check, offset(2000.0));
    assert_verdict(
        &v,
        Inconclusive,
        &["moved by 1000, neither 0 nor the return value"],
    );
    let mut unreadable = offset(5096.0);
    unreadable[1].call = "sendfile(/dev/null, file, NULL, 4096)".into();
    let v = judged(id, check, unreadable);
    assert_verdict(&v, Inconclusive, &["no starting offset in"]);
}

#[test]
fn one_sendfile_sends_the_whole_file_or_stops_at_the_cap() {
    let (id, check) = ("E4-sendfile-whole-file", "sendfile-whole-file");
    let file = || fig("file", 2151677952.0);
    let v = judged(id, check, vec![file(), fig("one_call", 2151677952.0)]);
    assert_verdict(
        &v,
        Holds,
        &["call of one_call -> 2151677952", "the whole file"],
    );
    let v = judged(id, check, vec![file(), fig("one_call", 2147479552.0)]);
    assert_verdict(
        &v,
        DoesNotHold,
        &["4198400 bytes short, at Linux's cap of 0x7ffff000"],
    );
    let v = judged(id, check, vec![file(), fig("one_call", 0.0)]);
    assert_verdict(&v, Inconclusive, &["nothing sent"]);
    let v = judged(id, check, vec![file()]);
    assert_verdict(&v, Inconclusive, &["recorded no one_call"]);
}

#[test]
fn fd_setsize_is_read_from_the_c_library() {
    let (id, check) = ("E5-fd-setsize", "fd-setsize");
    let set = |size: f64, bits: f64| vec![fig("fd_setsize", size), fig("fd_set_bits", bits)];
    let v = judged(id, check, set(2048.0, 2048.0));
    assert_verdict(
        &v,
        Holds,
        &["call of fd_setsize -> 2048", "FD_SETSIZE is 2048"],
    );
    let v = judged(id, check, set(1024.0, 1024.0));
    assert_verdict(
        &v,
        DoesNotHold,
        &["FD_SETSIZE is 1024 (the post's other figure"],
    );
    let v = judged(id, check, set(1024.0, 2048.0));
    assert_verdict(&v, Inconclusive, &["disagree"]);
}

#[test]
fn select_beyond_fd_setsize_is_watched_or_refused() {
    let (id, check) = ("E5-select-needs-rebuild", "select-needs-rebuild");
    let calls = |before: f64, after: Observation| vec![fig("nothing_written", before), after];
    let v = judged(id, check, calls(0.0, fig("one_byte_written", 1.0)));
    assert_verdict(
        &v,
        DoesNotHold,
        &[
            "call of one_byte_written -> 1",
            "watched a descriptor beyond FD_SETSIZE",
        ],
    );
    let v = judged(id, check, calls(0.0, refused("one_byte_written", "EINVAL")));
    assert_verdict(&v, Holds, &["failed: EINVAL", "the kernel refused"]);
    let v = judged(id, check, calls(0.0, fig("one_byte_written", 0.0)));
    assert_verdict(&v, Holds, &["went unseen"]);
    let v = judged(id, check, calls(1.0, fig("one_byte_written", 1.0)));
    assert_verdict(&v, Inconclusive, &["not ready"]);
}

#[test]
fn epoll_memory_is_mapped_or_events_are_copied() {
    let (id, check) = ("E5-epoll-mmap", "epoll-mmap");
    let probe = |events: f64, mmap: Observation, maps: f64| {
        vec![fig("epoll_wait", events), mmap, fig("maps", maps)]
    };
    let v = judged(id, check, probe(1.0, refused("mmap", "ENODEV"), 0.0));
    assert_verdict(
        &v,
        DoesNotHold,
        &["failed: ENODEV", "copied into the caller's array"],
    );
    let v = judged(id, check, probe(1.0, fig("mmap", 1.0), 0.0));
    assert_verdict(&v, Holds, &["epoll memory is mapped"]);
    let v = judged(id, check, probe(1.0, refused("mmap", "ENODEV"), 1.0));
    assert_verdict(&v, Holds, &["call of maps -> 1"]);
    let v = judged(id, check, probe(0.0, refused("mmap", "ENODEV"), 0.0));
    assert_verdict(&v, Inconclusive, &["no event came back"]);
}

/// Events on both kinds after a write, a second unread write, no write.
fn notices(first: f64, second: f64, idle: f64) -> Vec<Observation> {
    let mut all = Vec::new();
    for kind in ["pipe", "unix_stream"] {
        all.push(fig(&format!("{kind}_first_write"), first));
        all.push(fig(&format!("{kind}_second_write_unread"), second));
        all.push(fig(&format!("{kind}_nothing_new"), idle));
    }
    all.push(seen("et_on_blocking_fd", "accepted", Some(1.0)));
    all
}

#[test]
fn edge_triggered_notices_are_counted_per_arrival() {
    let (id, check) = ("E5-et-one-notice", "et-one-notice");
    let v = judged(id, check, notices(1.0, 0.0, 0.0));
    assert_verdict(
        &v,
        Holds,
        &["nothing read: 0", "no new notice until drained"],
    );
    let v = judged(id, check, notices(1.0, 1.0, 0.0));
    assert_verdict(
        &v,
        DoesNotHold,
        &[
            "nothing read: 1",
            "call of et_on_blocking_fd -> accepted",
            "on pipe and unix_stream",
        ],
    );
    let v = judged(id, check, notices(1.0, 1.0, 1.0));
    assert_verdict(&v, Inconclusive, &["not edge-triggered behaviour"]);
    let v = judged(id, check, notices(1.0, 0.0, 0.0)[..4].to_vec());
    assert_verdict(
        &v,
        Inconclusive,
        &["recorded no unix_stream_second_write_unread"],
    );
}

fn adds(points: &[(u64, f64)]) -> Vec<Observation> {
    points
        .iter()
        .map(|(level, ns)| fig(&format!("add_at_{level}"), *ns))
        .collect()
}

#[test]
fn epoll_ctl_cost_is_weighed_with_its_margin() {
    let (id, check) = ("E5-epoll-ctl-constant", "epoll-ctl-constant");
    let flat = [(10, 1000.0), (1000, 1010.0), (10000, 1020.0)];
    let v = judged(id, check, rounds(&flat, 0.01));
    assert_verdict(
        &v,
        Holds,
        &["call of add_at_10000: EPOLL_CTL_ADD 1.02 us", "1.02x"],
    );
    assert!(v.margin.is_some_and(|m| m > 1.0), "{v:?}");
    let steep = [(10, 1000.0), (1000, 2000.0), (10000, 4000.0)];
    let v = judged(id, check, rounds(&steep, 0.01));
    assert_verdict(&v, DoesNotHold, &["4.00x"]);
    assert!(v.margin.is_some(), "{v:?}");
    // Each level measured once: no interval of its own, no verdict.
    let v = judged(id, check, adds(&steep));
    assert_verdict(
        &v,
        Inconclusive,
        &["4.00x", "no verdict from 1 repetition(s)"],
    );
    assert_eq!(v.margin, None, "{v:?}");
    let mut one = adds(&[(10, 1000.0)]);
    one.push(seen(
        "add_at_10000",
        "not measured: the budget is 2000",
        None,
    ));
    let v = judged(id, check, one);
    assert_verdict(
        &v,
        Inconclusive,
        &["one registered count only", "not measured: the budget"],
    );
}

/// Each level's summary and its rounds, `spread` either side of it.
fn rounds(points: &[(u64, f64)], spread: f64) -> Vec<Observation> {
    let mut all = adds(points);
    for (level, ns) in points {
        for k in [-1.0, -0.5, 0.0, 0.5, 1.0] {
            all.push(fig(
                &format!("add_round_at_{level}"),
                ns * (1.0 + k * spread),
            ));
        }
    }
    all
}

#[test]
fn epoll_ctl_rounds_give_the_measured_spread_its_margin_weighs() {
    let (id, check) = ("E5-epoll-ctl-constant", "epoll-ctl-constant");
    // 1.45x: within 1% rounds decided, within 10% rounds near the boundary.
    let tight = judged(id, check, rounds(&[(10, 1000.0), (10000, 1450.0)], 0.01));
    assert_verdict(&tight, Holds, &["1.45x"]);
    let wide = judged(id, check, rounds(&[(10, 1000.0), (10000, 1450.0)], 0.1));
    assert_verdict(&wide, Inconclusive, &["1.45x"]);
    assert!(wide.near_boundary, "{wide:?}");
}

fn limits(per_gib: f64, file_max: f64, nr_open: f64) -> Vec<Observation> {
    vec![
        fig("file_max_per_gib", per_gib),
        fig("file_max", file_max),
        fig("nr_open", nr_open),
        fig("max_user_watches", 5491533.0),
        fig("nofile_hard", 20000.0),
    ]
}

#[test]
fn the_open_file_maximum_must_be_about_100000_per_gib_and_bind_first() {
    let (id, check) = ("E5-fd-limit-memory", "fd-limit-memory");
    let v = judged(id, check, limits(104763.0, 838000.0, 1048576.0));
    assert_verdict(
        &v,
        Holds,
        &[
            "call of file_max_per_gib -> 104763",
            "fs.file-max (838000) binds first",
        ],
    );
    let v = judged(id, check, limits(104763.0, 2466183.0, 1048576.0));
    assert_verdict(
        &v,
        DoesNotHold,
        &["fs.nr_open (1048576) binds first, before the open-file maximum"],
    );
    let v = judged(id, check, limits(9e12, 9.2e18, 1048576.0));
    assert_verdict(&v, DoesNotHold, &["not about 100,000"]);
    let v = judged(
        id,
        check,
        limits(104763.0, 838000.0, 1048576.0)[..2].to_vec(),
    );
    assert_verdict(&v, Inconclusive, &["recorded no nr_open"]);
}
