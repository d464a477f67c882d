//! `contention --explain`: where a call's time went, for the side whose
//! calls the test is about (the reader, or the writer when it runs alone),
//! over every repetition: each repetition's sides become one report per
//! side, and the explanation is the two-sided one, with one operation per
//! call. With `--profile` too, the off-CPU stacks say what a stalled call
//! waited on.

use super::caller::CallReport;
use super::result::{READER, WRITER};
use crate::measure::sched::SchedLog;
use crate::model::Explain;
use crate::scenario::common::explain;
use crate::scenario::common::side::SideOut;

/// The explanation of `reps`, or None when no side ran calls.
pub(crate) fn of_reps(
    reps: &[[CallReport; 2]],
    trace: &Result<SchedLog, String>,
) -> Option<Explain> {
    let [writer, reader] = [0, 1].map(|i| side_out(reps.iter().map(|rep| &rep[i])));
    let reader_ran = reps.iter().all(|[_, r]| r.active);
    let sides = match reader_ran {
        true => [(&reader, READER.role), (&writer, WRITER.role)],
        false => [(&writer, WRITER.role), (&reader, READER.role)],
    };
    let calls: u64 = sides[0].0.messages;
    let wall: u64 = sides[0].0.rep_ns.iter().sum();
    (calls > 0).then(|| explain::from_sides(sides, calls, wall as f64 / calls as f64, trace))
}

/// One side's repetitions as one report: each repetition's wall time, CPU
/// counters and thread; `messages` holds its calls.
fn side_out<'a>(reports: impl Iterator<Item = &'a CallReport>) -> SideOut {
    let mut out = SideOut::default();
    for r in reports.filter(|r| r.active) {
        out.rep_ns.push(r.wall_ns);
        out.rep_usage.push(r.usage);
        out.threads.push(r.thread.clone());
        out.messages += r.calls;
    }
    out
}
