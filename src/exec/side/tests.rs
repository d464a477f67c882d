//! The side handle in both modes: results and accounting come back, a
//! failing side's error comes back, a side that hangs is killed at the
//! deadline (a thread is interrupted), the start barrier reports a side
//! that failed before it was ready, a group's watch stops the others when
//! one fails or dies, and a forked side of a group keeps only its own
//! body.

use super::*;
use crate::sys::rusage::{usage, Who};
use rustix::pipe::{pipe_with, PipeFlags};
use std::time::Duration;

const MODES: [Mode; 2] = [Mode::Threads, Mode::Processes];

/// A thread that panics holds std's backtrace lock while it prints; a
/// process forked meanwhile would hang on it if it captured a backtrace.
/// `.cargo/config.toml` turns error backtraces off (RUST_LIB_BACKTRACE=0)
/// for every test; within this file the tests that panic on purpose and
/// those whose forked sides fail also take turns.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

/// Burns at least 2 ms of CPU and sleeps once (a voluntary switch).
fn busy(_: &Ready) -> anyhow::Result<u64> {
    let start = usage(Who::Thread)?;
    let mut x = 0u64;
    while {
        let u = usage(Who::Thread)?.since(start);
        u.user_ns + u.sys_ns < 2_000_000
    } {
        x = std::hint::black_box(x.wrapping_add(1));
    }
    std::thread::sleep(Duration::from_millis(1));
    Ok(42)
}

#[test]
fn a_side_returns_its_value_and_what_its_body_cost() {
    for mode in MODES {
        let side = start(Spec::new("worker", mode), busy).unwrap();
        let (value, used) = side.finish_with_usage::<u64>(soon()).unwrap();
        assert_eq!(value, 42, "{mode:?}");
        assert!(
            used.user_ns + used.sys_ns >= 2_000_000,
            "{mode:?}: {used:?}"
        );
        assert!(used.voluntary_csw >= 1, "{mode:?}: {used:?}");
    }
}

#[test]
fn a_failing_side_s_error_comes_back() {
    let _serial = serial();
    for mode in MODES {
        let failing = start(
            Spec::new("worker", mode),
            |_: &Ready| -> anyhow::Result<()> { anyhow::bail!("no luck") },
        );
        let err = failing.unwrap().finish::<()>(soon()).unwrap_err();
        assert_eq!(format!("{err:#}"), "worker: no luck", "{mode:?}");
        let missing = start(
            Spec::new("worker", mode),
            |_: &Ready| -> anyhow::Result<()> { Err(Unsupported("no frobnicator".into()).into()) },
        );
        let err = missing.unwrap().finish::<()>(soon()).unwrap_err();
        let why = err.downcast_ref::<Unsupported>().expect("unsupported");
        assert_eq!(why.0, "no frobnicator", "{mode:?}");
        let panicking = start(
            Spec::new("worker", mode),
            |_: &Ready| -> anyhow::Result<()> { panic!("on purpose") },
        );
        let err = panicking.unwrap().finish::<()>(soon()).unwrap_err();
        assert_eq!(format!("{err:#}"), "worker: the side panicked", "{mode:?}");
    }
}

fn hang(_: &Ready) -> anyhow::Result<()> {
    let (rx, _tx) = pipe_with(PipeFlags::CLOEXEC)?;
    let mut byte = [0u8];
    rustix::io::read(&rx, &mut byte)?;
    anyhow::bail!("woke up")
}

#[test]
fn a_process_that_hangs_is_killed_and_reaped_at_the_deadline() {
    let side = start(Spec::new("sleeper", Mode::Processes), hang).unwrap();
    let Task::Process { pid, .. } = side.task else {
        panic!("a process side")
    };
    let deadline = Instant::now() + Duration::from_millis(200);
    let err = side.finish::<()>(deadline).unwrap_err();
    assert_eq!(format!("{err:#}"), "waiting for the sleeper: timed out");
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    assert_eq!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH),
        "killed and reaped"
    );
}

