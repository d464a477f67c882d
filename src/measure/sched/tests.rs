use super::format::parse;
use super::self_test::trace_woken_thread;
use super::tracer::{decode, Decoder, Points, Stacks};
use super::*;
use std::time::Duration;

const T: i32 = 42;
const OTHER: i32 = 7;
const SLEEPING: i64 = 1;
const RUNNABLE: i64 = 0;
/// TASK_REPORT_MAX: a preempted task's "R+".
const PREEMPTED: i64 = 0x100;

fn out(time: u64, cpu: u32, prev_state: i64) -> Event {
    Event::Switch {
        time,
        cpu,
        prev_pid: T,
        prev_state,
        next_pid: OTHER,
        stack: 1,
    }
}

fn into(time: u64, cpu: u32) -> Event {
    Event::Switch {
        time,
        cpu,
        prev_pid: OTHER,
        prev_state: RUNNABLE,
        next_pid: T,
        stack: 0,
    }
}

fn wake(time: u64) -> Event {
    Event::Waking { time, pid: T }
}

/// Three sleeps of 100 ns with 10 ns wake-up latency, starting at `at`.
fn sleeps(at: u64) -> Vec<Event> {
    (0..3)
        .flat_map(|i| {
            let t = at + i * 1000;
            [out(t, 0, SLEEPING), wake(t + 100), into(t + 110, 0)]
        })
        .collect()
}

#[test]
fn sleeps_are_blocks_and_wakeups() {
    let log = SchedLog::new(sleeps(1000), 0);
    let s = log.of_thread(T, &[(0, 10_000)]);
    assert_eq!(
        (s.blocks, s.wakeups, s.preemptions, s.migrations),
        (3, 3, 0, 0)
    );
    assert_eq!((s.blocked_ns, s.wakeup_ns, s.runqueue_ns), (300, 30, 0));
    assert_eq!((s.blocked.count(), s.wakeup.count()), (3, 3));
    assert_eq!(s.untraced_switch_ins, 0);
    // All of it off CPU since switching out with chain 1.
    assert_eq!(s.offcpu.get(&1), Some(&330));
}

#[test]
fn other_threads_and_time_outside_the_windows_do_not_count() {
    let mut events = sleeps(1000);
    events.extend(sleeps(100_000));
    events.push(Event::Waking { time: 1050, pid: 9 });
    let log = SchedLog::new(events, 0);
    let s = log.of_thread(T, &[(500, 4000)]);
    assert_eq!((s.blocks, s.wakeups, s.blocked_ns), (3, 3, 300));
    // A sleep that began before the window counts from the window's start.
    let s = log.of_thread(T, &[(1050, 1500)]);
    assert_eq!(
        (s.blocks, s.wakeups, s.blocked_ns, s.wakeup_ns),
        (0, 1, 50, 10)
    );
    // Two windows with a gap: the gap's part of an interval is left out.
    let s = log.of_thread(T, &[(1000, 1050), (1080, 1110)]);
    assert_eq!((s.blocked_ns, s.wakeup_ns, s.wakeups), (70, 10, 1));
}

#[test]
fn preemption_is_run_queue_wait_and_a_cpu_change_is_a_migration() {
    let events = vec![
        out(100, 0, RUNNABLE),
        into(150, 1),
        out(200, 1, PREEMPTED),
        into(260, 1),
    ];
    let s = SchedLog::new(events, 0).of_thread(T, &[(0, 1000)]);
    assert_eq!((s.preemptions, s.blocks, s.wakeups), (2, 0, 0));
    assert_eq!(
        (s.runqueue_ns, s.runqueue.count(), s.migrations),
        (110, 2, 1)
    );
}

#[test]
fn a_switch_out_with_no_switch_in_seen_is_untraced_and_not_guessed() {
    // The second sleep's switch-in (out of an idle CPU) was not traced.
    let events = vec![
        out(100, 1, SLEEPING),
        wake(200),
        out(400, 1, SLEEPING),
        wake(500),
        into(520, 1),
    ];
    let s = SchedLog::new(events, 0).of_thread(T, &[(0, 1000)]);
    assert_eq!((s.blocks, s.wakeups, s.untraced_switch_ins), (2, 2, 1));
    assert_eq!((s.blocked_ns, s.wakeup_ns), (200, 20));
}

