//! The two sides of a case over a mechanism, each with its endpoint,
//! started through `side` as threads or processes, each pinned to its CPU.
//! When one side has finished, the other gets a grace period, then is
//! stopped (killed, or interrupted out of its blocking call), so a side
//! that waits for a message that will never come cannot hang a run.

use super::side::{self, Ended, Ready, Side, Spec};
use super::{cleanup, Mode};
use crate::measure::pin::Cpus;
use crate::mechanism::BoxEndpoint;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::{Duration, Instant};

/// After one side has finished, how long the other may take to finish too.
const GRACE: Duration = Duration::from_secs(5);
/// How often a stopped side is stopped again (a thread's interrupt can be
/// lost between two system calls).
const POLL: Duration = Duration::from_millis(100);

/// What one side's code returns: its report, or why it stopped.
pub(crate) type SideResult<R> = Result<R, String>;

pub(crate) trait SideFn<R>:
    FnOnce(BoxEndpoint) -> anyhow::Result<R> + Send + 'static
{
}
impl<R, F: FnOnce(BoxEndpoint) -> anyhow::Result<R> + Send + 'static> SideFn<R> for F {}

pub(crate) struct Pair<R, FA: SideFn<R>, FB: SideFn<R>> {
    pub(crate) mode: Mode,
    pub(crate) cpus: Cpus,
    pub(crate) timeout: Duration,
    pub(crate) ends: (BoxEndpoint, BoxEndpoint),
    pub(crate) sides: (FA, FB),
    pub(crate) _report: std::marker::PhantomData<R>,
}

type Body<R> = Box<dyn FnOnce(&Ready) -> anyhow::Result<R> + Send>;

/// Runs both sides to completion and returns what each reported.
pub(crate) fn run_pair<R, FA, FB>(pair: Pair<R, FA, FB>) -> anyhow::Result<[SideResult<R>; 2]>
where
    R: Serialize + DeserializeOwned + Send + 'static,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    let Pair {
        mode,
        cpus,
        timeout,
        ends: (a, b),
        sides: (fa, fb),
        ..
    } = pair;
    let bodies: Vec<(Spec, Body<R>)> = vec![
        (
            Spec::new("side A", mode).on(cpus[0]),
            Box::new(move |_: &Ready| fa(a)),
        ),
        (
            Spec::new("side B", mode).on(cpus[1]),
            Box::new(move |_: &Ready| fb(b)),
        ),
    ];
    let mut sides = side::start_all(bodies)?;
    collect(&mut sides, timeout);
    let mut results = sides.iter_mut().map(|s| side_result(s.take::<R>()));
    let (Some(a), Some(b)) = (results.next(), results.next()) else {
        unreachable!("two sides were started");
    };
    Ok([a, b])
}

/// Waits for both sides; past the timeout, or the grace period after the
/// first finished, or on Ctrl-C, the remaining one is stopped until it
/// gives up.
fn collect(sides: &mut [Side], timeout: Duration) {
    let mut deadline = Instant::now() + timeout;
    let give_up = deadline + GRACE * 2;
    let tick = side::tick(sides);
    while sides.iter().any(|s| !s.ended()) && Instant::now() < give_up {
        let now = Instant::now();
        if now >= deadline || cleanup::cancelled() {
            sides.iter().for_each(Side::kill);
            deadline = deadline.min(now + POLL);
        }
        let wait = deadline.saturating_duration_since(now).min(tick);
        if side::wait_any(sides, wait) > 0 {
            deadline = deadline.min(Instant::now() + GRACE);
        }
    }
}

pub(crate) fn side_result<R>(ended: Ended<R>) -> SideResult<R> {
    match ended {
        Ended::Done(value, _) => Ok(value),
        Ended::Failed(why) | Ended::Unsupported(why) => Err(why),
        Ended::NoReport => {
            Err("the side's process ended without a report (killed or crashed)".into())
        }
        Ended::Unreadable(e) => Err(format!("unreadable side report: {e}")),
        Ended::Running => Err("the side's thread did not stop when interrupted".into()),
    }
}
