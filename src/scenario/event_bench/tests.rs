//! Both dispatch modes over every poller that runs here read every byte,
//! count their waits as bench.c counts its loops, and still notice a byte
//! that never arrives; the loops run in a forked child with one thread.

use super::child::{run_forked, threads, Plan};
use super::dispatch::{make_pairs, one_loop, Bench, Damage, Dispatch, Shape};
use crate::poller::{Support, ALL};
use std::time::{Duration, Instant};

const MODES: [Dispatch; 2] = [Dispatch::Nonblocking, Dispatch::Blocking];

fn supported() -> impl Iterator<Item = &'static dyn crate::poller::Poller> {
    ALL.iter().copied().filter(|p| p.support() == Support::Yes)
}

#[test]
fn every_poller_reads_every_byte_in_both_modes() {
    let shape = Shape {
        fds: 20,
        active: 4,
        writes: 60,
    };
    for kind in ["socketpair", "pipe"] {
        let pairs = make_pairs(kind, shape.fds).unwrap();
        for (poller, dispatch) in supported().flat_map(|p| MODES.map(|d| (p, d))) {
            let b = Bench {
                poller,
                pairs: &pairs,
                shape,
                dispatch,
                stall: Duration::from_secs(1),
            };
            let t = one_loop(&b, None).unwrap();
            let what = format!("{} {dispatch:?} {kind}", poller.name());
            assert_eq!(t.mismatch, None, "{what}");
            assert_eq!((t.reads, t.fired), (64, 64), "{what}");
            // Every wait reported at least one pair, none was wasted.
            assert!(t.waits >= 1 && t.waits <= 64, "{what}: {} waits", t.waits);
        }
    }
}

#[test]
fn one_byte_in_flight_takes_one_wait_per_byte_like_bench_c_xcount() {
    let shape = Shape {
        fds: 10,
        active: 1,
        writes: 30,
    };
    let pairs = make_pairs("socketpair", shape.fds).unwrap();
    for (poller, dispatch) in supported().flat_map(|p| MODES.map(|d| (p, d))) {
        let b = Bench {
            poller,
            pairs: &pairs,
            shape,
            dispatch,
            stall: Duration::from_secs(1),
        };
        let t = one_loop(&b, None).unwrap();
        assert_eq!(
            (t.reads, t.waits),
            (31, 31),
            "{} {dispatch:?}",
            poller.name()
        );
    }
}

#[test]
fn a_lost_byte_is_reported_in_both_modes() {
    let shape = Shape {
        fds: 5,
        active: 1,
        writes: 10,
    };
    let pairs = make_pairs("socketpair", shape.fds).unwrap();
    for (poller, dispatch) in supported().flat_map(|p| MODES.map(|d| (p, d))) {
        let b = Bench {
            poller,
            pairs: &pairs,
            shape,
            dispatch,
            stall: Duration::from_millis(30),
        };
        let err = match one_loop(&b, Some(Damage::Lose)) {
            Ok(_) => panic!("{} {dispatch:?}: a lost byte went unnoticed", poller.name()),
            Err(e) => e.to_string(),
        };
        // The first byte and five callback writes arrive; the sixth write,
        // at five writes left, is the one lost.
        assert_eq!(
            err,
            "no pair became readable within 30ms with 1 of 7 bytes unread",
            "{} {dispatch:?}",
            poller.name()
        );
    }
}

#[test]
fn a_corrupt_byte_is_a_mismatch_not_an_error() {
    let shape = Shape {
        fds: 5,
        active: 1,
        writes: 10,
    };
    let pairs = make_pairs("pipe", shape.fds).unwrap();
    let b = Bench {
        poller: crate::poller::find("poll").unwrap(),
        pairs: &pairs,
        shape,
        dispatch: Dispatch::Nonblocking,
        stall: Duration::from_secs(1),
    };
    let t = one_loop(&b, Some(Damage::Corrupt)).unwrap();
    assert_eq!(
        t.mismatch.as_deref(),
        Some("pair 1 delivered byte 0x78, not 0x65")
    );
}

#[test]
fn dispatch_names() {
    assert_eq!(
        Dispatch::from_name("nonblocking").unwrap(),
        Dispatch::Nonblocking
    );
    assert_eq!(Dispatch::from_name("blocking").unwrap(), Dispatch::Blocking);
    assert!(Dispatch::from_name("sometimes").is_err());
}

fn plan(damage: Option<Damage>, stall: Duration) -> Plan<'static> {
    Plan {
        poller: crate::poller::find("poll").unwrap(),
        pair: "socketpair",
        shape: Shape {
            fds: 5,
            active: 1,
            writes: 10,
        },
        dispatch: Dispatch::Nonblocking,
        stall,
        warmup: 1,
        reps: 2,
        damage,
    }
}

#[test]
fn the_loops_run_in_a_forked_child_with_one_thread() {
    // An idle thread, as iolab's signal and progress threads: the parent
    // is multi-threaded whatever the test harness does.
    let (stop, idle) = std::sync::mpsc::channel::<()>();
    let (idled, ran) = crate::exec::side::both(
        [None, None],
        move || idle.recv(),
        move || {
            let many = threads().unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            let report = run_forked(&plan(None, Duration::from_secs(1)), deadline);
            drop(stop);
            (many, report)
        },
    )
    .unwrap();
    idled.unwrap().unwrap_err();
    let (many, report) = ran.unwrap();
    assert!(many >= 2);
    let report = report.unwrap();
    assert_ne!(report.pid, std::process::id());
    assert_eq!(report.threads, 1);
    let reads: Vec<u64> = report.loops.iter().map(|t| t.reads).collect();
    assert_eq!(reads, [11, 11]);
    assert!(report.loops.iter().all(|t| t.mismatch.is_none()));
}

#[test]
fn a_stall_in_the_child_fails_with_its_reason() {
    let deadline = Instant::now() + Duration::from_secs(30);
    let lost = plan(Some(Damage::Lose), Duration::from_millis(30));
    let err = run_forked(&lost, deadline).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dispatcher: no pair became readable within 30ms with 1 of 7 bytes unread"
    );
    let corrupt = plan(Some(Damage::Corrupt), Duration::from_secs(1));
    let report = run_forked(&corrupt, deadline).unwrap();
    // The first timed loop fails to verify; none runs after it.
    assert_eq!(report.loops.len(), 1);
    assert_eq!(
        report.loops[0].mismatch.as_deref(),
        Some("pair 1 delivered byte 0x78, not 0x65")
    );
}
