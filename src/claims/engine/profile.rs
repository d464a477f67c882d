//! Reading the kernel profiles `iolab run --profile` attaches to a case:
//! whether it has named kernel frames at all (and what to say when not),
//! its folded stacks, and the share of samples through a set of kernel
//! functions. A seed's kernel evidence (`claim::Evidence`) is built on
//! these; the verdict stays the timing rule's.

use crate::format::case_label;
use crate::model::{CaseResult, Profile};

const HOW: &str = "run with --profile for the kernel symbol evidence";

/// The reader's atime update, the functions E1's original found.
pub(crate) const ATIME_PATH: &[&str] = &["touch_atime", "atime_needs_update"];

/// The case's profile when it has named kernel frames, else what to say.
pub(crate) fn usable(r: &CaseResult) -> Result<&Profile, String> {
    let label = case_label(&r.case);
    let Some(p) = r.profile.as_ref() else {
        return Err(format!("no kernel profile of {label}: {HOW}"));
    };
    // Its atime share is set exactly when the kernel symbols could be read.
    let what = match (p.samples, p.atime_share) {
        (0, _) => "no samples",
        (_, None) => "no kernel symbols",
        _ => return Ok(p),
    };
    let why = p.note.as_deref().unwrap_or("no reason recorded");
    Err(format!(
        "{what} in the profile of {label} ({why}): {HOW} where perf_event_open and /proc/kallsyms permit"
    ))
}

pub(crate) fn pct(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// The folded stacks as (frames root first, samples), the frames without
/// compiler clone suffixes (`__mutex_lock.constprop.0` is `__mutex_lock`).
pub(crate) fn stacks(folded: &[String]) -> impl Iterator<Item = (Vec<&str>, u64)> {
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
pub(crate) fn through(p: &Profile, names: &[&str]) -> f64 {
    let hit: u64 = stacks(&p.folded)
        .filter(|(frames, _)| frames.iter().any(|f| names.contains(f)))
        .map(|(_, n)| n)
        .sum();
    hit as f64 / p.samples.max(1) as f64
}
