//! Many pairs of sides at once (`pairs=N`) for the two-sided scenarios:
//! N independent pairs over N connections of the case's mechanism, every
//! side started before any is awaited, placed round-robin over the allowed
//! CPUs; their reports settled pair by pair (a failing pair names itself),
//! and the per-pair rates summed, compared (Jain's fairness index) and kept
//! per pair. One pair is exactly the two-sided run of `two_sided`.

use super::fd_budget::{with_raised_nofile, FdBudget};
use super::side::{cpu_usage, SideOut};
use super::two_sided::{self, run_sides};
use crate::exec::peers::{run_pairs, Pair, SideFn, SideResult};
use crate::measure::pin::{self, allowed_cpus, Cpus, Placement};
use crate::model::{CaseResult, Finding, PairFigures, Status, Verified};
use crate::scenario::{CaseCtx, CaseSpec, Fault, MetricSpec, ParamKind, ParamSpec, Unsupported};
use crate::stats::estimators::jain;
use crate::sys::rusage::Usage;
use anyhow::Context;

pub(crate) const PAIRS: ParamSpec = ParamSpec {
    name: "pairs",
    kind: ParamKind::Count,
    default: "1",
    about: "independent pairs of sides at once, each over its own connection, placed \
            round-robin over the allowed CPUs (a list sweeps)",
    in_name: true,
};

pub(crate) const FAIRNESS: MetricSpec = MetricSpec {
    name: "fairness",
    unit: "index",
    about: "with pairs > 1, Jain's fairness index of the pairs' rates (1: all equal, 1/N: one pair got everything)",
};

/// Descriptors one pair may hold in this process: up to four for the
/// connection (two pipes or FIFOs) and two status pipes per side.
const FDS_PER_PAIR: u64 = 8;
/// Descriptors beside the pairs' (the store, the run's files, slack).
const FDS_FIXED: u64 = 32;

/// The case's number of pairs (1 for a scenario without the parameter).
pub(crate) fn count(case: &CaseSpec) -> u64 {
    PAIRS.int(&case.values).unwrap_or(1)
}

/// The test-only fault goes to the last pair only, so a test can see that
/// the failing pair is the one named.
pub(crate) fn fault_for(fault: Option<Fault>, pair: u64, pairs: u64) -> Option<Fault> {
    fault.filter(|_| pair + 1 == pairs)
}

/// Runs the sides `a(i)` and `b(i)` of `n` pairs at once, on the case's
/// mechanism and placement; each pair's two reports, in order.
pub(crate) fn run<R, FA, FB>(
    case: &CaseSpec,
    ctx: &CaseCtx,
    n: u64,
    a: impl Fn(u64) -> FA,
    b: impl Fn(u64) -> FB,
) -> anyhow::Result<Vec<[SideResult<R>; 2]>>
where
    R: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    if n == 1 {
        return Ok(vec![run_sides(case, ctx, a(0), b(0))?]);
    }
    FdBudget::process()?.check("iolab process", PAIRS.name, n, FDS_FIXED, FDS_PER_PAIR)?;
    with_raised_nofile(|| connect_and_run(case, ctx, n, a, b))
}

fn connect_and_run<R, FA, FB>(
    case: &CaseSpec,
    ctx: &CaseCtx,
    n: u64,
    a: impl Fn(u64) -> FA,
    b: impl Fn(u64) -> FB,
) -> anyhow::Result<Vec<[SideResult<R>; 2]>>
where
    R: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
    FA: SideFn<R>,
    FB: SideFn<R>,
{
    let (mech, placement) = two_sided::mech_and_placement(case);
    let cpus = round_robin(placement, n, &allowed_cpus()).map_err(Unsupported)?;
    let mut pairs = Vec::with_capacity(n as usize);
    for (i, cpus) in (0..n).zip(cpus) {
        // Each connection gets its own directory, so named ones (FIFOs,
        // sockets) do not meet; the case's directory is removed after it.
        let dir = ctx.dir.join(format!("pair-{i}"));
        std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
        pairs.push(Pair {
            mode: case.mode,
            cpus,
            timeout: ctx.timeout,
            ends: mech
                .connect(&dir, &case.values)
                .map_err(|e| out_of_room(e, i, n))?,
            sides: (a(i), b(i)),
            _report: std::marker::PhantomData,
        });
    }
    run_pairs(pairs)
}

