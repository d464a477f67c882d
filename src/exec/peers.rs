//! The two sides of a case over a mechanism, each with its endpoint,
//! started through `side` as threads or processes, each pinned to its CPU.
//! Many pairs run at once the same way. When one side has finished, its
//! partner gets a grace period, then is stopped (killed, or interrupted out of its blocking call), so a side
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
    let mut reports = run_pairs(vec![pair])?;
    Ok(reports.pop().expect("one pair was started"))
}

/// Runs every pair at once, all sides started before any is awaited, and
/// returns what each pair's two sides reported, in order. A side's partner
/// gets the grace period once it has ended; other pairs run on.
pub(crate) fn run_pairs<R, FA, FB>(
    pairs: Vec<Pair<R, FA, FB>>,
) -> anyhow::Result<Vec<[SideResult<R>; 2]>>
where
    R: Serialize + DeserializeOwned + Send + 'static,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    let timeout = pairs.iter().map(|p| p.timeout).max().unwrap_or_default();
    let mut bodies: Vec<(Spec, Body<R>)> = Vec::with_capacity(2 * pairs.len());
    for pair in pairs {
        let Pair {
            mode,
            cpus,
            ends: (a, b),
            sides: (fa, fb),
            ..
        } = pair;
        bodies.push((
            Spec::new("side A", mode).on(cpus[0]),
            Box::new(move |_: &Ready| fa(a)),
        ));
        bodies.push((
            Spec::new("side B", mode).on(cpus[1]),
            Box::new(move |_: &Ready| fb(b)),
        ));
    }
    let mut sides = side::start_all(bodies)?;
    collect(&mut sides, timeout);
    let mut pairs = Vec::with_capacity(sides.len() / 2);
    let mut results = sides.iter_mut().map(|s| side_result(s.take::<R>()));
    while let (Some(a), Some(b)) = (results.next(), results.next()) {
        pairs.push([a, b]);
    }
    Ok(pairs)
}

/// Waits for every side (sides `2i` and `2i + 1` are partners); past the
/// timeout, or the grace period after its partner finished, or on Ctrl-C,
/// a side is stopped until it gives up.
fn collect(sides: &mut [Side], timeout: Duration) {
    let start = Instant::now();
    let mut deadlines = vec![start + timeout; sides.len()];
    let give_up = start + timeout + GRACE * 2;
    let tick = side::tick(sides);
    let mut ended: Vec<bool> = sides.iter().map(Side::ended).collect();
    while ended.iter().any(|e| !e) && Instant::now() < give_up {
        let now = Instant::now();
        for (k, side) in sides.iter().enumerate() {
            if !ended[k] && (now >= deadlines[k] || cleanup::cancelled()) {
                side.kill();
                deadlines[k] = deadlines[k].min(now + POLL);
            }
        }
        let next = (0..sides.len())
            .filter(|k| !ended[*k])
            .map(|k| deadlines[k]);
        let wait = next
            .min()
            .map_or(tick, |d| d.saturating_duration_since(now));
        if side::wait_any(sides, wait.min(tick)) == 0 {
            continue;
        }
        let now = Instant::now();
        for k in 0..sides.len() {
            if sides[k].ended() && !ended[k] {
                ended[k] = true;
                deadlines[k ^ 1] = deadlines[k ^ 1].min(now + GRACE);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Pair `i`'s side A reports `10 * i`, side B `10 * i + 1`; pair 1's
    /// side B fails at once and the other pairs still report.
    fn three_pairs(mode: Mode) -> Vec<[SideResult<u64>; 2]> {
        let dir = tempfile::tempdir().unwrap();
        let pipe = crate::mechanism::find("pipe").unwrap();
        let pairs = (0..3u64)
            .map(|i| Pair {
                mode,
                cpus: [None, None],
                timeout: Duration::from_secs(20),
                ends: pipe.connect(dir.path(), &Default::default()).unwrap(),
                sides: (
                    move |_: BoxEndpoint| Ok(10 * i),
                    move |_: BoxEndpoint| match i {
                        1 => anyhow::bail!("pair 1 gave up"),
                        _ => Ok(10 * i + 1),
                    },
                ),
                _report: std::marker::PhantomData,
            })
            .collect();
        run_pairs(pairs).unwrap()
    }

    #[test]
    fn every_pair_reports_in_order_and_one_failing_stops_no_other() {
        for mode in [Mode::Threads, Mode::Processes] {
            let reports = three_pairs(mode);
            assert_eq!(reports.len(), 3);
            assert_eq!(reports[0], [Ok(0), Ok(1)]);
            assert_eq!(reports[1][0], Ok(10));
            assert!(reports[1][1]
                .as_ref()
                .unwrap_err()
                .contains("pair 1 gave up"));
            assert_eq!(reports[2], [Ok(20), Ok(21)]);
        }
    }
}
