//! E1-noatime-faster's judge (and the pipe-atime findings'). O_NOATIME can
//! only make pipe traffic faster where a read moves the pipe's access time.
//! Where this run's `probe` saw that a read does not move the pipe's atime
//! (Linux 6.15 dropped the anonymous pipe's), there is nothing to skip: the
//! claim does not hold whatever the timing's noise says, and the figure
//! says why before it gives the timing. Elsewhere the timing decides:
//! `noatime` measurably faster than `default`.

use crate::claims::engine::observed::{is_check, said};
use crate::claims::engine::outcome::{Found, Outcome};
use crate::claims::engine::rule::Rule;
use crate::claims::engine::select::Select;
use crate::claims::engine::value::Quantity;
use crate::model::{CaseResult, ClaimStatus, Status};
use crate::scenario::pipe_atime;

/// The probe check whose `anon_pipe` observation says whether a read
/// moved the anonymous pipe's atime.
const CHECK: &str = "pipe-read-atime";

/// The timing rule over `of`: the O_NOATIME case, then the default one.
fn timing(of: &[Select]) -> Rule {
    Rule::Faster {
        q: Quantity::Metric(&pipe_atime::NS_PER_MSG),
        fast: of[0],
        slow: of[1],
        factor: 1.0,
        fails_below: 1.0,
    }
}

/// The probe's observation of the kind of pipe `select` reads: the
/// anonymous pipe's or the FIFO's.
fn observation_of(select: &Select) -> Option<&'static str> {
    let pipe = select.params.iter().find(|(key, _)| *key == "pipe")?;
    match pipe.1 {
        "anon" => Some("anon_pipe"),
        "fifo" => Some("fifo"),
        _ => None,
    }
}

/// What the probe said of that pipe, when a read left its atime where it
/// was.
fn atime_stays(results: &[CaseResult], select: &Select) -> Option<String> {
    let name = observation_of(select)?;
    let probe = results
        .iter()
        .find(|r| is_check(r, CHECK) && r.status == Status::Ok)?;
    let seen = probe.observations.iter().find(|o| o.name == name)?;
    (seen.figure == Some(0.0)).then(|| said(seen))
}

/// The verdict over the O_NOATIME and default cases of `of`.
pub(crate) fn noatime_faster(results: &[CaseResult], of: &[Select]) -> Found<Outcome> {
    let timed = timing(of).try_decide(results);
    let Some(stays) = atime_stays(results, &of[0]) else {
        return timed;
    };
    let timing = match &timed {
        Ok(o) => o.figure.clone(),
        Err(why) => why.clone(),
    };
    Ok(Outcome::new(
        ClaimStatus::DoesNotHold,
        format!(
            "a read leaves the pipe's atime where it was on this kernel ({stays}, {CHECK}): \
             O_NOATIME has nothing to skip; timing: {timing}"
        ),
    ))
}

/// How the judge decides, for the claim's text.
pub(crate) const FORM: &str = "the kernel's answer first: where this run's probe saw that a \
     read does not move the anonymous pipe's atime, O_NOATIME has nothing to skip and the claim \
     does not hold; elsewhere a ratio of two results of the same run: it reads the same on a \
     faster or slower machine";
