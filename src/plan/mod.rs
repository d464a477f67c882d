//! From the command line to a validated plan of cases. All input checking
//! lives here, so a bad value is refused (exit 2) before anything runs or is
//! written.

mod distinct;
mod expand;
mod fit;
mod keys;
mod memory;
pub(crate) mod numbers;
mod one_case;
pub(crate) mod outputs;
mod peer;
pub(crate) mod precision;
mod repeat_runs;

pub(crate) use one_case::one_case;

use crate::cli::{ModeArg, RunArgs};
use crate::error::{UsageError, UsageResult};
use crate::measure::pin::{Placement, ALL_PLACEMENTS};
use crate::mechanism::{self, Mechanism};
use crate::params::parse_scaled;
use crate::scenario::{self, suite, CaseSpec, Fault, Mode, Scenario, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One point of a parameter sweep: each parameter's value.
pub(crate) type Point = BTreeMap<&'static str, Value>;

pub(crate) struct Plan {
    pub(crate) cases: Vec<CaseSpec>,
    /// What was asked for, e.g. "quick" or "pingpong stream".
    pub(crate) targets: String,
    pub(crate) fault: Option<Fault>,
    /// Sample each case's CPU use (`--profile`).
    pub(crate) profile: bool,
    /// Say where each operation's time went (`--explain`).
    pub(crate) explain: bool,
    /// How closely each headline must be known (`--precision`; None: off).
    pub(crate) precision: Option<precision::Goal>,
    /// Independent runs of the whole plan (`--repeat-runs`, default 1).
    pub(crate) runs: u64,
    /// The fastest host-speed canary this machine ran (`measure::canary`),
    /// set before each run: the noise guard's measure of a slowed host.
    pub(crate) fastest_canary: crate::measure::canary::Fastest,
    /// A suite that decides claims is named: without `--precision`, each
    /// case a claim reads aims for the precision that claim needs.
    pub(crate) claims_precision: bool,
    /// In a suite that decides claims, the cases a claim compares run as
    /// interleaved rounds (`runner::interleaved`): how.
    pub(crate) interleave: Option<Interleave>,
    /// `--json`, `--csv` and the exports, made before anything runs.
    pub(crate) outputs: outputs::Outputs,
}

/// The interleaved rounds of a suite that decides claims.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Interleave {
    /// Draws every round's order (`--seed`, or the clock); stored with
    /// each result.
    pub(crate) seed: u64,
    /// No round of one group of compared cases starts after this long.
    pub(crate) time_cap: std::time::Duration,
}

/// How long one group of compared cases may run its rounds, in the seeds
/// suite and in its `--quick` variant.
pub(crate) const ROUND_CAP: std::time::Duration = std::time::Duration::from_secs(35);
pub(crate) const QUICK_ROUND_CAP: std::time::Duration = std::time::Duration::from_secs(10);

impl Plan {
    /// The agent's environment when the cases run on one (`--peer`); an
    /// agent that cannot be reached now fails each case with the reason,
    /// and one that refuses this client (a wrong token, another version)
    /// is a usage error: nothing runs.
    pub(crate) fn peer_environment(&self) -> UsageResult<Option<crate::model::Environment>> {
        let Some(peer) = self.cases.iter().find_map(|c| c.peer.as_ref()) else {
            return Ok(None);
        };
        match crate::exec::remote::client::environment(peer) {
            Ok(env) => Ok(Some(env)),
            Err(e) if e.chain().any(|c| c.is::<UsageError>()) => {
                Err(UsageError::new(format!("{e:#}")))
            }
            Err(e) => {
                eprintln!("warning: {e:#}");
                Ok(None)
            }
        }
    }
}

/// One scenario to run, with the parameters its suite sets.
pub(crate) struct Invocation {
    pub(crate) scenario: &'static dyn Scenario,
    pub(crate) suite_params: &'static [(&'static str, &'static str)],
    pub(crate) suite_repeat: Option<u64>,
    /// The suite entry's mechanisms, if it narrows them.
    pub(crate) suite_mechs: Option<&'static [&'static str]>,
}

/// A case of the plan, and the message size its mechanism cannot carry.
pub(crate) struct Planned {
    pub(crate) case: CaseSpec,
    pub(crate) oversize: Option<fit::Oversize>,
}

pub(crate) use crate::scenario::DEFAULT_REPEAT;

/// The choices that apply to every scenario of the run.
pub(crate) struct Common {
    pub(crate) mechs: Vec<&'static dyn Mechanism>,
    pub(crate) mechs_explicit: bool,
    pub(crate) placements: Vec<Placement>,
    pub(crate) placements_explicit: bool,
    pub(crate) mode: Mode,
    /// Repetitions asked for on the command line (None: the suite's or 5).
    pub(crate) repeat: Option<u64>,
    pub(crate) warmup: Option<u64>,
    pub(crate) params: BTreeMap<String, String>,
    /// What the buffers of one case may take (None: unknown, not checked).
    pub(crate) memory: Option<memory::Limit>,
    /// The agent that runs the far sides (`--peer`).
    pub(crate) peer: Option<crate::exec::remote::Peer>,
}

