//! The E6 /dev/null rules on `devnull` results: was the file read at all
//! (its pages in the page cache after a cold-cache copy), and did the copy
//! change its access time (and under which mount atime mode)?

use crate::claims::engine::estimate::Estimate;
use crate::claims::engine::margin::Bands;
use crate::claims::engine::numbers::num;
use crate::claims::engine::outcome::{Found, Outcome};
use crate::claims::engine::select::{param_f64, Select};
use crate::claims::engine::value::{Quantity, Value};
use crate::model::{CaseResult, ClaimStatus};
use crate::scenario::common::copier_params::FILE_SIZE;
use crate::scenario::devnull::{
    ATIME_CHANGED, ATIME_MODE, BYTES_PER_S, PAGES_RESIDENT_AFTER, PAGES_RESIDENT_BEFORE,
};
use crate::scenario::MetricSpec;

/// At most this share of the file's pages resident after: not read.
const UNREAD: f64 = 0.05;
/// At least this share: read.
const READ: f64 = 0.5;

fn metric(r: &CaseResult, spec: &'static MetricSpec) -> Found<Value> {
    Quantity::Metric(spec).of(r)
}

fn file_pages(r: &CaseResult) -> Found<f64> {
    let size = FILE_SIZE.name;
    let bytes = param_f64(r, size).ok_or_else(|| format!("{} has no {size}", r.case))?;
    let page = rustix::param::page_size() as f64;
    Ok((bytes / page).ceil().max(1.0))
}

/// E6-devnull-not-read, over the copy of `of`.
pub(crate) fn not_read(results: &[CaseResult], of: &[Select]) -> Found<Outcome> {
    let r = of[0].one(results)?;
    let pages = file_pages(r)?;
    let before = metric(r, &PAGES_RESIDENT_BEFORE)?;
    if before.value > UNREAD * pages {
        return Err(format!(
            "{}: the cache was not cold ({} of {} pages resident before the copy)",
            r.case,
            num(before.value),
            num(pages)
        ));
    }
    let after = metric(r, &PAGES_RESIDENT_AFTER)?;
    let rate = metric(r, &BYTES_PER_S)
        .map(|v| format!(", 'moved' at {} GB/s", num(v.value / 1e9)))
        .unwrap_or_default();
    let figure = format!(
        "{}: {} of {} pages resident after a cold-cache copy ({}%){rate}",
        r.case,
        num(after.value),
        num(pages),
        num(after.value / pages * 100.0)
    );
    let share = after.estimate();
    let share = Estimate {
        value: share.value / pages,
        lo: share.lo / pages,
        hi: share.hi / pages,
    };
    let bands = Bands {
        edges: &[UNREAD, READ],
        verdicts: &[
            ClaimStatus::Holds,
            ClaimStatus::Inconclusive,
            ClaimStatus::DoesNotHold,
        ],
    };
    let inputs = vec![after.uncertainty("pages resident after")];
    Ok(Outcome::judged(share, &bands, inputs, figure, share_text))
}

fn share_text(share: f64) -> String {
    format!("{}%", num(share * 100.0))
}

/// E6-devnull-atime, over the copy of `of`.
pub(crate) fn atime_changed(results: &[CaseResult], of: &[Select]) -> Found<Outcome> {
    let r = of[0].one(results)?;
    let m = ATIME_CHANGED
        .of(r)
        .ok_or_else(|| format!("{} has no metric {}", r.case, ATIME_CHANGED.name))?;
    let reps = if m.reps.is_empty() {
        vec![m.value]
    } else {
        m.reps.clone()
    };
    let changed = reps.iter().filter(|v| **v >= 1.0).count();
    let mode = r.param_str(ATIME_MODE).unwrap_or_else(|| "unknown".into());
    let figure = format!(
        "{}: atime changed in {changed} of {} repetitions (mount atime mode: {mode}; \
         iolab sets the atime 48 h back before each copy)",
        r.case,
        reps.len()
    );
    let status = match changed {
        n if n == reps.len() => ClaimStatus::Holds,
        0 => ClaimStatus::DoesNotHold,
        _ => ClaimStatus::Inconclusive,
    };
    Ok(Outcome::new(status, figure))
}
