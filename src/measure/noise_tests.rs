use super::*;
use crate::measure::canary::Fastest;
use std::path::PathBuf;

const INTERRUPTS: &str = "           CPU0       CPU1
  1:        100         10   IO-APIC   1-edge      i8042
 24:         50          5   PCI-MSI   virtio0
LOC:       9000       9000   Local timer interrupts
RES:        777        777   Rescheduling interrupts
CAL:         30         30   Function call interrupts
";

fn fixture(which: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/noise")
        .join(which)
}

fn stat(cpu0: &str, cpu1: &str, running: u64) -> String {
    format!("cpu  1 1 1 1 1 1 1 1\ncpu0 {cpu0}\ncpu1 {cpu1}\nctxt 5\nprocs_running {running}\n")
}

fn noise() -> Noise {
    Noise {
        grade: Grade::Clean,
        causes: Vec::new(),
        steal_pct: Some(0.0),
        other_load_pct: Some(0.0),
        other_runnable: Some(0),
        freq_change_pct: None,
        throttle_events: None,
        irq_per_s: Some(0.0),
        migrated: false,
        canary_ns: None,
        host_slower_pct: None,
        wake_canary_ns: None,
        host_wake_slower_pct: None,
    }
}

/// The judgement of a case between `before` and `after` on a machine of
/// two online CPUs at 100 Hz.
fn judged(before: &Reading, after: &Reading, sides_cpus: &[Vec<usize>], pinned: bool) -> Noise {
    judge(&Seen {
        before,
        after,
        sides_cpus,
        pinned,
        online: 2,
        hz: 100,
        fastest_canary: Default::default(),
    })
}

fn graded(change: impl FnOnce(&mut Noise)) -> (Grade, Vec<String>) {
    let mut n = noise();
    change(&mut n);
    grade(&mut n, 2);
    (n.grade, n.causes)
}

#[test]
fn parses_per_cpu_ticks_running_tasks_and_device_interrupts() {
    let r = Reading::parse(
        &stat("10 2 3 100 4 5 6 7 0 0", "1 0 1 50 0 0 0 0", 3),
        INTERRUPTS,
        Path::new("/nonexistent"),
        42,
    );
    assert_eq!(r.ticks, vec![(26, 7, 137), (2, 0, 52)]);
    assert_eq!(r.procs_running, 3);
    assert_eq!(r.irqs, vec![150, 15]);
    assert_eq!(r.freq_khz, vec![None, None]);
    assert_eq!(r.throttles, vec![None, None]);
    assert_eq!(r.own_ns, 42);
}

#[test]
fn frequency_and_throttling_come_from_the_sysfs_tree() {
    let text = stat("0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0", 1);
    let before = Reading::parse(&text, INTERRUPTS, &fixture("before/"), 0);
    let after = Reading::parse(&text, INTERRUPTS, &fixture("after/"), 0);
    assert_eq!(before.freq_khz, vec![Some(2_400_000), Some(2_400_000)]);
    assert_eq!(before.throttles, vec![Some(3), Some(7)]);
    let n = judged(&before, &after, &[vec![0], vec![1]], true);
    assert_eq!(n.freq_change_pct, Some(25.0));
    assert_eq!(n.throttle_events, Some(2));
    assert_eq!(n.grade, Grade::Disturbed);
    assert_eq!(n.causes, ["thermal throttling", "frequency change 25%"]);
}

/// Over 100 ticks of CPU 0: 40 busy of which iolab spent 10 (100 ms at
/// 100 Hz), 5 stolen; CPU 1 is busy but not a side's until one migrates.
#[test]
fn steal_and_other_load_are_shares_of_the_sides_cpus() {
    let mut before = Reading::parse(
        &stat("0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0", 1),
        "",
        Path::new("/nonexistent"),
        0,
    );
    let mut after = Reading::parse(
        &stat("30 0 10 55 0 0 0 5", "100 0 0 0 0 0 0 0", 2),
        "",
        Path::new("/nonexistent"),
        100_000_000,
    );
    (before.at_ns, after.at_ns) = (0, 1_000_000_000);
    let n = judged(&before, &after, &[vec![0], vec![0]], true);
    assert_eq!(n.steal_pct, Some(5.0));
    assert_eq!(n.other_load_pct, Some(30.0));
    assert_eq!(n.other_runnable, Some(1));
    assert!(!n.migrated);
    assert_eq!(n.label(), "disturbed: other load 30%, steal 5%");
    let moved = [vec![0], vec![0, 1]];
    assert!(!judged(&before, &after, &moved, false).migrated);
    let pinned = judged(&before, &after, &moved, true);
    assert!(pinned.migrated);
    assert_eq!(pinned.other_load_pct, Some(65.0));
    assert_eq!(pinned.causes[0], "migrated");
}

#[test]
fn too_few_ticks_are_not_judged() {
    let before = Reading::parse(&stat("0 0 0 0", "0 0 0 0", 1), "", Path::new("/x"), 0);
    let after = Reading::parse(&stat("9 0 0 0", "0 0 0 0", 1), "", Path::new("/x"), 0);
    let n = judged(&before, &after, &[vec![0]], true);
    assert_eq!((n.steal_pct, n.other_load_pct), (None, None));
    assert_eq!(n.grade, Grade::Clean);
    assert_eq!(n.label(), "clean");
}

