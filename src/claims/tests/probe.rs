//! The claims the `probe` scenario settles, on fabricated observations:
//! each holds when the kernel's answer agrees, does not hold when it
//! contradicts, and is inconclusive (with the reason) when an observation
//! is missing or the answers are ambiguous. The figure cites the calls
//! and the answers that decided it.

use super::answer;
use crate::model::{CaseResult, ClaimStatus, ClaimVerdict, Observation, Status};
use serde_json::json;
use ClaimStatus::{DoesNotHold, Holds, Inconclusive};

/// An observation answered `answer`, with `figure` when given.
pub(super) fn seen(name: &str, answer: &str, figure: Option<f64>) -> Observation {
    Observation {
        name: name.into(),
        call: format!("call of {name}"),
        answer: answer.into(),
        figure,
        ..Observation::default()
    }
}

/// An observation whose figure is `figure`, answered with it.
pub(super) fn fig(name: &str, figure: f64) -> Observation {
    seen(name, &figure.to_string(), Some(figure))
}

/// A call the kernel refused with `errno`.
pub(super) fn refused(name: &str, errno: &str) -> Observation {
    Observation {
        error: Some(errno.into()),
        ..seen(name, &format!("failed: {errno}"), None)
    }
}

/// Claim `id` answered over an ok probe result of `check`.
pub(super) fn judged(id: &str, check: &str, observations: Vec<Observation>) -> ClaimVerdict {
    let params = [("check".to_string(), json!(check))].into_iter().collect();
    let mut r = CaseResult::new("probe", &format!("probe/{check}"), params);
    r.status = Status::Ok;
    r.observations = observations;
    answer(id, &[r])
}

/// Asserts the verdict and that the figure contains each of `cited`.
pub(super) fn assert_verdict(v: &ClaimVerdict, status: ClaimStatus, cited: &[&str]) {
    assert_eq!(v.verdict, status, "{}: {}", v.id, v.figure);
    for text in cited {
        assert!(
            v.figure.contains(text),
            "{}: no '{text}' in {}",
            v.id,
            v.figure
        );
    }
}

#[test]
fn an_unsupported_check_makes_its_claim_inconclusive_with_the_reason() {
    let params = [("check".to_string(), json!("mss-1448"))]
        .into_iter()
        .collect();
    let mut r = CaseResult::new("probe", "probe/mss-1448", params);
    r.status = Status::Unsupported;
    r.reason = Some("the veth link needs root".into());
    r.observations = vec![fig("loopback_snd_mss", 32741.0)];
    let v = answer("E4-mss-1448", &[r]);
    assert_verdict(&v, Inconclusive, &["unsupported: the veth link needs root"]);
    let none = answer("E4-mss-1448", &[]);
    assert_verdict(&none, Inconclusive, &["no result probe check=mss-1448"]);
}

fn atime(anon: f64, fifo: f64) -> Vec<Observation> {
    vec![fig("anon_pipe", anon), fig("fifo", fifo)]
}

#[test]
fn pipe_read_atime_follows_the_anonymous_pipe_and_names_the_kernel_change() {
    let id = "E1-pipe-read-atime";
    let v = judged(id, "pipe-read-atime", atime(25e6, 25e6));
    assert_verdict(
        &v,
        Holds,
        &["call of anon_pipe -> 25000000", "before Linux 6.15"],
    );
    let v = judged(id, "pipe-read-atime", atime(0.0, 25e6));
    assert_verdict(
        &v,
        DoesNotHold,
        &["call of fifo -> 25000000", "since Linux 6.15"],
    );
    let v = judged(id, "pipe-read-atime", atime(0.0, 0.0));
    assert_verdict(&v, DoesNotHold, &["neither pipe's timestamp moved"]);
    let v = judged(id, "pipe-read-atime", vec![fig("fifo", 1.0)]);
    assert_verdict(&v, Inconclusive, &["recorded no anon_pipe"]);
}

fn mtime(flag: Observation, anon: f64, fifo: f64) -> Vec<Observation> {
    vec![
        flag,
        fig("anon_pipe_mtime", anon),
        fig("anon_pipe_ctime", anon),
        fig("fifo_mtime", fifo),
    ]
}