/// Every output `run` was given: its option and path.
fn outputs_of(args: &RunArgs) -> Vec<(&'static str, &std::path::Path)> {
    let files = [("--json", &args.json), ("--csv", &args.csv)];
    let mut given: Vec<_> = files
        .into_iter()
        .filter_map(|(option, path)| Some((option, path.as_deref()?)))
        .collect();
    given.extend(args.exports.given());
    given
}

pub(crate) fn build(args: &RunArgs) -> UsageResult<Plan> {
    let targets = targets_of(args);
    let invocations = resolve_targets(&targets, args.quick)?;
    let common = common(args, &invocations)?;
    let mut planned = Vec::new();
    for inv in &invocations {
        planned.extend(expand::cases(inv, &common)?);
    }
    let planned = dedupe(planned);
    if planned.len() > MAX_CASES {
        return Err(UsageError::new(format!(
            "the command line makes {} cases: at most {MAX_CASES} in one run \
             (narrow --mech, --placement or a parameter's list)",
            planned.len()
        )));
    }
    peer::check_cases(&planned)?;
    fit::refuse_if_nothing_fits(&planned)?;
    let claims_precision = targets
        .iter()
        .any(|t| suite::find(t).is_some_and(|s| s.claims_precision));
    let mut cases: Vec<CaseSpec> = planned.into_iter().map(|p| p.case).collect();
    distinct::name_apart(&mut cases)?;
    let mut plan = Plan {
        cases,
        targets: targets.join(" "),
        fault: parse_fault(args.fault.as_deref())?,
        profile: args.profile,
        explain: args.explain,
        runs: repeat_runs::runs(args)?,
        fastest_canary: Default::default(),
        claims_precision,
        interleave: claims_precision.then(|| Interleave {
            seed: args.seed.unwrap_or_else(clock_seed),
            time_cap: match args.quick {
                true => QUICK_ROUND_CAP,
                false => ROUND_CAP,
            },
        }),
        precision: precision::goal(
            args.precision.as_deref(),
            names_a_suite(args, &targets),
            args.repeat.is_some(),
        )?,
        outputs: outputs::Outputs::default(),
    };
    // Last: the outputs make their files, which a refusal must not leave.
    plan.outputs = outputs::prepare(&outputs_of(args))?;
    if let Some(note) = keys::mechs_ignored(&invocations, common.mechs_explicit) {
        eprintln!("{note}");
    }
    Ok(plan)
}

/// The plan of `iolab run ARGS`, for tests.
#[cfg(test)]
pub(crate) fn of_args(args: &[&str]) -> UsageResult<Plan> {
    use clap::Parser;
    let cli = crate::cli::Cli::try_parse_from([&["iolab", "run"], args].concat())
        .map_err(|e| UsageError::new(e.to_string()))?;
    let crate::cli::Command::Run(run) = cli.command else {
        unreachable!("a run command")
    };
    build(&run)
}

/// A seed for the rounds' orders when none is given: the clock's nanoseconds.
pub(crate) fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map(|d| d.as_nanos() as u64).unwrap_or(1).max(1)
}

/// A suite is named (the quick suite by default), or `--quick` asks for
/// the quick suite's entries.
fn names_a_suite(args: &RunArgs, targets: &[String]) -> bool {
    args.quick || targets.iter().any(|t| suite::find(t).is_some())
}

/// The targets named, each once, in order; the quick suite when none.
fn targets_of(args: &RunArgs) -> Vec<String> {
    let mut targets: Vec<String> = Vec::new();
    for name in &args.targets {
        if !targets.contains(name) {
            targets.push(name.clone());
        }
    }
    if targets.is_empty() {
        targets.push("quick".into());
    }
    targets
}

fn common(args: &RunArgs, invocations: &[Invocation]) -> UsageResult<Common> {
    let peer = peer::of(args)?;
    let mut mechs = select_mechs(&args.mech)?;
    let mut placements = select_placements(&args.placement)?;
    if peer.is_some() {
        peer::check_scenarios(invocations)?;
        mechs = peer::mechs(mechs, !args.mech.is_empty())?;
        if args.placement.is_empty() {
            placements = vec![peer::DEFAULT_PLACEMENT];
        }
    }
    let params = keys::parse_params(&args.params, invocations, &mechs)?;
    Ok(Common {
        mechs,
        mechs_explicit: !args.mech.is_empty(),
        placements,
        placements_explicit: !args.placement.is_empty() || peer.is_some(),
        mode: match args.mode {
            ModeArg::Threads => Mode::Threads,
            ModeArg::Processes => Mode::Processes,
        },
        repeat: args
            .repeat
            .as_deref()
            .map(|r| parse_number("--repeat", r, 1..=MAX_REPEAT, "repetitions"))
            .transpose()?,
        warmup: args
            .warmup
            .as_deref()
            .map(|w| parse_number("--warmup", w, 0..=MAX_WARMUP, "operations"))
            .transpose()?,
        params,
        memory: memory::Limit::here(),
        peer,
    })
}

