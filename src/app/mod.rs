//! The commands, each a short pipeline: run / list / env / history / show /
//! report / compare / claims / import / push / fleet / ab / completions /
//! man; and the command line they are parsed from, with its completers
//! (`complete.rs`).

mod ab;
mod complete;
mod doctor;
mod documents;
mod keep;
mod kernels;
mod man;
mod push;
mod shell;

pub use complete::command;
pub use shell::complete_if_asked;

use crate::cli::{
    AgentArgs, ClaimsArgs, Cli, Command, CompareArgs, ExportArgs, FleetArgs, HistoryArgs,
    ImportArgs, ListArgs, ReportArgs, RunArgs, ShowArgs, DEFAULT_MIN_EFFECT_PCT,
};
use crate::error::UsageError;
use crate::format::{printable, printable_text, shown, shown_run, STORED_WIDTH};
use crate::live_tables::LiveTables;
use crate::model::{CaseResult, Environment, Run, Status};
use crate::plan::numbers::percentage;
use crate::plan::outputs::{Output, Outputs};
use crate::report::{
    self, BenchmarkActionReporter, BmfReporter, CsvReporter, HdrReporter, HtmlReporter,
    JsonReporter, MarkdownReporter, OpenMetricsReporter, TableReporter,
};
use crate::runner::{self, progress::Bar};
use crate::store::{self, HistoryFilter, Place, Store};
use crate::{env, listing, plan};
use anyhow::Context;
use keep::{calibrate_canary, db_place, finished_run, keep, now_rfc3339, open_store};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run(&args),
        Command::List(args) => list(&args),
        Command::Env(args) => {
            let fingerprint = env::fingerprint();
            if args.json {
                out(&documents::text(&fingerprint)?)?;
            } else {
                out(&printable_text(&env::render(&fingerprint)))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::History(args) => history(&args),
        Command::Show(args) => show(&args),
        Command::Report(args) => report(&args),
        Command::Compare(args) => compare(&args),
        Command::Claims(args) => claims(&args),
        Command::Import(args) => import(&args),
        Command::Push(args) => push::push(&args),
        Command::Fleet(args) => fleet(&args),
        Command::Agent(args) => agent(&args),
        Command::Ab(args) => ab::ab(&args),
        Command::Doctor(args) => doctor::doctor(&args),
        Command::Completions(args) => shell::completions(&args),
        Command::Man(args) => man::man(&args),
    }
}

fn agent(args: &AgentArgs) -> anyhow::Result<ExitCode> {
    crate::agent::serve(crate::agent::options(args)?)?;
    Ok(ExitCode::SUCCESS)
}

fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    // First: building the plan needs more heap than a tight address
    // space may give, and a failed allocation aborts.
    crate::mem::run_headroom()?;
    let mut plan = plan::build(args)?;
    let guests = match args.kernels.is_empty() {
        true => Vec::new(),
        false => kernels::prepare(args)?,
    };
    // `$IOLAB_PUSH` pushes what is stored: nothing with --no-store.
    let push = match args.no_store {
        true => None,
        false => keep::push_place(&args.push)?,
    };
    if let Some(target) = &push {
        target.refuse_unsupported()?;
    }
    let mut store = open_store(args.no_store, &args.db)?;
    let mut runs = Vec::new();
    for i in 1..=plan.runs {
        if plan.runs > 1 && !args.quiet {
            eprintln!("run {i} of {} (--repeat-runs)", plan.runs);
        }
        runs.push(run_once(args, &mut plan, store.as_mut(), push.as_ref())?);
    }
    if plan.runs > 1 {
        out(&runner::repeat::render(&runs))?;
    }
    if !guests.is_empty() {
        let more = kernels::run_guests(args, &guests, store.as_mut(), &runs[0])?;
        runs.extend(more);
    }
    Ok(run_status(&runs, args.fail_on_unsupported))
}

