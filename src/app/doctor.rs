//! `iolab doctor`'s pipeline: the arguments checked (bad input: exit 2,
//! nothing started), the program started or found, watched under a
//! spinner, diagnosed, the alternatives of its busiest channels measured
//! under a bar each, placement tried when asked, the text printed and the
//! JSON written; the exit status is the command's own.

use crate::cli::DoctorArgs;
use crate::doctor::{self, Diagnosis, Ending};
use std::io::IsTerminal;
use std::process::ExitCode;

pub(super) fn doctor(args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let mut plan = doctor::check(args)?;
    crate::exec::cleanup::install()?;
    let mut target = doctor::target(&plan, args.children)?;
    let bar = spinner(args.quiet);
    let seen = doctor::watch(&mut target, plan.for_ns, plan.duty, &|ns| {
        bar.set_message(format!("watched {}", crate::format::human(ns as f64, "ns")));
        bar.tick();
    });
    bar.finish_and_clear();
    let mut diagnosis = doctor::diagnose(&seen);
    if seen.ending != Ending::Interrupted {
        diagnosis.alternatives = alternatives(&diagnosis, &plan, args.quiet);
    }
    if plan.placement_pairs > 0 {
        diagnosis.placement = Some(doctor::try_placement(&plan, &diagnosis));
    }
    if !args.quiet {
        let text = crate::format::printable_text(&doctor::render(&diagnosis));
        crate::stdout::print(&text)?;
    }
    if let Some(output) = plan.json.take() {
        let text = serde_json::to_string_pretty(&crate::model::Document::new(&diagnosis))? + "\n";
        output.write(|out| Ok(out.write_all(text.as_bytes())?))?;
    }
    Ok(status(&diagnosis))
}

/// The alternatives of the channels worth measuring, each under a bar of
/// its rounds; a channel whose options cannot be measured says why on
/// stderr and the rest go on.
fn alternatives(d: &Diagnosis, plan: &doctor::Plan, quiet: bool) -> Vec<doctor::Alternatives> {
    let mut found = Vec::new();
    for c in doctor::worth_measuring(d, plan) {
        if crate::cancel::cancelled() {
            break;
        }
        let shown = crate::format::printable(&c.label, 200);
        let bar = rounds_bar(quiet, &shown);
        let measured = doctor::measure_alternatives(
            &c.label,
            &c.pattern,
            c.channel.ceiling.as_ref(),
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

/// A bar over one channel's rounds, hidden with `--quiet` or off a terminal.
fn rounds_bar(quiet: bool, label: &str) -> indicatif::ProgressBar {
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

/// A spinner with the time watched, hidden with `--quiet` or off a terminal.
fn spinner(quiet: bool) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_message("watching");
    bar
}

/// 128 + the signal after Ctrl-C; else the command's own exit status
/// under `-- CMD`, 0 after `--pid`.
fn status(d: &Diagnosis) -> ExitCode {
    if let Some(signal) = crate::cancel::cancelled_by() {
        return ExitCode::from(crate::error::Interrupted(signal).exit_status());
    }
    match d.exit_status {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX)),
        None => ExitCode::SUCCESS,
    }
}