/// The first of each set of identical cases (targets or suite entries that
/// overlap), in order.
fn dedupe(planned: Vec<Planned>) -> Vec<Planned> {
    let mut seen = BTreeSet::new();
    planned
        .into_iter()
        .filter(|p| seen.insert(p.case.identity()))
        .collect()
}

/// A suite entry as an invocation.
fn invocation(entry: &'static suite::Entry) -> Invocation {
    Invocation {
        scenario: scenario::find(entry.scenario).expect("suites name known scenarios"),
        suite_params: entry.params,
        suite_repeat: entry.repeat,
        suite_mechs: entry.mechs,
    }
}

/// The scenarios and suites named, as invocations; `quick` swaps in the
/// small-size entries (see `suite::quick_entries`).
fn resolve_targets(targets: &[String], quick: bool) -> UsageResult<Vec<Invocation>> {
    let mut out: Vec<Invocation> = Vec::new();
    for name in targets {
        if let Some(s) = scenario::find(name) {
            let entries = match quick {
                true => suite::quick_entries(name),
                false => Vec::new(),
            };
            if entries.is_empty() {
                out.push(Invocation {
                    scenario: s,
                    suite_params: &[],
                    suite_repeat: None,
                    suite_mechs: None,
                });
            }
            out.extend(entries.into_iter().map(invocation));
        } else if let Some(suite) = suite::find(name) {
            let entries = match quick {
                true => suite::quick_variant(suite),
                false => suite.entries.iter().collect(),
            };
            out.extend(entries.into_iter().map(invocation));
        } else {
            let suites: Vec<&str> = suite::ALL.iter().map(|s| s.name).collect();
            return Err(UsageError::new(format!(
                "unknown scenario or suite '{name}': expected one of {} (scenarios) or {} (suites)",
                scenario::names().join(", "),
                suites.join(", ")
            )));
        }
    }
    Ok(out)
}

/// The mechanisms named by `--mech`; none named, or `all`, is every one.
fn select_mechs(names: &[String]) -> UsageResult<Vec<&'static dyn Mechanism>> {
    if names.is_empty() || names.iter().any(|n| n == "all") {
        return Ok(mechanism::ALL.to_vec());
    }
    let mut mechs: Vec<&'static dyn Mechanism> = Vec::new();
    for n in names {
        let mech = mechanism::find(n).ok_or_else(|| {
            UsageError::new(format!(
                "unknown mechanism '{n}': expected all or one of {}",
                mechanism::names().join(", ")
            ))
        })?;
        if !mechs.iter().any(|m| m.name() == mech.name()) {
            mechs.push(mech);
        }
    }
    Ok(mechs)
}

fn select_placements(names: &[String]) -> UsageResult<Vec<Placement>> {
    if names.is_empty() {
        return Ok(vec![Placement::SameCpu, Placement::CrossCpu]);
    }
    names
        .iter()
        .map(|n| {
            Placement::parse(n).ok_or_else(|| {
                let all: Vec<&str> = ALL_PLACEMENTS.iter().map(|p| p.name()).collect();
                UsageError::new(format!(
                    "unknown placement '{n}': expected one of {}",
                    all.join(", ")
                ))
            })
        })
        .collect()
}

/// Repetitions a case may take (`--repeat`, and `--precision`'s batches
/// together): a million repetitions of the shortest case already run for
/// hours.
pub(crate) const MAX_REPEAT: u64 = 1_000_000;
/// Cases one run may hold: what the readers (`show`, `report`, `compare`)
/// are tested at, and what `import` admits.
pub(crate) const MAX_CASES: usize = 10_000;
/// Untimed operations before them (`--warmup`), bounded so that no count
/// a scenario adds it to can overflow.
pub(crate) const MAX_WARMUP: u64 = 1_000_000_000;

/// `text` as a whole number of `what` within `range`, or a one-line error
/// naming the flag, the value and the range.
fn parse_number(
    flag: &str,
    text: &str,
    range: std::ops::RangeInclusive<u64>,
    what: &str,
) -> UsageResult<u64> {
    parse_scaled(text, 1000)
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            UsageError::new(format!(
                "invalid {flag} '{text}': expected a whole number of {what} from {} to {}",
                range.start(),
                range.end()
            ))
        })
}

fn parse_fault(text: Option<&str>) -> UsageResult<Option<Fault>> {
    match text {
        None => Ok(None),
        Some("corrupt") => Ok(Some(Fault::Corrupt)),
        Some("stall") => Ok(Some(Fault::Stall)),
        Some("die-sender") => Ok(Some(Fault::DieSender)),
        Some("phantom") => Ok(Some(Fault::Phantom)),
        Some("slow-bound") => Ok(Some(Fault::SlowBound)),
        // Not the cases': app.rs makes the store refuse the run at the end.
        Some("store") => Ok(None),
        Some(other) => Err(UsageError::new(format!(
            "unknown fault '{other}': expected corrupt, stall, die-sender, phantom, slow-bound or store"
        ))),
    }
}

#[cfg(test)]
mod tests;