/// `iolab run`'s exit status, once everything is printed, written and
/// stored: 1, said in one line on stderr, when a case failed (with
/// `--fail-on-unsupported`, also when one was unsupported); else 0.
fn run_status(runs: &[Run], unsupported_fails: bool) -> ExitCode {
    let results = runs.iter().flat_map(|run| &run.results);
    let count = |status: Status| results.clone().filter(|r| r.status == status).count();
    let failed = count(Status::Failed);
    let unsupported = count(Status::Unsupported) * usize::from(unsupported_fails);
    let total = results.clone().count();
    let why = match (failed, unsupported) {
        (0, 0) => return ExitCode::SUCCESS,
        (_, 0) => format!("{failed} of {total} cases failed"),
        (0, _) => format!("{unsupported} of {total} cases unsupported (--fail-on-unsupported)"),
        _ => format!(
            "{failed} of {total} cases failed, {unsupported} unsupported (--fail-on-unsupported)"
        ),
    };
    eprintln!("error: {why}");
    ExitCode::FAILURE
}

/// One run of the plan: measured, written and stored (then pushed to
/// `push`, with what is still pending there).
fn run_once(
    args: &RunArgs,
    plan: &mut plan::Plan,
    mut store: Option<&mut Store>,
    push: Option<&Place>,
) -> anyhow::Result<Run> {
    let started_at = now_rfc3339();
    let mut environment = env::fingerprint();
    environment.peer = plan.peer_environment()?.map(Box::new);
    plan.fastest_canary = calibrate_canary(&mut environment, store.as_deref_mut());
    let bar = Bar::new(args.quiet);
    crate::measure::host::start();
    let mut results = match prints_tables(args) {
        true => runner::run(plan, &LiveTables::stdout(&bar, args.verbose))?,
        false => runner::run(plan, &bar)?,
    };
    environment.host = crate::measure::host::finish();
    environment.bounds = runner::bounds_seen();
    runner::annotate_limits(&mut results);
    if let Some(store) = store.as_deref_mut() {
        read_past(store, &environment, &mut results);
    }
    environment.canary_ns = fastest_reading(environment.canary_ns, &results, |n| n.canary_ns);
    environment.wake_canary_ns =
        fastest_reading(environment.wake_canary_ns, &results, |n| n.wake_canary_ns);
    let label = args.label.clone();
    let mut run = finished_run(
        started_at,
        label,
        plan.targets.clone(),
        environment,
        results,
    );
    run.verdicts = crate::claims::verdicts(&run.results);
    run.claims = crate::claims::evaluate(&run.results, Some(&plan.targets));
    let host = run.environment.host.as_ref();
    if let Some(summary) = host.and_then(crate::measure::host::summary) {
        crate::claims::note_the_host(&mut run.claims, &summary);
    }
    // Stored first: a reader that goes away loses nothing measured; the
    // table and files are still written if the store fails.
    let kept = store.map_or(Ok(()), |store| {
        if args.fault.as_deref() == Some("store") {
            store.refuse_writes()?;
        }
        keep(store, &run, &args.db, args.quiet, push)?;
        if let Some(target) = push {
            push::after_run(store, target, args.quiet);
        }
        Ok(())
    });
    let written = write_outputs(&mut plan.outputs, args, &run);
    if let (Err(err), Err(_)) = (&written, &kept) {
        eprintln!("error: {err:#}");
    }
    kept.and(written)?;
    Ok(run)
}

/// Gives each result a claim reads its figures in this host's earlier
/// runs, which the claims weigh as run-to-run drift; a store that cannot
/// say leaves the claims to weigh this run's repetitions alone.
fn read_past(store: &mut Store, environment: &Environment, results: &mut [CaseResult]) {
    let read_by_a_claim = |r: &CaseResult| crate::claims::required_precision(r).is_some();
    if let Err(e) = store.fill_past(environment, results, read_by_a_claim) {
        eprintln!("warning: {e:#}");
    }
}

/// The fastest reading of a canary in the run: its calibration or the
/// fastest reading around a case, which the store keeps for the next runs.
fn fastest_reading(
    calibrated: Option<f64>,
    results: &[crate::model::CaseResult],
    canary: fn(&crate::model::Noise) -> Option<f64>,
) -> Option<f64> {
    results
        .iter()
        .filter_map(|r| canary(r.noise.as_ref()?))
        .chain(calibrated)
        .filter(|ns| *ns > 0.0)
        .reduce(f64::min)
}

