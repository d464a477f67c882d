//! E1-noatime-faster's kernel evidence: the atime update path the
//! original found with oprofile (touch_atime, atime_needs_update), in the
//! profiles of the default and the O_NOATIME case.

use crate::claims::engine::profile::{pct, through, usable, ATIME_PATH};
use crate::claims::engine::select::Select;
use crate::model::CaseResult;

/// The sentence over the results of `of` (the default case, then the
/// O_NOATIME one); None when they are not there (the figure says why).
pub(crate) fn evidence(results: &[CaseResult], of: &[Select]) -> Option<String> {
    Some(atime(of[0].one(results).ok()?, of[1].one(results).ok()?))
}

/// "kernel profile: atime update path (touch_atime/atime_needs_update) in
/// 11.0% of default samples, 0.0% with O_NOATIME ..."
fn atime(default: &CaseResult, noatime: &CaseResult) -> String {
    let (d, n) = match (usable(default), usable(noatime)) {
        (Ok(d), Ok(n)) => (d, n),
        (Err(why), _) | (_, Err(why)) => return why,
    };
    let path = |r: &CaseResult| {
        pct(r
            .profile
            .as_ref()
            .and_then(|p| p.atime_share)
            .unwrap_or_default())
    };
    format!(
        "kernel profile: atime update path (touch_atime/atime_needs_update) in {} of default samples, {} with O_NOATIME (of {} and {} samples; the whole atime/mtime update path, the writer's mtime included: {} and {})",
        pct(through(d, ATIME_PATH)),
        pct(through(n, ATIME_PATH)),
        d.samples,
        n.samples,
        path(default),
        path(noatime)
    )
}
