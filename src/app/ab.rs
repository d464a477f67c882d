//! `iolab ab`'s pipeline: the comparison planned (bad input: exit 2,
//! nothing measured), the store opened, the rounds run under a progress
//! bar, the run stored like any run (`history`, `show` and `report` know
//! it by its suite, `ab`), then the finding printed and the run written:
//! a reader that goes away loses nothing measured.

use super::keep::{calibrate_canary, finished_run, keep, now_rfc3339, open_store};
use crate::cli::AbArgs;
use crate::model::{Run, Status, Verdict};
use crate::report::{self, JsonReporter};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

pub(super) fn ab(args: &AbArgs) -> anyhow::Result<ExitCode> {
    crate::mem::run_headroom()?;
    let mut comparison = crate::ab::plan(args)?;
    let json = Vec::from_iter(args.json.as_deref().map(|p| ("--json", p)));
    let mut outputs = crate::plan::outputs::prepare(&json)?;
    let mut store = open_store(args.no_store, &args.db)?;
    let started_at = now_rfc3339();
    let mut environment = crate::env::fingerprint();
    comparison.plan.fastest_canary = calibrate_canary(&mut environment, store.as_mut());
    let bar = rounds_bar(args.quiet);
    let started = Instant::now();
    crate::measure::host::start();
    let results = crate::ab::measure(&comparison, &|done, max| {
        bar.set_length(max as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    environment.host = crate::measure::host::finish();
    environment.bounds = crate::runner::bounds_seen();
    let finding = crate::ab::finding(&comparison, &results, started.elapsed());
    let suite = comparison.plan.targets.clone();
    let mut run = finished_run(started_at, args.label.clone(), suite, environment, results);
    run.verdicts = finding
        .map(|f| Verdict::of(&run.results[0].scenario, f))
        .into_iter()
        .collect();
    let kept = store.as_mut().map_or(Ok(()), |store| {
        keep(store, &run, &args.db, args.quiet, None)
    });
    print_outcome(args, &run)?;
    if let Some(path) = &args.json {
        report::write(outputs.take_or_make("--json", path)?, &JsonReporter, &run)?;
    }
    kept?;
    let failed = run.results.iter().any(|r| r.status == Status::Failed);
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A bar over the rounds, hidden with `--quiet` or off a terminal.
fn rounds_bar(quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} round {pos} of at most {len} [{elapsed}]",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner());
    let bar = indicatif::ProgressBar::new(0).with_style(style);
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Each case's headline, and the finding (or why there is none).
fn print_outcome(args: &AbArgs, run: &Run) -> anyhow::Result<()> {
    if args.quiet || args.json.as_deref() == Some(Path::new("-")) {
        return Ok(());
    }
    let mut text = String::new();
    for (which, r) in ["A", "B"].iter().zip(&run.results) {
        let headline = r
            .headline_metric()
            .map(|(name, m)| format!("{name} {}", crate::format::human(m.value, &m.unit)));
        let said = match (r.status, headline) {
            (Status::Ok, Some(h)) => h,
            (status, _) => format!(
                "{}: {}",
                status.as_str(),
                crate::format::printable_text(r.reason.as_deref().unwrap_or(""))
            ),
        };
        text += &format!(
            "{which}: {} {}  {said}\n",
            r.scenario,
            crate::format::case_label(&r.case)
        );
    }
    text += match run.verdicts.first() {
        Some(v) => &v.text,
        None => "no verdict: a case did not complete its rounds",
    };
    text.push('\n');
    if let Some(host) = crate::report::host_line(run) {
        text += &format!("{host}\n");
    }
    super::out(&text)
}
