//! E3's kernel evidence: where the contended reader's read calls spend
//! their kernel samples (locks, the scheduler, the atime update) and,
//! with `--explain`, their time off the CPU. The verdict stays the stall
//! test's; this is a sentence beside it, or how to get one.

use crate::claims::engine::profile::{pct, stacks, usable, ATIME_PATH};
use crate::claims::engine::select::Select;
use crate::format::case_label;
use crate::model::CaseResult;
use std::collections::BTreeMap;

/// The sentence over the contended case of `of` (its first selection);
/// None when it is not there (the figure says why).
pub(crate) fn evidence(results: &[CaseResult], of: &[Select]) -> Option<String> {
    Some(reader(of[0].one(results).ok()?))
}

/// Frames that make a kernel stack the reader's: its read or receive call.
const READ_CALLS: &[&str] = &[
    "ksys_read",
    "__x64_sys_read",
    "__x64_sys_recvfrom",
    "__sys_recvfrom",
    "__x64_sys_recvmsg",
    "__sys_recvmsg",
    "___sys_recvmsg",
    "do_recvmmsg",
];

/// What a read call can wait on, by the frames its stack passes through
/// (6.18 names and older ones); a stack counts for the first that matches.
const WAITS: &[(&str, &[&str])] = &[
    (
        "locks",
        &[
            "mutex_lock",
            "__mutex_lock",
            "__mutex_lock_slowpath",
            "mutex_spin_on_owner",
            "osq_lock",
            "_raw_spin_lock",
            "_raw_spin_lock_irq",
            "_raw_spin_lock_irqsave",
            "_raw_spin_lock_bh",
            "queued_spin_lock_slowpath",
            "native_queued_spin_lock_slowpath",
            "__pv_queued_spin_lock_slowpath",
            "down_read",
            "down_write",
            "rwsem_down_read_slowpath",
            "rwsem_down_write_slowpath",
            "rwsem_optimistic_spin",
            "lock_sock_nested",
        ],
    ),
    (
        "the scheduler",
        &[
            "schedule",
            "__schedule",
            "preempt_schedule",
            "preempt_schedule_common",
            "preempt_schedule_irq",
            "finish_task_switch",
            "pipe_wait_readable",
            "prepare_to_wait_event",
            "wait_woken",
        ],
    ),
    ("the atime update", ATIME_PATH),
];

/// The reader's samples: per kind of wait, per function (the wait's frame
/// nearest the leaf), and in all.
struct Waits {
    by_kind: Vec<BTreeMap<&'static str, u64>>,
    total: u64,
}

fn waits(folded: &[String]) -> Waits {
    let mut w = Waits {
        by_kind: vec![BTreeMap::new(); WAITS.len()],
        total: 0,
    };
    for (frames, n) in stacks(folded).filter(|(f, _)| f.iter().any(|f| READ_CALLS.contains(f))) {
        w.total += n;
        let found = WAITS.iter().enumerate().find_map(|(kind, (_, names))| {
            let name = frames
                .iter()
                .rev()
                .find_map(|f| names.iter().find(|m| *m == f))?;
            Some((kind, *name))
        });
        if let Some((kind, name)) = found {
            *w.by_kind[kind].entry(name).or_default() += n;
        }
    }
    w
}

/// "in locks 27.5% (mutex_lock 24.2%, __mutex_lock 3.3%)", shares of `total`.
fn kind_text(kind: &str, names: &BTreeMap<&str, u64>, total: u64) -> String {
    let share = |n: u64| pct(n as f64 / total as f64);
    let mut top: Vec<(&&str, &u64)> = names.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1));
    let listed: Vec<String> = top
        .iter()
        .take(3)
        .map(|(name, n)| format!("{name} {}", share(**n)))
        .collect();
    match listed.is_empty() {
        true => format!("in {kind} 0.0%"),
        false => format!(
            "in {kind} {} ({})",
            share(names.values().sum()),
            listed.join(", ")
        ),
    }
}

/// What the contended reader waits on, from the contended case's profile.
fn reader(r: &CaseResult) -> String {
    let p = match usable(r) {
        Ok(p) => p,
        Err(why) => return why,
    };
    let label = case_label(&r.case);
    let w = waits(&p.folded);
    if w.total == 0 {
        return format!(
            "kernel profile of {label}: none of its {} samples is in the reader's read call",
            p.samples
        );
    }
    let mut parts: Vec<String> = WAITS
        .iter()
        .zip(&w.by_kind)
        .map(|((kind, _), names)| kind_text(kind, names, w.total))
        .collect();
    let waited: u64 = w.by_kind.iter().flat_map(BTreeMap::values).sum();
    parts.push(format!(
        "in the read itself {}",
        pct((w.total - waited) as f64 / w.total as f64)
    ));
    let on_cpu = format!(
        "kernel profile of {label}: the contended reader's read calls ({} of {} samples; the profile covers both sides, the reader's are the stacks through its read call) spend {}; on-CPU samples only",
        w.total,
        p.samples,
        parts.join(", ")
    );
    match off_cpu(r) {
        Some(off) => format!("{on_cpu}; {off}"),
        None => format!("{on_cpu}, time off the CPU is not in them (run with --explain too)"),
    }
}

/// "off CPU (scheduler trace): 1.2 us per call, 0.0% asleep in its read
/// call, 100.0% switched out elsewhere (preempted)", from the case's
/// off-CPU stacks (`--explain --profile`) of the reader.
fn off_cpu(r: &CaseResult) -> Option<String> {
    let e = r.explain.as_ref()?;
    let reader: Vec<String> = e
        .offcpu_folded
        .iter()
        .filter_map(|l| l.strip_prefix("reader;").map(str::to_string))
        .collect();
    let total: u64 = stacks(&reader).map(|(_, ns)| ns).sum();
    if total == 0 {
        return None;
    }
    let w = waits(&reader);
    let mut parts = vec![format!(
        "asleep in its read call {}",
        pct(w.total as f64 / total as f64)
    )];
    if let Some(locks) = w.by_kind.first().filter(|names| !names.is_empty()) {
        parts.push(kind_text(WAITS[0].0, locks, total));
    }
    parts.push(format!(
        "switched out elsewhere (preempted) {}",
        pct((total - w.total) as f64 / total as f64)
    ));
    Some(format!(
        "off CPU (scheduler trace): {} per call, {}",
        crate::format::human(total as f64 / e.ops.max(1) as f64, "ns"),
        parts.join(", ")
    ))
}
