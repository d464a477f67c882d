//! The probe claims of E2 and E6 (port-setup-1ms, spawn-vs-nofile,
//! one-waiter-woken, read-evicts-cache), each verdict on fabricated
//! observations, and the host's state a claim read in wake-up round trips
//! says; the helpers are the parent's.

use super::*;
use crate::model::Observation;

fn probe(check: &str, seen: &[(&str, f64)]) -> CaseResult {
    observed(
        check,
        seen.iter().map(|(n, f)| (n.to_string(), *f)).collect(),
    )
}

fn observed(check: &str, seen: Vec<(String, f64)>) -> CaseResult {
    let mut r = result("probe", &[("check", json!(check))], &[]);
    r.observations = seen
        .into_iter()
        .map(|(name, figure)| Observation {
            name,
            call: "call()".into(),
            answer: "answer".into(),
            figure: Some(figure),
            ..Observation::default()
        })
        .collect();
    r
}

fn unsupported(check: &str, why: &str) -> CaseResult {
    let mut r = probe(check, &[]);
    r.status = Status::Unsupported;
    r.reason = Some(why.into());
    r
}

/// A `limits` wake-up round trip of `ns` (per repetition).
fn wake(ns: &[f64]) -> CaseResult {
    result(
        "limits",
        &[("probe", json!("wake"))],
        &[("wake_rtt_ns", ns)],
    )
}

fn ports(ns: &[f64]) -> CaseResult {
    result(
        "probe",
        &[("check", json!("port-setup-1ms"))],
        &[("port_setup_cpu_ns", ns)],
    )
}

/// A port's setup is CPU work (fork, exec, page faults): it is judged on
/// the CPU time it consumed, in absolute terms, so the host's wake-up mode,
/// which moves the wake-up round trip tenfold, cannot move its verdict, nor
/// can the wall time a neighbour adds (only the CPU time is read).
#[test]
fn port_setup_is_judged_absolutely_whatever_the_wake_up_costs() {
    let v = |port: &[f64], rtt: f64| {
        answer("E2-port-setup-1ms", &[ports(port), wake(&[rtt, rtt, rtt])])
    };
    let two_ms = [1.9e6, 2.0e6, 2.1e6];
    let (quiet, busy) = (v(&two_ms, 12e3), v(&two_ms, 90e3));
    assert_eq!(quiet.verdict, Holds, "{}", quiet.figure);
    assert_eq!(busy.verdict, quiet.verdict, "{}", busy.figure);
    assert_eq!(busy.figure, quiet.figure);
    assert!(
        quiet
            .figure
            .starts_with("port setup 2.00 ms (1.90-2.10, 3 reps) (the claim: 333 us-3.00 ms)"),
        "{}",
        quiet.figure
    );
    assert!(
        quiet.form.contains("neither the host's wake-up mode")
            && quiet.form.contains("nor a neighbour holding the CPU"),
        "{}",
        quiet.form
    );
    // Ten times the original's start: no longer about 1 ms.
    assert_eq!(v(&[9.9e6, 10e6, 10.1e6], 12e3).verdict, DoesNotHold);
    let near = v(&[2.5e6, 3.0e6, 3.5e6], 12e3);
    assert_eq!(near.verdict, Inconclusive, "{}", near.figure);
    assert!(near.near_boundary, "{}", near.figure);
    // No wake-up round trip is needed at all.
    let alone = answer("E2-port-setup-1ms", &[ports(&[2e6, 2e6, 2e6])]);
    assert_eq!(alone.verdict, Holds, "{}", alone.figure);
    // A neighbour stretched the ports' wall time past the band (as it did
    // here: 1.94-5.11 ms); the CPU they consumed did not move.
    let crowded = result(
        "probe",
        &[("check", json!("port-setup-1ms"))],
        &[
            ("port_setup_ns", &[4.9e6, 5.0e6, 5.1e6]),
            ("port_setup_cpu_ns", &two_ms),
        ],
    );
    let crowded = answer("E2-port-setup-1ms", &[crowded]);
    assert_eq!(crowded.verdict, quiet.verdict, "{}", crowded.figure);
    assert_eq!(crowded.figure, quiet.figure);
}

