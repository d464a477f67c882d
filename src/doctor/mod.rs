//! `iolab doctor`: the lab turned on the user's own running program. It
//! finds the descriptors the program uses for IPC (`channels`), watches
//! what its threads do over them with a tracer that is on only a small
//! share of the time (`watch`, over `measure::watch`), says what each
//! channel costs (`diagnosis`, `render`), measures the alternatives of the
//! channels worth it (`alternatives`) and tries placement on the program
//! (`placement`). The command's pipeline (progress, output, exit status)
//! is `app::doctor`.

mod alternatives;
mod calls;
mod ceiling;
mod channels;
mod diagnosis;
mod objects;
mod pattern;
mod placement;
mod plan;
mod procs;
mod render;
mod syscalls;
mod watch;

pub(crate) use alternatives::{measure as measure_alternatives, Alternatives, Pattern};
pub(crate) use diagnosis::{diagnose, Diagnosis};
pub(crate) use plan::{check, Plan};
pub(crate) use render::render;
pub(crate) use watch::{watch, Ending, Target};

use crate::error::UsageError;
use crate::exec::program::Watched;

/// What `plan` watches: its `--pid` (with the processes it starts when
/// `children`), or its command, started now.
pub(crate) fn target(plan: &Plan, children: bool) -> Result<Target, UsageError> {
    Ok(match plan.pid {
        Some(pid) => Target::Pid { pid, children },
        None => Target::Command(
            Watched::start(&plan.command)
                .map_err(|e| UsageError::new(format!("cannot start {:?}: {e}", plan.command[0])))?,
        ),
    })
}

/// Below this ceiling no transport would help enough to be worth
/// measuring: the alternatives are not run. Their rounds resolve about
/// 10% on a busy host (an A/A comparison's 99.5% interval spans
/// 0.92-1.06), so a smaller gain could not be shown by them.
const WORTH_MEASURING: f64 = 1.10;

/// A channel whose alternatives are worth measuring.
pub(crate) struct ToMeasure<'a> {
    /// "nginx (pid 12), fd 5, tcp ..." as observed (unescaped).
    pub(crate) label: String,
    pub(crate) pattern: Pattern,
    pub(crate) channel: &'a diagnosis::ChannelCost,
}

/// The channels of `d` whose alternatives `plan` has measured: the
/// busiest (by the program's time in their calls) that moved bytes, have
/// an iolab mechanism and a ceiling worth measuring, `--alternatives` of
/// them.
pub(crate) fn worth_measuring<'a>(d: &'a Diagnosis, plan: &Plan) -> Vec<ToMeasure<'a>> {
    d.channels
        .iter()
        .filter(|c| {
            c.ceiling
                .as_ref()
                .is_some_and(|x| x.at_most >= WORTH_MEASURING)
        })
        .filter_map(|c| {
            Some(ToMeasure {
                label: format!("{} (pid {}), {}", c.process, c.channel.pid, c.label),
                pattern: alternatives::pattern_of(c, &d.channels)?,
                channel: c,
            })
        })
        .take(plan.alternatives)
        .collect()
}

/// The command run again each way, once it ran to its end; why not
/// otherwise.
pub(crate) fn try_placement(
    plan: &Plan,
    d: &Diagnosis,
) -> Result<placement::PlacementTrial, String> {
    if d.ending != Ending::Exited {
        return Err("the command did not run to its end while watched".into());
    }
    // A re-run far longer than the watched one is stopped.
    let limit = std::time::Duration::from_secs_f64((d.watched_s * 3.0).max(10.0));
    placement::try_placement(&plan.command, plan.placement_pairs, limit)
        .map_err(|e| format!("{e:#}"))
}