/// A connection that fails after `made` of `n` others were made found
/// this machine's room for them exhausted (descriptors, message queues,
/// memory; mechanisms word it each their own way): the case is unsupported,
/// naming how many fit. The first failing is the case's own failure.
fn out_of_room(e: std::io::Error, made: u64, n: u64) -> anyhow::Error {
    if made == 0 {
        return e.into();
    }
    let name = PAIRS.name;
    let why = format!("{name}={n}: connection {} failed ({e})", made + 1);
    Unsupported(format!("{why}; the largest {name} that fits is {made}")).into()
}

/// The CPUs of each pair's two sides. Pair 0 is where the placement puts
/// one pair; the others go round-robin over `allowed`: `same-cpu` puts
/// pair i on the i-th CPU, `cross-cpu` gives side k of all 2N the k-th;
/// `unpinned` and the topology classes (one CPU pair each) repeat pair 0.
pub(crate) fn round_robin(
    placement: Placement,
    n: u64,
    allowed: &[usize],
) -> Result<Vec<Cpus>, String> {
    let first = pin::choose(placement)?;
    let at = |k: u64| Some(allowed[(k % allowed.len().max(1) as u64) as usize]);
    Ok((0..n)
        .map(|i| match placement {
            _ if i == 0 || allowed.is_empty() => first,
            Placement::SameCpu => [at(i), at(i)],
            Placement::CrossCpu => [at(2 * i), at(2 * i + 1)],
            Placement::Unpinned | Placement::Topology(_) => first,
        })
        .collect())
}

/// Records every pair's sides in `out` and returns their reports when all
/// finished and verified everything; otherwise `out` is failed with the
/// first failing pair's reason, which names that pair.
pub(crate) fn settle(
    out: &mut CaseResult,
    reports: Vec<[SideResult<SideOut>; 2]>,
    roles: [&str; 2],
) -> Option<Vec<[SideOut; 2]>> {
    if reports.len() == 1 {
        let report = reports.into_iter().next()?;
        return two_sided::settle(out, report, roles).map(|pair| vec![pair]);
    }
    let mut settled = Vec::with_capacity(reports.len());
    let mut failures: Vec<String> = Vec::new();
    let mut verified = Verified {
        ok: true,
        messages: 0,
        bytes: 0,
    };
    for (i, report) in reports.into_iter().enumerate() {
        let mut one = CaseResult::new(&out.scenario, &out.case, Default::default());
        let names = roles.map(|role| format!("pair {i} {role}"));
        let pair = two_sided::settle(&mut one, report, [&names[0], &names[1]]);
        out.sides.append(&mut one.sides);
        if let Some(v) = one.verified {
            verified.messages += v.messages;
            verified.bytes += v.bytes;
            verified.ok &= v.ok;
        }
        match pair {
            Some(pair) => settled.push(pair),
            None => failures.push(named(i, one.reason.unwrap_or_default())),
        }
    }
    out.verified = Some(verified);
    if failures.is_empty() {
        let usage = settled.iter().flatten().map(SideOut::total_usage);
        out.cpu = Some(cpu_usage(usage.fold(Usage::default(), Usage::plus)));
        return Some(settled);
    }
    // A pair's own verification failure tells more than one stopped by it.
    let first = failures.iter().find(|r| r.contains("verification failed"));
    out.status = Status::Failed;
    out.reason = first.or(failures.first()).cloned();
    None
}