#[test]
fn thresholds_grade_each_figure() {
    assert_eq!(graded(|_| {}).0, Grade::Clean);
    assert_eq!(graded(|n| n.steal_pct = Some(1.9)).0, Grade::Clean);
    assert_eq!(graded(|n| n.steal_pct = Some(2.0)).0, Grade::Noisy);
    assert_eq!(graded(|n| n.steal_pct = Some(10.0)).0, Grade::Disturbed);
    assert_eq!(graded(|n| n.other_load_pct = Some(9.9)).0, Grade::Clean);
    assert_eq!(graded(|n| n.other_load_pct = Some(10.0)).0, Grade::Noisy);
    assert_eq!(
        graded(|n| n.other_load_pct = Some(30.0)).0,
        Grade::Disturbed
    );
    assert_eq!(graded(|n| n.freq_change_pct = Some(4.9)).0, Grade::Clean);
    assert_eq!(graded(|n| n.freq_change_pct = Some(5.0)).0, Grade::Noisy);
    assert_eq!(
        graded(|n| n.freq_change_pct = Some(15.0)).0,
        Grade::Disturbed
    );
    assert_eq!(graded(|n| n.irq_per_s = Some(999.0)).0, Grade::Clean);
    assert_eq!(graded(|n| n.irq_per_s = Some(1_000.0)).0, Grade::Noisy);
    assert_eq!(graded(|n| n.irq_per_s = Some(10_000.0)).0, Grade::Disturbed);
    assert_eq!(graded(|n| n.other_runnable = Some(1)).0, Grade::Clean);
    assert_eq!(
        graded(|n| n.other_runnable = Some(2)),
        (Grade::Noisy, vec!["2 other runnable tasks".to_string()])
    );
    assert_eq!(graded(|n| n.throttle_events = Some(0)).0, Grade::Clean);
    assert_eq!(graded(|n| n.throttle_events = Some(1)).0, Grade::Disturbed);
    assert_eq!(graded(|n| n.migrated = true).0, Grade::Disturbed);
}

#[test]
fn the_worst_finding_grades_and_leads_the_label() {
    let mut n = noise();
    n.steal_pct = Some(8.0);
    n.migrated = true;
    grade(&mut n, 2);
    assert_eq!(n.label(), "disturbed: migrated, steal 8%");
    let mut n = noise();
    n.steal_pct = Some(8.0);
    grade(&mut n, 2);
    assert_eq!(n.label(), "noisy: steal 8%");
}

#[test]
fn a_host_slower_than_its_fastest_grades_the_case() {
    assert_eq!(graded(|n| n.host_slower_pct = Some(9.9)).0, Grade::Clean);
    assert_eq!(
        graded(|n| n.host_slower_pct = Some(18.4)),
        (
            Grade::Noisy,
            vec!["host 18% slower than its fastest".to_string()]
        )
    );
    assert_eq!(
        graded(|n| n.host_slower_pct = Some(50.0)).0,
        Grade::Disturbed
    );
}

#[test]
fn the_slower_canary_reading_of_a_case_is_weighed_against_the_fastest() {
    let mut before = Reading::parse(&stat("0 0 0 0", "0 0 0 0", 1), "", Path::new("/x"), 0);
    let mut after = before.clone();
    (before.canary_ns, after.canary_ns) = (100.0, 125.0);
    let seen = |syscall_ns| {
        let fastest = Fastest {
            syscall_ns,
            wake_ns: None,
        };
        judge_canaries(&before, &after, fastest)
    };
    let n = seen(Some(100.0));
    assert_eq!((n.canary_ns, n.host_slower_pct), (Some(125.0), Some(25.0)));
    assert_eq!(n.label(), "noisy: host 25% slower than its fastest");
    let unknown = seen(None);
    assert_eq!(unknown.host_slower_pct, None);
    assert_eq!(unknown.grade, Grade::Clean);
}

#[test]
fn a_slow_wake_up_canary_grades_the_case_even_when_system_calls_ran_fast() {
    let mut before = Reading::parse(&stat("0 0 0 0", "0 0 0 0", 1), "", Path::new("/x"), 0);
    let mut after = before.clone();
    (before.canary_ns, after.canary_ns) = (100.0, 100.0);
    (before.wake_ns, after.wake_ns) = (6000.0, 4000.0);
    let seen = |wake_ns| {
        let fastest = Fastest {
            syscall_ns: Some(100.0),
            wake_ns,
        };
        judge_canaries(&before, &after, fastest)
    };
    let n = seen(Some(4000.0));
    assert_eq!(n.host_slower_pct, Some(0.0));
    assert_eq!(
        (n.wake_canary_ns, n.host_wake_slower_pct),
        (Some(6000.0), Some(50.0))
    );
    assert_eq!(
        n.label(),
        "disturbed: host wake-ups 50% slower than its fastest"
    );
    let near = seen(Some(5600.0));
    assert_eq!(near.label(), "clean");
    let unknown = seen(None);
    assert_eq!(
        (unknown.host_wake_slower_pct, unknown.grade),
        (None, Grade::Clean)
    );
}

/// The judgement of a case on CPU 0 whose readings differ only in their
/// canaries, against `fastest`.
fn judge_canaries(before: &Reading, after: &Reading, fastest: Fastest) -> Noise {
    judge(&Seen {
        before,
        after,
        sides_cpus: &[vec![0]],
        pinned: true,
        online: 2,
        hz: 100,
        fastest_canary: fastest,
    })
}