/// `--json`, `--csv`, the exports (made before the run, `plan::outputs`)
/// and the table.
fn write_outputs(outputs: &mut Outputs, args: &RunArgs, run: &Run) -> anyhow::Result<()> {
    write_files(outputs, args.json.as_deref(), args.csv.as_deref(), run)?;
    let shown = shown_run(run);
    write_exports(outputs, &args.exports, run, (&shown, None))?;
    if prints_tables(args) {
        print_table(&shown, false, args.verbose)?;
    }
    Ok(())
}

/// `--json` and `--csv` of `run` and `show`.
fn write_files(
    outputs: &mut Outputs,
    json: Option<&Path>,
    csv: Option<&Path>,
    run: &Run,
) -> anyhow::Result<()> {
    if let Some(path) = json {
        report::write(outputs.take_or_make("--json", path)?, &JsonReporter, run)?;
    }
    if let Some(path) = csv {
        report::write(outputs.take_or_make("--csv", path)?, &CsvReporter, run)?;
    }
    Ok(())
}

/// `--markdown`, `--openmetrics`, `--bmf`, `--smaller-is-better`,
/// `--bigger-is-better` and `--hdr` of `run`, `show` and `report` (the
/// Markdown with `baseline`'s figures beside, for `report --compare`);
/// each file replaced in one step. One the run gives nothing to write is
/// refused (exit 2) once the others are written. The Markdown, a document
/// a person reads, is of `text`: the run and baseline as `format::shown_run`
/// shows them; the machine formats keep what the run holds.
fn write_exports(
    outputs: &mut Outputs,
    exports: &ExportArgs,
    run: &Run,
    text: (&Run, Option<&Run>),
) -> anyhow::Result<()> {
    use crate::compare::Direction;
    let smaller = BenchmarkActionReporter {
        direction: Direction::LowerIsBetter,
    };
    let bigger = BenchmarkActionReporter {
        direction: Direction::HigherIsBetter,
    };
    let markdown = MarkdownReporter { baseline: text.1 };
    let each: [(&str, &Option<PathBuf>, &dyn report::Reporter, &Run); 6] = [
        ("--markdown", &exports.markdown, &markdown, text.0),
        (
            "--openmetrics",
            &exports.openmetrics,
            &OpenMetricsReporter,
            run,
        ),
        ("--bmf", &exports.bmf, &BmfReporter, run),
        (
            "--smaller-is-better",
            &exports.smaller_is_better,
            &smaller,
            run,
        ),
        (
            "--bigger-is-better",
            &exports.bigger_is_better,
            &bigger,
            run,
        ),
        ("--hdr", &exports.hdr, &HdrReporter, run),
    ];
    let mut first_failure = None;
    for (option, path, reporter, run) in each {
        if let Some(path) = path {
            let written = outputs
                .take_or_make(option, path)
                .map_err(anyhow::Error::from)
                .and_then(|output| report::write(output, reporter, run));
            if let Err(err) = written {
                first_failure.get_or_insert(err);
            }
        }
    }
    first_failure.map_or(Ok(()), Err)
}

/// The tables go to stdout unless `--quiet` or an output to `-` takes it.
fn prints_tables(args: &RunArgs) -> bool {
    let stdout_taken = [&args.json, &args.csv]
        .into_iter()
        .filter_map(|p| p.as_deref())
        .chain(args.exports.given().into_iter().map(|(_, p)| p))
        .any(|p| p == Path::new("-"));
    !args.quiet && !stdout_taken
}

/// The run as the terminal table; without `scenarios` only its claims and
/// summary line (`run` printed each scenario's table as it finished);
/// `verbose`: every column and note (else the compact view).
fn print_table(run: &Run, scenarios: bool, verbose: bool) -> anyhow::Result<()> {
    let color = std::io::stdout().is_terminal();
    let reporter = TableReporter {
        color,
        scenarios,
        verbose,
    };
    report::write(Output::stdout(), &reporter, run)
}