#[test]
fn writer_mtime_needs_o_noatime_kept() {
    let id = "E1-writer-mtime";
    let kept = || seen("anon_pipe_noatime", "kept on both ends", Some(1.0));
    let v = judged(id, "writer-mtime", mtime(kept(), 24e6, 24e6));
    assert_verdict(
        &v,
        Holds,
        &["kept on both ends", "call of anon_pipe_mtime -> 24000000"],
    );
    let v = judged(id, "writer-mtime", mtime(kept(), 0.0, 24e6));
    assert_verdict(&v, DoesNotHold, &["since Linux 6.15"]);
    let v = judged(
        id,
        "writer-mtime",
        mtime(refused("anon_pipe_noatime", "EPERM"), 0.0, 0.0),
    );
    assert_verdict(&v, Inconclusive, &["O_NOATIME is not set", "failed: EPERM"]);
    let v = judged(id, "writer-mtime", vec![kept()]);
    assert_verdict(&v, Inconclusive, &["recorded no anon_pipe_mtime"]);
}

fn pipe(page: f64, filled: f64, size: f64) -> Vec<Observation> {
    vec![
        fig("page_size", page),
        fig("fill_until_eagain", filled),
        fig("getpipe_sz", size),
        fig("setpipe_sz_min", page),
        fig("setpipe_sz_max", 1048576.0),
    ]
}

#[test]
fn a_pipe_is_sixteen_pages_of_this_systems_size() {
    let id = "E3-pipe-16-pages";
    let v = judged(id, "pipe-16-pages", pipe(4096.0, 65536.0, 65536.0));
    assert_verdict(
        &v,
        Holds,
        &["16 pages of 4096 bytes", "allows 4096-1048576 bytes"],
    );
    // 64 KiB pages (arm64): the same 64 KiB is one page.
    let v = judged(id, "pipe-16-pages", pipe(65536.0, 65536.0, 65536.0));
    assert_verdict(&v, DoesNotHold, &["1 pages of 65536 bytes"]);
    let v = judged(id, "pipe-16-pages", pipe(4096.0, 61440.0, 65536.0));
    assert_verdict(&v, Inconclusive, &["the fill and F_GETPIPE_SZ disagree"]);
    let v = judged(id, "pipe-16-pages", vec![fig("page_size", 4096.0)]);
    assert_verdict(&v, Inconclusive, &["recorded no fill_until_eagain"]);
}

/// One order's observations: both accepted and read back, or refused.
fn order(name: &str, cork: f64, nodelay: f64) -> Vec<Observation> {
    vec![
        seen(&format!("{name}_set"), "both accepted", None),
        fig(&format!("{name}_tcp_cork"), cork),
        fig(&format!("{name}_tcp_nodelay"), nodelay),
    ]
}

#[test]
fn cork_and_nodelay_exclude_each_other_only_when_the_kernel_says_so() {
    let id = "E4-cork-nodelay-exclusive";
    let check = "cork-nodelay-exclusive";
    let both = [
        order("cork_then_nodelay", 1.0, 1.0),
        order("nodelay_then_cork", 1.0, 1.0),
    ];
    let v = judged(id, check, both.concat());
    assert_verdict(
        &v,
        DoesNotHold,
        &["TCP_CORK reads 1, TCP_NODELAY reads 1", "2.5.71"],
    );
    let one = [
        order("cork_then_nodelay", 1.0, 0.0),
        order("nodelay_then_cork", 0.0, 1.0),
    ];
    let v = judged(id, check, one.concat());
    assert_verdict(&v, Holds, &["one excludes the other in either order"]);
    let mut refused_one = order("cork_then_nodelay", 1.0, 1.0);
    refused_one.push(refused("nodelay_then_cork_set", "EINVAL"));
    let v = judged(id, check, refused_one);
    assert_verdict(
        &v,
        Inconclusive,
        &["failed: EINVAL", "one order keeps both"],
    );
    let v = judged(id, check, order("cork_then_nodelay", 1.0, 1.0));
    assert_verdict(&v, Inconclusive, &["recorded no nodelay_then_cork_set"]);
}

fn writes(first: Observation, second: Observation, alone: Observation) -> Vec<Observation> {
    vec![first, second, alone]
}

fn after(name: &str, ns: f64) -> Observation {
    seen(name, &format!("readable after {ns} ns"), Some(ns))
}