/// spawn-vs-nofile's observations: each way's median and interval (ns).
fn spawns(hard: f64, low: (f64, f64, f64), high: (f64, f64, f64)) -> CaseResult {
    let mut seen = vec![("nofile_hard".to_string(), hard)];
    for (name, (median, lo, hi)) in [("loop_at_1024", low), ("loop_at_hard", high)] {
        seen.push((name.to_string(), median));
        seen.push((format!("{name}_lo"), lo));
        seen.push((format!("{name}_hi"), hi));
        seen.push((format!("{name}_runs"), 20.0));
    }
    observed("spawn-vs-nofile", seen)
}

#[test]
fn spawn_vs_nofile_weighs_the_ratio_with_its_interval() {
    let v = |r: CaseResult| answer("E2-spawn-vs-nofile", &[r]);
    let low = (1.0e6, 0.95e6, 1.05e6);
    let holds = v(spawns(20000.0, low, (3.0e6, 2.9e6, 3.1e6)));
    assert_eq!(holds.verdict, Holds, "{}", holds.figure);
    assert!(
        holds
            .figure
            .contains("up to 20000: 3.00 ms per spawn vs up to 1024: 1.00 ms: 3.00x"),
        "{}",
        holds.figure
    );
    assert!(
        holds.figure.contains("close_range(2) not measured"),
        "{}",
        holds.figure
    );
    assert!(holds.margin.is_some());
    let flat = v(spawns(20000.0, low, (1.02e6, 0.98e6, 1.06e6)));
    assert_eq!(flat.verdict, DoesNotHold, "{}", flat.figure);
    let between = v(spawns(20000.0, low, (1.35e6, 1.3e6, 1.4e6)));
    assert_eq!(between.verdict, Inconclusive, "{}", between.figure);
    let near = v(spawns(20000.0, low, (1.5e6, 0.9e6, 3.0e6)));
    assert_eq!(near.verdict, Inconclusive, "{}", near.figure);
    assert!(near.near_boundary, "{}", near.figure);
    let low_hard = v(spawns(2048.0, low, (3.0e6, 2.9e6, 3.1e6)));
    assert_eq!(low_hard.verdict, Inconclusive);
    assert!(
        low_hard.figure.contains("hard RLIMIT_NOFILE is 2048"),
        "{}",
        low_hard.figure
    );
    let missing = v(probe("spawn-vs-nofile", &[("nofile_hard", 20000.0)]));
    assert_eq!(missing.verdict, Inconclusive);
    assert!(
        missing.figure.contains("recorded no loop_at_1024"),
        "{}",
        missing.figure
    );
}

fn waiters(edge: &[f64], level: &[f64]) -> CaseResult {
    let mut seen: Vec<(&str, f64)> = edge.iter().map(|n| ("edge_wakeups", *n)).collect();
    seen.extend(level.iter().map(|n| ("level_wakeups", *n)));
    probe("one-waiter-woken", &seen)
}

#[test]
fn one_waiter_counts_the_edge_triggered_wake_ups() {
    let v = |r: CaseResult| answer("E6-one-waiter-woken", &[r]);
    let holds = v(waiters(&[1.0, 1.0, 1.0], &[4.0, 4.0, 4.0]));
    assert_eq!(holds.verdict, Holds, "{}", holds.figure);
    assert_eq!(
        holds.figure,
        "edge-triggered: 1, 1, 1 threads per event; level-triggered: 4, 4, 4"
    );
    assert_eq!(v(waiters(&[4.0, 3.0, 4.0], &[4.0])).verdict, DoesNotHold);
    let mixed = v(waiters(&[1.0, 2.0, 1.0], &[]));
    assert_eq!(mixed.verdict, Inconclusive);
    assert!(
        mixed.figure.ends_with("(the rounds disagree)"),
        "{}",
        mixed.figure
    );
    let missed = v(waiters(&[1.0, 0.0, 1.0], &[]));
    assert_eq!(missed.verdict, Inconclusive);
    assert!(
        missed.figure.contains("no thread return"),
        "{}",
        missed.figure
    );
    let none = v(waiters(&[], &[4.0]));
    assert_eq!(none.verdict, Inconclusive);
    assert!(
        none.figure.contains("recorded no edge_wakeups"),
        "{}",
        none.figure
    );
}

