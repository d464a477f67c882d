//! A claim whose inputs ran at different host speeds (the noise guard's
//! canary) is held back as inconclusive with the readings, unless its
//! effect is larger than the speed difference; at one speed it is decided.

use super::answer;
use super::margins::poll_at_0;
use crate::model::{ClaimStatus, Grade, Noise};

/// poll at 1.0 s and epoll at `epoll_s`, their cases' canaries at
/// `poll_ns` and `epoll_ns`.
fn at_speeds(epoll_s: f64, poll_ns: f64, epoll_ns: f64) -> crate::model::ClaimVerdict {
    let mut results = [
        poll_at_0("poll", &[1.0; 5]),
        poll_at_0("epoll-lt", &[epoll_s; 5]),
    ];
    for (r, ns) in results.iter_mut().zip([poll_ns, epoll_ns]) {
        r.noise = Some(Noise {
            grade: Grade::Clean,
            causes: Vec::new(),
            steal_pct: None,
            other_load_pct: None,
            other_runnable: None,
            freq_change_pct: None,
            throttle_events: None,
            irq_per_s: None,
            migrated: false,
            canary_ns: Some(ns),
            host_slower_pct: None,
        });
    }
    answer("E5-poll-faster-at-0", &results)
}

#[test]
fn inputs_at_one_host_speed_are_decided() {
    let v = at_speeds(1.2, 120.0, 130.0);
    assert_eq!(v.verdict, ClaimStatus::Holds, "{}", v.figure);
    assert!(!v.figure.contains("host speeds"), "{}", v.figure);
}

#[test]
fn inputs_at_host_speeds_far_apart_are_held_back_with_the_readings() {
    let v = at_speeds(1.2, 120.0, 180.0);
    assert_eq!(v.verdict, ClaimStatus::Inconclusive, "{}", v.figure);
    assert!(
        v.figure
            .contains("not decided: its inputs ran at host speeds 50% apart"),
        "{}",
        v.figure
    );
    assert!(v.figure.contains("at 120 ns") && v.figure.contains("at 180 ns"));
    assert_eq!(
        v.to_decide.as_deref(),
        Some(crate::claims::host_speed::TO_DECIDE)
    );
    assert!(v.margin.is_some(), "the margin of the figure is kept");
}

#[test]
fn an_effect_larger_than_the_speed_difference_is_decided() {
    let v = at_speeds(10.0, 120.0, 180.0);
    assert_eq!(v.verdict, ClaimStatus::Holds, "{}", v.figure);
    assert!(!v.figure.contains("host speeds"), "{}", v.figure);
}
