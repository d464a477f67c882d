//! `devnull`'s findings: which copies were not really moved (well beyond
//! the memcpy bandwidth measured beside them), which changed the file's atime, and which
//! never brought a cold file's pages into the page cache, i.e. never read
//! the file.

use super::{ATIME_CHANGED, ATIME_MODE, BYTES_PER_S, PAGES_RESIDENT_AFTER, SINK};
use crate::model::{CaseResult, Finding, Flag, Status};
use crate::scenario::common::copier_params::{label, CACHE};

const NOT_REALLY_MOVED: &str = "not_really_moved";
/// memcpy of 64 MiB buffers moves about three bytes of memory traffic per
/// byte copied (read, write-allocate read, write-back); a copy into
/// /dev/null that really reads each byte into a cache-hot buffer moves at
/// least one. Beyond three times memcpy's rate the bytes cannot all have
/// been touched.
const MEMCPY_FACTOR: f64 = 3.0;

/// Sets (or clears) `not_really_moved` on a `devnull` result, judged
/// against `memcpy`, the memory copy bandwidth of the moment it ran in
/// bytes/s (`limits::memcpy_now`): the host's mode moves both alike.
pub(crate) fn flag_against_memcpy(r: &mut CaseResult, memcpy: f64) {
    r.flags.retain(|f| f.name != NOT_REALLY_MOVED);
    let Some(rate) = BYTES_PER_S.value(r) else {
        return;
    };
    if r.status != Status::Ok || memcpy <= 0.0 || rate <= memcpy * MEMCPY_FACTOR {
        return;
    }
    let after = PAGES_RESIDENT_AFTER.value(r).unwrap_or(0.0);
    r.flags.push(Flag {
        name: NOT_REALLY_MOVED.into(),
        reason: format!(
            "{:.1} GB/s is {:.1}x the memcpy bandwidth measured beside it ({:.1} GB/s, 64 MiB buffers as `limits` measures them, the highest of three readings; flagged above {MEMCPY_FACTOR}x): the bytes were not all read or copied ({after:.0} pages resident after)",
            rate / 1e9,
            rate / memcpy,
            memcpy / 1e9
        ),
    });
}

pub(crate) fn findings(results: &[&CaseResult]) -> Vec<Finding> {
    let ok: Vec<&CaseResult> = results
        .iter()
        .copied()
        .filter(|r| r.status == Status::Ok)
        .collect();
    let mut lines = Vec::new();
    let flagged: Vec<String> = ok
        .iter()
        .filter(|r| r.flags.iter().any(|f| f.name == NOT_REALLY_MOVED))
        .map(|r| where_(r))
        .collect();
    if !flagged.is_empty() {
        let text = format!(
            "not really moved (over {MEMCPY_FACTOR}x memcpy): {}",
            flagged.join(", ")
        );
        let count = flagged.len() as f64;
        lines.push(Finding::new("not-really-moved", text).with("cases", count, "cases"));
    }
    if let Some(line) = atime_line(&ok) {
        lines.push(Finding::new("atime", line));
    }
    let unread: Vec<String> = ok
        .iter()
        .filter(|r| {
            r.param_str(CACHE.name).as_deref() == Some("cold")
                && PAGES_RESIDENT_AFTER.value(r) == Some(0.0)
        })
        .map(|r| where_(r))
        .collect();
    if !unread.is_empty() {
        let text = format!(
            "never read a cold file (0 pages in the page cache after): {}",
            unread.join(", ")
        );
        let count = unread.len() as f64;
        lines.push(Finding::new("never-read", text).with("cases", count, "cases"));
    }
    lines
}

/// `mmap-write -> dev-null (warm)`.
fn where_(r: &CaseResult) -> String {
    format!(
        "{} -> {} ({})",
        label(r),
        r.param_str(SINK.name).unwrap_or_default(),
        r.param_str(CACHE.name).unwrap_or_default()
    )
}

fn atime_line(ok: &[&CaseResult]) -> Option<String> {
    let first = ok.first()?;
    let (changed, kept): (Vec<&&CaseResult>, Vec<&&CaseResult>) = ok
        .iter()
        .partition(|r| ATIME_CHANGED.value(r).is_some_and(|v| v >= 0.5));
    let names = |rs: &[&&CaseResult]| {
        let mut v: Vec<String> = rs.iter().map(|r| where_(r)).collect();
        v.dedup();
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let what = match (changed.len(), kept.len()) {
        (_, 0) => format!("changed by every copy ({})", changed.len()),
        (0, _) => format!("changed by no copy ({})", kept.len()),
        _ => format!(
            "changed by {}; unchanged by {}",
            names(&changed),
            names(&kept)
        ),
    };
    Some(format!(
        "atime ({} mount, {} at {}; set 48 h back before each copy): {what}",
        first.param_str(ATIME_MODE).unwrap_or_default(),
        first.param_str("filesystem").unwrap_or_default(),
        first.param_str("mount_point").unwrap_or_default(),
    ))
}