fn evicts(before: f64, after: f64) -> CaseResult {
    probe(
        "read-evicts-cache",
        &[
            ("a_pages", 4096.0),
            ("a_resident_before", before),
            ("a_resident_after", after),
            ("b_resident_after", 11264.0),
        ],
    )
}

#[test]
fn read_evicts_weighs_the_share_of_a_kept() {
    let v = |r: CaseResult| answer("E6-read-evicts-cache", &[r]);
    let holds = v(evicts(4096.0, 100.0));
    assert_eq!(holds.verdict, Holds, "{}", holds.figure);
    assert!(holds.figure.ends_with("(2% of A kept)"), "{}", holds.figure);
    let kept = v(evicts(4096.0, 4096.0));
    assert_eq!(kept.verdict, DoesNotHold, "{}", kept.figure);
    assert!(
        kept.figure.contains("4096 after; B: 11264 pages"),
        "{}",
        kept.figure
    );
    assert_eq!(v(evicts(4096.0, 3000.0)).verdict, Inconclusive);
    // Five trials, one of which evicted A: the median kept it.
    let mut trials = evicts(4096.0, 4096.0);
    let one_evicted = [4096.0, 0.0, 4096.0, 4096.0, 4000.0];
    for after in one_evicted {
        trials.observations.push(Observation {
            name: "a_resident_after_trial".into(),
            figure: Some(after),
            ..Observation::default()
        });
    }
    let median = v(trials.clone());
    assert_eq!(median.verdict, DoesNotHold, "{}", median.figure);
    assert!(
        median
            .figure
            .ends_with("(100% of A kept, the median of 5 trials; kept in 4)"),
        "{}",
        median.figure
    );
    // Two earlier runs of this host whose five trials each evicted A: the
    // fifteen trials' median did.
    trials.past = ["run0", "run1"]
        .map(|run| crate::model::Earlier {
            run_id: run.into(),
            observed: vec![("a_resident_after_trial".into(), 0.0); 5],
            ..Default::default()
        })
        .to_vec();
    let over_runs = v(trials);
    assert_eq!(over_runs.verdict, Holds, "{}", over_runs.figure);
    assert!(
        over_runs.figure.ends_with(
            "(0% of A kept, the median of 15 trials over 3 runs of this host; kept in 4)"
        ),
        "{}",
        over_runs.figure
    );
    let cold = v(evicts(1000.0, 1000.0));
    assert_eq!(cold.verdict, Inconclusive);
    assert!(
        cold.figure.ends_with("A was not cached to begin with"),
        "{}",
        cold.figure
    );
    let why = "needs root to create a memory cgroup";
    let v = answer(
        "E6-read-evicts-cache",
        &[unsupported("read-evicts-cache", why)],
    );
    assert_eq!(v.verdict, Inconclusive);
    assert_eq!(
        v.figure,
        "probe check=read-evicts-cache unsupported: needs root to create a memory cgroup"
    );
}

/// A claim read in wake-up round trips says which state the host was in;
/// one weighed in absolute terms does not need to.
#[test]
fn a_claim_that_follows_the_host_says_its_state() {
    use crate::model::{HostSample, HostState};
    let sample = |at_s, cross| HostSample {
        at_s,
        steal_pct: 0.0,
        others_runnable: 1.0,
        cross_cpu_wake_ns: Some(cross),
        same_cpu_wake_ns: Some(5e3),
    };
    let state = HostState {
        samples: vec![sample(0.0, 90e3), sample(5.0, 100e3)],
    };
    let summary = crate::measure::host::summary(&state).unwrap();
    let mut claims = vec![
        answer("E2-port-setup-1ms", &[ports(&[2e6, 2e6, 2e6])]),
        answer("E2-port-tens-of-us", &[]),
    ];
    crate::claims::note_the_host(&mut claims, &summary);
    assert_eq!(claims[0].host, None);
    let said = claims[1].host.as_deref().unwrap();
    assert!(said.starts_with("judged with the host busy ("), "{said}");
    assert!(said.contains("cross-CPU wake-up 95.0 us"), "{said}");
}