/// A sample body as the kernel writes it for TID|TIME|CPU|PERIOD|RAW.
fn sample(time: u64, cpu: u32, raw: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(9u32.to_le_bytes());
    b.extend(9u32.to_le_bytes());
    b.extend(time.to_le_bytes());
    b.extend(cpu.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.extend((raw.len() as u32).to_le_bytes());
    b.extend(raw);
    b
}

#[test]
fn decodes_a_sched_switch_sample_at_the_format_files_offsets() {
    let tp = parse(include_str!("fixtures/sched_switch.format")).unwrap();
    let f = |n| tp.field(n).unwrap();
    let decoder = Decoder::Switch {
        prev_pid: f("prev_pid"),
        prev_state: f("prev_state"),
        next_pid: f("next_pid"),
        callchain: false,
    };
    let mut raw = vec![0u8; 68];
    raw[24..28].copy_from_slice(&1234i32.to_le_bytes());
    raw[32..40].copy_from_slice(&SLEEPING.to_le_bytes());
    raw[56..60].copy_from_slice(&5678i32.to_le_bytes());
    let event = decode(&sample(99, 1, &raw), decoder, &mut Stacks::default()).unwrap();
    let want = Event::Switch {
        time: 99,
        cpu: 1,
        prev_pid: 1234,
        prev_state: 1,
        next_pid: 5678,
        stack: 0,
    };
    assert_eq!(event, want);
    let short = decode(&sample(99, 1, &raw[..40]), decoder, &mut Stacks::default());
    assert_eq!(short, None, "short raw record");
    // With call chains: the chain sits between the period and the raw part,
    // context markers are dropped, and equal chains share one id.
    let chained = decoder.with_callchain(true);
    let mut body = sample(99, 1, &raw);
    let chain: Vec<u8> = [3u64, (-128i64) as u64, 0xffff_1000, 0xffff_2000]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    body.splice(32..32, chain);
    let mut stacks = Stacks::default();
    for _ in 0..2 {
        let Some(Event::Switch { stack, .. }) = decode(&body, chained, &mut stacks) else {
            panic!("not decoded");
        };
        assert_eq!(stack, 1);
    }
    let mut log = SchedLog::new(Vec::new(), 0);
    log.stacks = stacks.into_list();
    assert_eq!(log.stack(1), [0xffff_1000, 0xffff_2000]);
    assert!(log.stack(0).is_empty() && log.stack(2).is_empty());
}

/// Root only (tracefs is mounted for the read when it is not).
fn points_or_skip() -> Option<Points> {
    if !rustix::process::geteuid().is_root() {
        assert!(
            std::env::var("IOLAB_STRICT_TESTS").as_deref() != Ok("1"),
            "needs root"
        );
        eprintln!("skipped: scheduler tracing needs root");
        return None;
    }
    Some(Points::load().expect("tracepoints load"))
}

#[test]
fn a_thread_woken_n_times_shows_n_blocks_and_n_wakeups() {
    let Some(points) = points_or_skip() else {
        return;
    };
    // Wake-ups 0.3 ms apart: the receiver blocks before each, even on a
    // loaded host, and all fall in the tracer's first window.
    let (tid, window, log) = trace_woken_thread(&points, 4, Duration::from_micros(300)).unwrap();
    assert_eq!(log.traced.as_ref().map(Vec::len), Some(1), "one window");
    assert!(!log.events.is_empty());
    let s = log.of_thread(tid, &[window]);
    // A channel's receive may wait more than once per message.
    assert!(s.blocks >= 4, "lost {}: {s:?}", log.lost);
    assert_eq!(s.wakeups, s.blocks, "{s:?}");
    assert!(s.blocked_ns > 0);
    assert_eq!(s.blocked.count(), s.blocks);
    // Switch-ins out of idle may go untraced (see the module's header).
    assert!(
        s.wakeup.count() + s.untraced_switch_ins >= s.blocks - 1,
        "{s:?}"
    );
}
