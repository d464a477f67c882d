//! The commands, each a short pipeline: run / list / env / history / show.

use crate::cli::{Cli, Command, HistoryArgs, ListArgs, RunArgs, ShowArgs};
use crate::model::{Run, IOLAB_VERSION};
use crate::report::{self, CsvReporter, JsonReporter, TableReporter};
use crate::runner::{self, progress::Bar};
use crate::store::Store;
use crate::{env, listing, plan};
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
                println!("{}", serde_json::to_string_pretty(&fingerprint)?);
            } else {
                print!("{}", env::render(&fingerprint));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::History(args) => history(&args),
        Command::Show(args) => show(&args),
    }
}

fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let plan = plan::build(args)?;
    let db = (!args.no_store).then(|| db_path(&args.db)).transpose()?;
    let mut store = db.as_deref().map(Store::open).transpose()?;
    let started_at = now_rfc3339();
    let environment = env::fingerprint();
    let mut results = runner::run(&plan, &Bar::new(args.quiet))?;
    runner::annotate_limits(&mut results);
    let run = Run {
        iolab_version: IOLAB_VERSION.to_string(),
        run_id: new_run_id(),
        started_at,
        finished_at: Some(now_rfc3339()),
        label: args.label.clone(),
        suite: Some(plan.targets.clone()),
        environment,
        verdicts: runner::verdicts(&results),
        results,
    };
    if let Some(store) = store.as_mut() {
        store.save(&run)?;
    }
    write_outputs(args, &run)?;
    Ok(ExitCode::SUCCESS)
}

fn write_outputs(args: &RunArgs, run: &Run) -> anyhow::Result<()> {
    if let Some(path) = &args.json {
        report::write_to(path, &JsonReporter, run)?;
    }
    if let Some(path) = &args.csv {
        report::write_to(path, &CsvReporter, run)?;
    }
    let stdout_taken = [&args.json, &args.csv]
        .iter()
        .any(|p| p.as_deref() == Some(Path::new("-")));
    if !args.quiet && !stdout_taken {
        print_table(run)?;
    }
    Ok(())
}

fn print_table(run: &Run) -> anyhow::Result<()> {
    let color = std::io::stdout().is_terminal();
    report::write_to(Path::new("-"), &TableReporter { color }, run)
}

fn list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let text = match &args.scenario {
        Some(name) => listing::scenario(name)?,
        None => listing::overview(),
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

fn history(args: &HistoryArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_existing(&db_path(&args.db)?)?;
    print!("{}", listing::history(&store.history(args.limit)?));
    Ok(ExitCode::SUCCESS)
}

fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_existing(&db_path(&args.db)?)?;
    let run = store.load(&args.run)?;
    match &args.json {
        Some(path) => report::write_to(path, &JsonReporter, &run)?,
        None => print_table(&run)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn db_path(explicit: &Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match explicit {
        Some(path) => Ok(path.clone()),
        None => Store::default_path(),
    }
}

fn now_rfc3339() -> String {
    crate::measure::time::rfc3339(std::time::SystemTime::now())
}

/// `20261122-031502-4f1a`: sortable, readable, unique enough per machine.
fn new_run_id() -> String {
    let now = std::time::SystemTime::now();
    let stamp = crate::measure::time::compact(now);
    let nanos = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{stamp}-{:04x}", (nanos ^ std::process::id()) & 0xffff)
}