#[test]
fn a_thread_that_hangs_is_interrupted_out_of_its_blocking_call() {
    let deadline = Instant::now() + Duration::from_millis(200);
    let side = start(Spec::new("sleeper", Mode::Threads), hang).unwrap();
    let err = side.finish::<()>(deadline).unwrap_err();
    assert_eq!(format!("{err:#}"), "waiting for the sleeper: timed out");
    let mut side = start(Spec::new("sleeper", Mode::Threads), hang).unwrap();
    let give_up = soon();
    while !side.ended() && Instant::now() < give_up {
        side.interrupt();
        wait_any(std::slice::from_mut(&mut side), Duration::from_millis(50));
    }
    match side.take::<()>() {
        Ended::Failed(why) => assert!(why.contains("Interrupted"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn waiting_for_readiness_reports_a_side_that_failed_first() {
    let _serial = serial();
    for mode in MODES {
        let mut ready = start(Spec::new("server", mode), |r: &Ready| {
            r.signal()?;
            Ok(7u64)
        })
        .unwrap();
        let mut failed = start(
            Spec::new("client", mode),
            |_: &Ready| -> anyhow::Result<u64> { anyhow::bail!("cannot connect") },
        )
        .unwrap();
        let err = wait_ready(&mut [&mut ready, &mut failed], soon()).unwrap_err();
        assert_eq!(format!("{err:#}"), "client: cannot connect", "{mode:?}");
        wait_ready(&mut [&mut ready], soon()).unwrap();
        assert_eq!(ready.finish::<u64>(soon()).unwrap(), 7, "{mode:?}");
    }
}

/// Waits long enough to be killed, but ends (well) within a test's
/// deadline: tests run in parallel, and a process forked by one may hold
/// another's status pipe that much longer.
fn linger(_: &Ready) -> anyhow::Result<()> {
    std::thread::sleep(Duration::from_secs(5));
    Ok(())
}

/// Dies without a report, as a crash would.
fn die(_: &Ready) -> anyhow::Result<()> {
    let me = rustix::process::getpid();
    rustix::process::kill_process(me, rustix::process::Signal::KILL)?;
    anyhow::bail!("outlived SIGKILL")
}

fn gone(side: &Side) -> bool {
    let Task::Process { pid, .. } = side.task else {
        panic!("a process side")
    };
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}

#[test]
fn a_side_that_fails_or_dies_stops_its_waiting_group_naming_it() {
    let _serial = serial();
    let name = |i: usize| format!("worker {i}");
    let fail = |_: &Ready| -> anyhow::Result<()> { anyhow::bail!("no luck") };
    for (body, why) in [
        (
            fail as fn(&Ready) -> anyhow::Result<()>,
            "worker 2: no luck",
        ),
        (
            die,
            "the worker 2 ended without a report (killed or crashed)",
        ),
    ] {
        let mut sides: Vec<Side> = (0..2)
            .map(|_| start(Spec::new("worker", Mode::Processes), linger).unwrap())
            .collect();
        sides.push(start(Spec::new("worker", Mode::Processes), body).unwrap());
        let err = watch(&mut sides, 3, soon(), name).unwrap_err();
        assert_eq!(format!("{err:#}"), why);
        for side in sides.iter_mut() {
            side.take::<()>();
        }
        assert!(
            sides.iter().all(gone),
            "the waiting sides were killed and reaped"
        );
    }
}

#[test]
fn a_watch_ends_when_the_awaited_sides_have_and_times_out_otherwise() {
    let name = |i: usize| format!("worker {i}");
    let ok = |_: &Ready| -> anyhow::Result<u64> { Ok(7) };
    let mut sides = vec![
        start(Spec::new("worker", Mode::Processes), ok).unwrap(),
        start(Spec::new("worker", Mode::Processes), linger).unwrap(),
    ];
    watch(&mut sides, 1, soon(), name).unwrap();
    assert!(sides[0].ended());
    let deadline = Instant::now() + Duration::from_millis(200);
    let err = watch(&mut sides, 2, deadline, name).unwrap_err();
    assert_eq!(format!("{err:#}"), "waiting for the worker 1: timed out");
    let mut first = sides.remove(0);
    assert!(matches!(first.take::<u64>(), Ended::Done(7, _)));
}

/// The first side reads a pipe to its end; the second holds the write end
/// and drops it after writing. Were the first to keep a copy of the second
/// side's body, it would never see the end.
#[test]
fn each_side_of_a_group_keeps_only_its_own_body() {
    for mode in MODES {
        let (rx, tx) = pipe_with(PipeFlags::CLOEXEC).unwrap();
        let (mut rx, mut tx) = (Some(rx), Some(tx));
        type Body = Box<dyn FnOnce(&Ready) -> anyhow::Result<u64> + Send>;
        let reader: Body = Box::new(move |_| {
            let rx = rx.take().unwrap();
            let (mut n, mut buf) = (0, [0u8; 16]);
            loop {
                match rustix::io::read(&rx, &mut buf)? {
                    0 => return Ok(n),
                    k => n += k as u64,
                }
            }
        });
        let writer: Body = Box::new(move |_| {
            let tx = tx.take().unwrap();
            Ok(rustix::io::write(&tx, b"hi")? as u64)
        });
        let group = vec![
            (Spec::new("reader", mode), reader),
            (Spec::new("writer", mode), writer),
        ];
        let mut sides = start_all(group).unwrap().into_iter();
        let (r, w) = (sides.next().unwrap(), sides.next().unwrap());
        assert_eq!(w.finish::<u64>(soon()).unwrap(), 2, "{mode:?}");
        assert_eq!(r.finish::<u64>(soon()).unwrap(), 2, "{mode:?}");
    }
}

#[test]
fn both_returns_what_each_borrowing_thread_returned() {
    let _serial = serial();
    let shared = std::sync::atomic::AtomicU64::new(0);
    let (a, b) = both(
        [None, None],
        || shared.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 10,
        || -> u64 { panic!("on purpose") },
    )
    .unwrap();
    assert!(matches!(a, Ok(10 | 11)));
    assert!(b.is_err(), "a panic comes back as an error");
    assert_eq!(shared.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// The perf event descriptors of the calling process.
fn perf_fds() -> usize {
    crate::sys::fork::perf_event_fds().len()
}

#[test]
fn a_forked_side_holds_none_of_the_runner_s_perf_events() {
    let event = perf_event::Builder::new(perf_event::events::Software::DUMMY).build();
    let Ok(_event) = event else {
        let why = format!("{:?}", event.err());
        assert!(
            std::env::var("IOLAB_STRICT_TESTS").as_deref() != Ok("1"),
            "perf_event_open: {why}"
        );
        eprintln!("skipped: perf_event_open refused ({why})");
        return;
    };
    assert!(perf_fds() >= 1);
    let side = start(Spec::new("worker", Mode::Processes), |_| Ok(perf_fds())).unwrap();
    assert_eq!(side.finish::<usize>(soon()).unwrap(), 0);
    assert!(perf_fds() >= 1, "the runner keeps its own");
}
