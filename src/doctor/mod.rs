//! `iolab doctor`: the lab turned on the user's own running program. It
//! finds the descriptors the program uses for IPC (`channels`), watches
//! what its threads do over them with a tracer that is on only a small
//! share of the time (`watch`, over `measure::watch`), and says what each
//! channel costs (`diagnosis`, `render`).

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

#[cfg(test)]
pub(crate) use diagnosis::Diagnosis;

use crate::cli::DoctorArgs;
use crate::error::UsageError;
use crate::exec::program::Watched;
use std::process::ExitCode;
use watch::Target;

pub(crate) fn doctor(args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let mut plan = plan::check(args)?;
    crate::exec::cleanup::install()?;
    let mut target = match plan.pid {
        Some(pid) => Target::Pid {
            pid,
            children: args.children,
        },
        None => Target::Command(
            Watched::start(&plan.command)
                .map_err(|e| UsageError::new(format!("cannot start {:?}: {e}", plan.command[0])))?,
        ),
    };
    let bar = progress(args.quiet);
    let seen = watch::watch(&mut target, plan.for_ns, plan.duty, &|ns| {
        bar.set_message(format!("watched {}", crate::format::human(ns as f64, "ns")));
        bar.tick();
    });
    bar.finish_and_clear();
    let mut diagnosis = diagnosis::diagnose(&seen);
    if seen.ending != watch::Ending::Interrupted {
        diagnosis.alternatives = measure_alternatives(&diagnosis, &plan, args.quiet);
    }
    if plan.placement_pairs > 0 {
        diagnosis.placement = Some(try_placement(&plan, &diagnosis));
    }
    if !args.quiet {
        crate::stdout::print(&crate::format::printable_text(&render::render(&diagnosis)))?;
    }
    if let Some(output) = plan.json.take() {
        write_json(output, &diagnosis)?;
    }
    Ok(status(&diagnosis))
}

/// Below this ceiling no transport would help enough to be worth
/// measuring: the alternatives are not run. Their rounds resolve about
/// 10% on a busy host (an A/A comparison's 99.5% interval spans
/// 0.92-1.06), so a smaller gain could not be shown by them.
const WORTH_MEASURING: f64 = 1.10;

/// The alternatives of the busiest channels (by the program's time in
/// their calls) that moved bytes, have an iolab mechanism and a ceiling
/// worth measuring; a channel whose options cannot be measured says why
/// on stderr and the rest go on.
fn measure_alternatives(
    d: &diagnosis::Diagnosis,
    plan: &plan::Plan,
    quiet: bool,
) -> Vec<alternatives::Alternatives> {
    let patterns = d
        .channels
        .iter()
        .filter(|c| {
            c.ceiling
                .as_ref()
                .is_some_and(|x| x.at_most >= WORTH_MEASURING)
        })
        .filter_map(|c| Some((c, alternatives::pattern_of(c, &d.channels)?)));
    let mut found = Vec::new();
    for (c, pattern) in patterns.take(plan.alternatives) {
        if crate::cancel::cancelled() {
            break;
        }
        let label = format!("{} (pid {}), {}", c.process, c.channel.pid, c.label);
        let shown = crate::format::printable(&label, 200);
        let bar = rounds_bar(quiet, &shown);
        let measured = alternatives::measure(
            &label,
            &pattern,
            c.ceiling.as_ref(),
            plan.alternatives_time,
            &|done, max| {
                bar.set_length(max as u64);
                bar.set_position(done as u64);
            },
        );
        bar.finish_and_clear();
        match measured {
            Ok(a) => found.push(a),
            Err(e) => eprintln!(
                "alternatives of {shown}: {}",
                crate::format::printable_text(&format!("{e:#}"))
            ),
        }
    }
    found
}

/// The command run again each way, once it ran to its end; why not
/// otherwise.
fn try_placement(
    plan: &plan::Plan,
    d: &diagnosis::Diagnosis,
) -> Result<placement::PlacementTrial, String> {
    if d.ending != watch::Ending::Exited {
        return Err("the command did not run to its end while watched".into());
    }
    // A re-run far longer than the watched one is stopped.
    let limit = std::time::Duration::from_secs_f64((d.watched_s * 3.0).max(10.0));
    placement::try_placement(&plan.command, plan.placement_pairs, limit)
        .map_err(|e| format!("{e:#}"))
}

/// A bar over one channel's rounds, hidden with `--quiet` or off a terminal.
fn rounds_bar(quiet: bool, label: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let style = indicatif::ProgressStyle::with_template(&format!(
        "{{bar:30}} round {{pos}} of at most {{len}}: alternatives of {}",
        label.replace(['{', '}'], "")
    ))
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    indicatif::ProgressBar::new(0).with_style(style)
}

/// 128 + the signal after Ctrl-C; else the command's own exit status
/// under `-- CMD`, 0 after `--pid`.
fn status(d: &diagnosis::Diagnosis) -> ExitCode {
    if let Some(signal) = crate::cancel::cancelled_by() {
        return ExitCode::from(crate::error::Interrupted(signal).exit_status());
    }
    match d.exit_status {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX)),
        None => ExitCode::SUCCESS,
    }
}

fn write_json(
    output: crate::plan::outputs::Output,
    d: &diagnosis::Diagnosis,
) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(&crate::model::Document::new(d))? + "\n";
    output.write(|out| Ok(out.write_all(text.as_bytes())?))
}

/// A spinner with the time watched, hidden with `--quiet` or off a terminal.
fn progress(quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_message("watching");
    bar
}