fn list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let text = match &args.scenario {
        Some(name) => listing::scenario(name)?,
        None => listing::overview(),
    };
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn history(args: &HistoryArgs) -> anyhow::Result<ExitCode> {
    let mut store = Store::open_existing(db_place(&args.db)?)?;
    let filter = HistoryFilter {
        host: args.host.clone(),
        kernel: args.kernel.clone(),
        scenario: args.scenario.clone(),
    };
    out(&listing::history(&store.history(args.limit, &filter)?))?;
    Ok(ExitCode::SUCCESS)
}

/// A stored run as the table, or in the formats asked for.
fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let files = [("--json", &args.json), ("--csv", &args.csv)];
    let mut outputs: Vec<(&str, &Path)> = files
        .into_iter()
        .filter_map(|(option, path)| Some((option, path.as_deref()?)))
        .collect();
    outputs.extend(args.exports.given());
    let mut made = crate::plan::outputs::prepare(&outputs)?;
    let mut store = Store::open_existing(db_place(&args.db)?)?;
    let run = store.load(&args.run)?;
    let shown = shown_run(&run);
    if outputs.is_empty() {
        print_table(&shown, true, true)?;
    }
    write_files(&mut made, args.json.as_deref(), args.csv.as_deref(), &run)?;
    write_exports(&mut made, &args.exports, &run, (&shown, None))?;
    Ok(ExitCode::SUCCESS)
}

fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let mut store = Store::open_existing(db_place(&args.db)?)?;
    if let (true, Some(path)) = (args.fleet, &args.html) {
        return fleet_report(&mut store, path);
    }
    let (baseline, run) = match args.compare.as_slice() {
        [a, b] => (Some(store.load(a)?), store.load(b)?),
        _ => (None, store.load(&args.run)?),
    };
    // The documents print what the runs hold; the exports keep it whole.
    let (text_baseline, text_run) = (baseline.as_ref().map(shown_run), shown_run(&run));
    let baseline = text_baseline.as_ref();
    let diff = match args.diff.as_slice() {
        [a, b] => Some([
            report::profiled_case(&text_run, a)?,
            report::profiled_case(&text_run, b)?,
        ]),
        _ => None,
    };
    let mut outputs = Outputs::default();
    if let Some(path) = &args.html {
        let output = outputs.take_or_make("--html", path)?;
        report::write(output, &HtmlReporter { baseline, diff }, &text_run)?;
    }
    write_exports(&mut outputs, &args.exports, &run, (&text_run, baseline))?;
    Ok(ExitCode::SUCCESS)
}

/// `iolab report --fleet`: the newest run of each host and kernel, each
/// with its claims (computed now for a run stored before claims existed).
fn fleet_report(store: &mut Store, path: &Path) -> anyhow::Result<ExitCode> {
    let mut runs = store.latest_per_host()?;
    if runs.is_empty() {
        let msg = format!(
            "no run in {}: the store is empty, push runs there first",
            store.place()
        );
        return Err(UsageError::new(msg).into());
    }
    for run in runs.iter_mut().filter(|r| r.claims.is_empty()) {
        run.claims = crate::claims::evaluate(&run.results, run.suite.as_deref());
    }
    report::write_fleet(path, &runs)?;
    Ok(ExitCode::SUCCESS)
}

fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let regression = |pct| percentage("--fail-on-regression", pct, 10.0);
    let pct = args.fail_on_regression.map(regression).transpose()?;
    let min_effect = percentage("--min-effect", args.min_effect, DEFAULT_MIN_EFFECT_PCT)?;
    let mut store = Store::open_existing(db_place(&args.db)?)?;
    let (mut a, mut b) = (store.load(&args.a)?, store.load(&args.b)?);
    if args.json.is_none() {
        (a, b) = (shown_run(&a), shown_run(&b));
    }
    if let Some(warning) = crate::compare::same_run_warning(&a, &b) {
        eprintln!("{warning}");
    }
    let mut result = crate::compare::compare_with(&a, &b, min_effect);
    if let Some(pct) = pct {
        result.judge(pct);
    }
    match &args.json {
        Some(path) => write_json(path, &result)?,
        None => out(&crate::compare::text(&result, pct))?,
    }
    if result.regressions.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    if args.json.is_some() {
        eprintln!(
            "{}",
            crate::compare::verdict(&result, pct.unwrap_or_default())
        );
    }
    Ok(ExitCode::from(1))
}

