//! The kernel's side of a claim, from the profiles `iolab run --profile`
//! attached to the cases the claim compared: E1 names the atime update path
//! (touch_atime/atime_needs_update) with and without O_NOATIME, E3 says
//! where the contended reader's read calls spend their kernel samples
//! (locks, the scheduler, the atime update). The verdict stays the timing
//! rule's; this is a sentence beside it, or how to get one.

use super::pick::Select;
use super::stall;
use crate::format::case_label;
use crate::model::{CaseResult, Profile};
use crate::scenario::pipe_atime::atime_share;
use std::collections::BTreeMap;

/// What a claim's kernel evidence reads.
#[derive(Debug, Clone, Copy)]
pub enum Evidence {
    None,
    /// The atime path in the profiles of the `default` and `noatime` cases.
    Atime {
        default: Select,
        noatime: Select,
    },
    /// What the reader of `mech`'s contended case (`test=both`) waits on.
    ReaderWaits {
        mech: &'static str,
    },
}

const HOW: &str = "run with --profile for the kernel symbol evidence";

/// The reader's atime update, the functions E1's original found.
const ATIME: &[&str] = &["touch_atime", "atime_needs_update"];

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
    ("the atime update", ATIME),
];

impl Evidence {
    /// The sentence over `results`; None when the claim has no kernel
    /// evidence or its cases are not there (its figure says why).
    pub(crate) fn of(&self, results: &[CaseResult]) -> Option<String> {
        match *self {
            Evidence::None => None,
            Evidence::Atime { default, noatime } => Some(atime(
                default.one(results).ok()?,
                noatime.one(results).ok()?,
            )),
            Evidence::ReaderWaits { mech } => Some(reader(stall::contended(results, mech).ok()?)),
        }
    }
}

/// The case's profile when it has named kernel frames, else what to say.
fn usable(r: &CaseResult) -> Result<&Profile, String> {
    let label = case_label(&r.case);
    let Some(p) = r.profile.as_ref() else {
        return Err(format!("no kernel profile of {label}: {HOW}"));
    };
    // atime_share is set exactly when the kernel symbols could be read.
    let what = match (p.samples, atime_share(r)) {
        (0, _) => "no samples",
        (_, None) => "no kernel symbols",
        _ => return Ok(p),
    };
    let why = p.note.as_deref().unwrap_or("no reason recorded");
    Err(format!(
        "{what} in the profile of {label} ({why}): {HOW} where perf_event_open and /proc/kallsyms permit"
    ))
}

fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// "kernel profile: atime update path (touch_atime/atime_needs_update) in
/// 11.0% of default samples, 0.0% with O_NOATIME ..."
fn atime(default: &CaseResult, noatime: &CaseResult) -> String {
    let (d, n) = match (usable(default), usable(noatime)) {
        (Ok(d), Ok(n)) => (d, n),
        (Err(why), _) | (_, Err(why)) => return why,
    };
    let path = |r: &CaseResult| pct(atime_share(r).unwrap_or_default());
    format!(
        "kernel profile: atime update path (touch_atime/atime_needs_update) in {} of default samples, {} with O_NOATIME (of {} and {} samples; the whole atime/mtime update path, the writer's mtime included: {} and {})",
        pct(through(d, ATIME)),
        pct(through(n, ATIME)),
        d.samples,
        n.samples,
        path(default),
        path(noatime)
    )
}

/// The folded stacks as (frames root first, samples), the frames without
/// compiler clone suffixes (`__mutex_lock.constprop.0` is `__mutex_lock`).
fn stacks(folded: &[String]) -> impl Iterator<Item = (Vec<&str>, u64)> {
    folded.iter().filter_map(|line| {
        let (stack, n) = line.rsplit_once(' ')?;
        let frames = stack
            .split(';')
            .map(|f| f.split('.').next().unwrap_or(f))
            .collect();
        Some((frames, n.parse().ok()?))
    })
}

/// The share of all samples whose stack passes through one of `names`.
fn through(p: &Profile, names: &[&str]) -> f64 {
    let hit: u64 = stacks(&p.folded)
        .filter(|(frames, _)| frames.iter().any(|f| names.contains(f)))
        .map(|(_, n)| n)
        .sum();
    hit as f64 / p.samples.max(1) as f64
}

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
