//! `devnull`'s findings: which copies were not really moved (faster than
//! memcpy), which changed the file's atime, and which never brought a
//! cold file's pages into the page cache, i.e. never read the file.

use super::copier_params::label;
use crate::model::{CaseResult, Status};

pub fn lines(results: &[&CaseResult]) -> Vec<String> {
    let ok: Vec<&CaseResult> = results
        .iter()
        .copied()
        .filter(|r| r.status == Status::Ok)
        .collect();
    let mut lines = Vec::new();
    let flagged: Vec<String> = ok
        .iter()
        .filter(|r| !r.flags.is_empty())
        .map(|r| where_(r))
        .collect();
    if !flagged.is_empty() {
        lines.push(format!(
            "not really moved (faster than memcpy): {}",
            flagged.join(", ")
        ));
    }
    if let Some(line) = atime_line(&ok) {
        lines.push(line);
    }
    let unread: Vec<String> = ok
        .iter()
        .filter(|r| {
            r.param_str("cache").as_deref() == Some("cold")
                && value(r, "pages_resident_after") == Some(0.0)
        })
        .map(|r| where_(r))
        .collect();
    if !unread.is_empty() {
        lines.push(format!(
            "never read a cold file (0 pages in the page cache after): {}",
            unread.join(", ")
        ));
    }
    lines
}

/// `mmap-write -> dev-null (warm)`.
fn where_(r: &CaseResult) -> String {
    format!(
        "{} -> {} ({})",
        label(r),
        r.param_str("sink").unwrap_or_default(),
        r.param_str("cache").unwrap_or_default()
    )
}

fn value(r: &CaseResult, name: &str) -> Option<f64> {
    r.metrics.get(name).map(|m| m.value)
}

fn atime_line(ok: &[&CaseResult]) -> Option<String> {
    let first = ok.first()?;
    let (changed, kept): (Vec<&&CaseResult>, Vec<&&CaseResult>) = ok
        .iter()
        .partition(|r| value(r, "atime_changed").is_some_and(|v| v >= 0.5));
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
        first.param_str("atime_mode").unwrap_or_default(),
        first.param_str("filesystem").unwrap_or_default(),
        first.param_str("mount_point").unwrap_or_default(),
    ))
}