/// The claims of a stored run; a run stored before claims existed gets
/// them computed from its results now.
fn claims(args: &ClaimsArgs) -> anyhow::Result<ExitCode> {
    let mut store = Store::open_existing(db_place(&args.db)?)?;
    if args.kernels {
        kernels::claims_kernels(&mut store, args)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !args.across.is_empty() {
        return claims_across(&mut store, args);
    }
    let (run_id, kernel, claims) = stored_claims(&mut store, &args.run)?;
    match &args.json {
        Some(path) => write_json(
            path,
            &documents::ClaimsOfRun {
                run_id: run_id.clone(),
                claims: claims.clone(),
            },
        )?,
        None if claims.is_empty() => out(&format!(
            "run {run_id} answers no claim: run `iolab run seeds` to re-test them\n"
        ))?,
        None => {
            let kernel = printable(&kernel, STORED_WIDTH);
            crate::claims::render::write(&mut crate::stdout::lock(), &shown(&claims), &kernel)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A stored run's id, kernel and claims (computed now for a run stored
/// before claims existed).
fn stored_claims(
    store: &mut Store,
    selector: &str,
) -> anyhow::Result<(String, String, Vec<crate::model::ClaimVerdict>)> {
    let run = store.load(selector)?;
    let claims = match run.claims.is_empty() {
        true => crate::claims::evaluate(&run.results, run.suite.as_deref()),
        false => run.claims,
    };
    Ok((run.run_id, run.environment.kernel, claims))
}

/// `iolab claims --across RUN...`.
fn claims_across(store: &mut Store, args: &ClaimsArgs) -> anyhow::Result<ExitCode> {
    use crate::claims::across::{self, RunClaims};
    let mut runs = Vec::new();
    for selector in &args.across {
        let (run_id, _, claims) = stored_claims(store, selector)?;
        let selector = selector.clone();
        runs.push(RunClaims {
            run_id,
            selector,
            claims,
        });
    }
    match &args.json {
        Some(path) => write_json(path, &documents::ClaimsAcross { runs })?,
        None => {
            for run in runs.iter_mut() {
                run.claims = shown(&run.claims);
            }
            across::write(&mut crate::stdout::lock(), &runs)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Stores a run saved as JSON, once.
fn import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let run = store::read_saved(&args.file)?;
    store::vet(&run).map_err(|why| {
        UsageError::new(format!("{}: {why}: nothing stored", args.file.display()))
    })?;
    let mut store =
        Store::open_at(db_place(&args.db)?).map_err(|err| UsageError::new(format!("{err:#}")))?;
    let imported = store.import(&run)?;
    push::say_imported(&store, &run, imported, "imported");
    Ok(ExitCode::SUCCESS)
}

/// One case's headline across every host and kernel in the store.
fn fleet(args: &FleetArgs) -> anyhow::Result<ExitCode> {
    let query = crate::fleet::Query::new(&args.scenario, &args.metric, args.case.as_deref())?;
    let mut store = Store::open_existing(db_place(&args.db)?)?;
    let rows = query.rows(&store.scenario_results(&args.scenario)?)?;
    out(&crate::fleet::table(&query, &rows))?;
    Ok(ExitCode::SUCCESS)
}

/// `value` as a JSON document (`documents.rs`) to `path` (`-`: stdout).
fn write_json(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let text = documents::text(value)?;
    if path == Path::new("-") {
        return out(&text);
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `text` to stdout; a reader that closed early (`| head`) is done,
/// and the command goes on (`crate::stdout`).
fn out(text: &str) -> anyhow::Result<()> {
    Ok(crate::stdout::print(text)?)
}
