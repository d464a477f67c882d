//! The common shape of a scenario whose two sides talk over a mechanism:
//! choose CPUs, connect, run both sides, and turn their reports into the
//! result's status, verification, sides and CPU figures.

use crate::exec::peers::{run_pair, Pair, SideFn, SideResult};
use crate::exec::remote::client::{run_remote, Remote};
use crate::measure::pin;
use crate::mechanism::{BoxEndpoint, Mechanism};
use crate::model::{CaseResult, Status, Verified};
use crate::scenario::common::side::{cpu_usage, SideOut};
use crate::scenario::{CaseCtx, CaseSpec, Unsupported};

/// Runs `a` and `b` on the case's mechanism and placement.
pub(crate) fn run_sides<R, FA, FB>(
    case: &CaseSpec,
    ctx: &CaseCtx,
    a: FA,
    b: FB,
) -> anyhow::Result<[SideResult<R>; 2]>
where
    R: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    let (mech, placement) = mech_and_placement(case);
    let cpus = pin::choose(placement).map_err(Unsupported)?;
    let ends: (BoxEndpoint, BoxEndpoint) = mech.connect(ctx.dir, &case.values)?;
    run_pair(Pair {
        mode: case.mode,
        cpus,
        timeout: ctx.timeout,
        ends,
        sides: (a, b),
        _report: std::marker::PhantomData,
    })
}

/// The mechanism and placement every local two-sided case has.
pub(crate) fn mech_and_placement(case: &CaseSpec) -> (&'static dyn Mechanism, pin::Placement) {
    let mech = case.mech.expect("a two-sided scenario has a mechanism");
    let placement = case
        .placement
        .expect("a two-sided scenario has a placement");
    (mech, placement)
}

/// Runs `a` here, on the placement's first CPU, and `far` on the case's
/// peer (`--peer`), over the mechanism's transport.
pub(crate) fn run_remote_side<FA>(
    case: &CaseSpec,
    ctx: &CaseCtx,
    a: FA,
    far: crate::scenario::far::FarSide,
) -> anyhow::Result<[SideResult<SideOut>; 2]>
where
    FA: SideFn<SideOut>,
{
    let peer = case.peer.as_ref().expect("a remote case has a peer");
    let mech = case.mech.expect("a two-sided scenario has a mechanism");
    let transport = mech
        .transport()
        .ok_or_else(|| Unsupported(format!("{} does not cross hosts", mech.name())))?;
    let placement = case.placement.unwrap_or(pin::Placement::Unpinned);
    let cpus = pin::choose(placement).map_err(Unsupported)?;
    run_remote(Remote {
        peer,
        transport,
        role: far.role(),
        side: serde_json::to_value(far)?,
        mode: case.mode,
        cpu: cpus[0],
        timeout: ctx.timeout,
        local: move |fd| a(transport.endpoint(fd)?),
    })
}

/// Records both sides in `out`. Returns the two reports when both
/// finished and verified everything; otherwise marks `out` failed with the
/// most telling reason (a verification mismatch beats the other side's
/// "channel closed" that follows from it).
pub(crate) fn settle(
    out: &mut CaseResult,
    reports: [SideResult<SideOut>; 2],
    roles: [&str; 2],
) -> Option<[SideOut; 2]> {
    let [a, b] = reports;
    for (report, role) in [(&a, roles[0]), (&b, roles[1])] {
        if let Ok(side) = report {
            out.sides.push(side.side(role));
        }
    }
    let (messages, bytes) = [&a, &b]
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .fold((0, 0), |(m, b), s| (m + s.messages, b + s.bytes));
    let mismatch = [&a, &b]
        .iter()
        .filter_map(|r| r.as_ref().ok().and_then(|s| s.mismatch.clone()))
        .next();
    let verified = |ok| {
        Some(Verified {
            ok,
            messages,
            bytes,
        })
    };
    if let Some(reason) = mismatch {
        fail(out, format!("verification failed: {reason}"));
        out.verified = verified(false);
        return None;
    }
    match (a, b) {
        (Ok(a), Ok(b)) => {
            out.verified = verified(true);
            let total = a.total_usage().plus(b.total_usage());
            out.cpu = Some(cpu_usage(total));
            Some([a, b])
        }
        (a, b) => {
            let reason = [(a.err(), roles[0]), (b.err(), roles[1])]
                .into_iter()
                .filter_map(|(e, role)| e.map(|e| format!("{role}: {e}")))
                .collect::<Vec<_>>()
                .join("; ");
            fail(out, reason);
            out.verified = verified(false);
            None
        }
    }
}

fn fail(out: &mut CaseResult, reason: String) {
    out.status = Status::Failed;
    out.reason = Some(reason);
}

/// Per-repetition values of `f(rep)` for `reps` repetitions.
pub(crate) fn per_rep(reps: usize, f: impl Fn(usize) -> f64) -> Vec<f64> {
    (0..reps).map(f).collect()
}