#[test]
fn nodelay_beats_cork_when_both_writes_go_out_at_once() {
    let (id, check) = ("E4-nodelay-beats-cork", "nodelay-beats-cork");
    let held = || seen("cork_only", "not readable within 600 ms", None);
    let v = judged(
        id,
        check,
        writes(
            after("both_first_write", 5e4),
            after("both_second_write", 6e4),
            held(),
        ),
    );
    assert_verdict(
        &v,
        Holds,
        &["every write went out at once", "not readable within 600 ms"],
    );
    let v = judged(
        id,
        check,
        writes(
            after("both_first_write", 2.04e8),
            after("both_second_write", 5e4),
            held(),
        ),
    );
    assert_verdict(
        &v,
        DoesNotHold,
        &["readable after 204000000 ns", "cork still held"],
    );
    let v = judged(
        id,
        check,
        writes(
            after("both_first_write", 5e4),
            after("both_second_write", 5e7),
            held(),
        ),
    );
    assert_verdict(&v, Inconclusive, &["neither at once nor held"]);
    let v = judged(
        id,
        check,
        writes(
            after("both_first_write", 5e4),
            after("both_second_write", 5e4),
            after("cork_only", 5e4),
        ),
    );
    assert_verdict(&v, Inconclusive, &["TCP_CORK alone did not hold the write"]);
}

fn segments(cork: f64, nodelay: f64) -> Vec<Observation> {
    let segs = |mode: &str, n: f64| {
        let answer = format!("{n} data segments for 65736 bytes, snd_mss 1448");
        seen(&format!("veth_{mode}_data_segments"), &answer, Some(n))
    };
    vec![
        segs("cork", cork),
        fig("veth_cork_snd_mss", 1448.0),
        segs("nodelay", nodelay),
        fig("veth_nodelay_snd_mss", 1448.0),
    ]
}

#[test]
fn the_cork_merges_the_header_when_it_sends_the_fewest_segments() {
    let (id, check) = ("E4-cork-merges-header", "cork-merges-header");
    let v = judged(id, check, segments(46.0, 47.0));
    assert_verdict(
        &v,
        Holds,
        &["-> 46 data segments", "as the fewest the MSS allows (46)"],
    );
    let v = judged(id, check, segments(47.0, 47.0));
    assert_verdict(
        &v,
        DoesNotHold,
        &["under TCP_CORK 47 segments, more than the fewest"],
    );
    let v = judged(id, check, segments(46.0, 46.0));
    assert_verdict(&v, DoesNotHold, &["under TCP_NODELAY 46, as the fewest"]);
    let loopback = vec![
        fig("cork_data_segments", 3.0),
        fig("nodelay_data_segments", 3.0),
    ];
    let v = judged(id, check, loopback);
    assert_verdict(&v, Inconclusive, &["recorded no veth_cork_data_segments"]);
}

#[test]
fn the_mss_is_read_over_the_ethernet_sized_link() {
    let (id, check) = ("E4-mss-1448", "mss-1448");
    let link = |mss: f64| {
        vec![
            fig("loopback_snd_mss", 32741.0),
            fig("veth_snd_mss", mss),
            fig("veth_pmtu", 1500.0),
        ]
    };
    let v = judged(id, check, link(1448.0));
    assert_verdict(
        &v,
        Holds,
        &[
            "call of veth_snd_mss -> 1448 (path MTU 1500)",
            "over loopback 32741",
        ],
    );
    // Without TCP timestamps the payload is 1460.
    let v = judged(id, check, link(1460.0));
    assert_verdict(&v, DoesNotHold, &["-> 1460"]);
    let v = judged(id, check, vec![fig("loopback_snd_mss", 32741.0)]);
    assert_verdict(&v, Inconclusive, &["recorded no veth_snd_mss"]);
}

#[test]
fn each_rendered_verdict_names_the_kernel_it_was_measured_on() {
    let v = judged("E4-mss-1448", "mss-1448", vec![fig("veth_snd_mss", 1448.0)]);
    let mut out = Vec::new();
    crate::claims::render::write(&mut out, &[v.clone(), v], "6.18.44-fc-v595").unwrap();
    let text = String::from_utf8(out).unwrap();
    let kernel = "measured on kernel 6.18.44-fc-v595";
    assert_eq!(text.matches(kernel).count(), 2, "{text}");
    assert!(
        text.lines().last().unwrap().trim_start() == kernel,
        "{text}"
    );
    assert!(text.contains("form: the MSS the kernel chose"), "{text}");
}