/// `reason` with the pair it belongs to in front, once.
fn named(pair: usize, reason: String) -> String {
    let name = format!("pair {pair}");
    if reason.starts_with(&name) {
        reason
    } else {
        format!("{name}: {reason}")
    }
}

/// Rates of N pairs over their repetitions.
pub(crate) struct Rates {
    /// Per repetition, the pairs' rates summed.
    pub(crate) total: Vec<f64>,
    /// Per repetition, Jain's fairness index of the pairs' rates.
    pub(crate) fairness: Vec<f64>,
    /// Per pair, the median of its rates over the repetitions.
    pub(crate) each: Vec<f64>,
}

/// The rates `rate(pair, rep)` of `pairs` pairs over `reps` repetitions.
pub(crate) fn rates(pairs: usize, reps: usize, rate: impl Fn(usize, usize) -> f64) -> Rates {
    let per_rep: Vec<Vec<f64>> = (0..reps)
        .map(|r| (0..pairs).map(|p| rate(p, r)).collect())
        .collect();
    let each = (0..pairs)
        .map(|p| {
            let mut xs: Vec<f64> = per_rep.iter().map(|r| r[p]).collect();
            crate::stats::estimators::median(&mut xs)
        })
        .collect();
    Rates {
        total: per_rep.iter().map(|r| r.iter().sum()).collect(),
        fairness: per_rep.iter().map(|r| jain(r)).collect(),
        each,
    }
}

/// Keeps each pair's figures in `out` (only when there are several) and
/// their fairness per repetition.
pub(crate) fn record(out: &mut CaseResult, rates: &Rates, settled: &[[SideOut; 2]], size: u64) {
    if settled.len() < 2 {
        return;
    }
    FAIRNESS.set(out, rates.fairness.clone());
    out.pairs = settled
        .iter()
        .zip(&rates.each)
        .enumerate()
        .map(|(i, ([a, b], rate))| PairFigures {
            pair: i as u64,
            messages: a.messages + b.messages,
            ops_per_s: *rate,
            bytes_per_s: rate * size as f64,
        })
        .collect();
}

/// The pairs' counted system calls per message, when every side counts.
pub(crate) fn syscalls_per_msg(settled: &[[SideOut; 2]], messages_per_pair: u64) -> Option<f64> {
    let calls: Option<u64> = settled
        .iter()
        .map(|[a, b]| Some(a.syscalls? + b.syscalls?))
        .sum();
    let messages = messages_per_pair * settled.len() as u64;
    Some(calls? as f64 / messages.max(1) as f64)
}

/// A scenario's verdict lines over like cases only: the results are split
/// by their number of pairs and offered rate, and the lines of a group
/// other than one closed-loop pair end with which it is (` at pairs=4`).
pub(crate) fn verdicts_by_load(
    results: &[&CaseResult],
    verdicts: impl Fn(&[&CaseResult]) -> Vec<Finding>,
) -> Vec<Finding> {
    let mut groups: std::collections::BTreeMap<String, Vec<&CaseResult>> = Default::default();
    for r in results {
        groups.entry(load_label(r)).or_default().push(r);
    }
    groups
        .into_iter()
        .flat_map(|(label, group)| {
            verdicts(&group)
                .into_iter()
                .map(move |f| match label.as_str() {
                    "" => f,
                    _ => Finding {
                        id: format!("{} at {label}", f.id),
                        text: format!("{} at {label}", f.text),
                        ..f
                    },
                })
        })
        .collect()
}

/// `pairs=4, rate=10000`, or empty for one pair in a closed loop.
fn load_label(r: &CaseResult) -> String {
    let int = |name: &str| r.params.get(name).and_then(|v| v.as_u64());
    let pairs = int(PAIRS.name)
        .filter(|n| *n != 1)
        .map(|n| format!("pairs={n}"));
    let rate = int(super::open_loop::RATE.name).map(|n| format!("rate={n}"));
    [pairs, rate]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
