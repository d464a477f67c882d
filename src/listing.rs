//! The text of `iolab list` and `iolab history`: what this build can run,
//! what this machine supports, and what the store holds.

use crate::error::{UsageError, UsageResult};
use crate::format::{self, printable, STORED_WIDTH};
use crate::measure::pin::{self, Placement, ALL_PLACEMENTS};
use crate::mechanism::{self, Mechanism, Support};
use crate::scenario::{self, suite, Scenario};
use crate::store::RunSummary;
use comfy_table::{presets::NOTHING, Table};
use std::fmt::Write;

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING).set_header(header.to_vec());
    t
}

pub(crate) fn overview() -> String {
    let mut out = String::new();
    let mut scenarios = table(&["scenario", "what it measures"]);
    for s in scenario::ALL {
        scenarios.add_row(vec![s.name(), s.about()]);
    }
    let mechs = mechanism_table();
    let pollers = support_table(
        "poller",
        crate::poller::ALL
            .iter()
            .map(|p| (p.name(), p.support(), p.about())),
    );
    let copiers = support_table(
        "copier",
        crate::copier::ALL
            .iter()
            .map(|c| (c.name(), c.support(), c.about())),
    );
    let mut suites = table(&["suite", "what it runs"]);
    for s in suite::ALL {
        let mut names: Vec<&str> = s.entries.iter().map(|e| e.scenario).collect();
        names.dedup();
        suites.add_row(vec![
            s.name.to_string(),
            format!("{} ({})", s.about, names.join(", ")),
        ]);
    }
    let _ = writeln!(
        out,
        "{scenarios}\n\n{mechs}\n\n{pollers}\n\n{copiers}\n\n{suites}\n\n{}",
        placements()
    );
    out.push_str("\n`iolab list --scenario NAME` shows a scenario's parameters and metrics.\n");
    out
}

/// One row per implementation of a seam: its name, whether this machine
/// supports it (and why not), and what it is.
fn support_table<'a>(kind: &str, rows: impl Iterator<Item = (&'a str, Support, &'a str)>) -> Table {
    let mut t = table(&[kind, "here", "what it is"]);
    for (name, here, about) in rows {
        t.add_row(vec![name.to_string(), support(here), about.to_string()]);
    }
    t
}

/// One row per mechanism: beside whether it runs here, what it carries,
/// whether messages keep their boundaries, the largest message on this
/// machine, and whether its ends may be processes and threads.
fn mechanism_table() -> Table {
    let mut t = table(&[
        "mechanism",
        "here",
        "carries",
        "boundaries",
        "max message",
        "sides",
        "what it is",
    ]);
    for m in mechanism::ALL {
        t.add_row(mechanism_row(*m));
    }
    t
}

fn mechanism_row(m: &dyn Mechanism) -> Vec<String> {
    let caps = m.caps();
    let (carries, boundaries) = match (caps.counter, caps.boundaries, caps.reliable) {
        (true, _, _) => ("notification", "counts (may add up)"),
        (false, true, true) => ("data", "kept"),
        (false, true, false) => ("data", "kept, may be dropped"),
        (false, false, _) => ("data", "none (byte stream)"),
    };
    let max = match m.max_message() {
        usize::MAX => "unlimited".to_string(),
        0 => "-".to_string(),
        n => format::size(n as u64),
    };
    vec![
        m.name().to_string(),
        support(m.support()),
        carries.to_string(),
        boundaries.to_string(),
        max,
        sides(m),
        m.about().to_string(),
    ]
}

/// "processes, threads", or the one mode left and why the other is not.
fn sides(m: &dyn Mechanism) -> String {
    match (m.in_processes(), m.in_threads()) {
        (Support::Yes, Support::Yes) => "processes, threads".to_string(),
        (Support::Yes, Support::No(why)) => format!("processes (threads: {why})"),
        (Support::No(why), Support::Yes) => format!("threads (processes: {why})"),
        (Support::No(p), Support::No(t)) => format!("none (processes: {p}; threads: {t})"),
    }
}

fn support(s: Support) -> String {
    match s {
        Support::Yes => "yes".to_string(),
        Support::No(why) => format!("no: {why}"),
    }
}

fn placements() -> String {
    let mut lines = vec![
        "placements (--placement; a topology class takes its lowest-numbered allowed CPU pair):"
            .to_string(),
    ];
    for p in ALL_PLACEMENTS {
        let here = match pin::choose(p) {
            Ok([Some(a), Some(b)]) => format!("CPUs {a}|{b} here"),
            Ok(_) => "wherever the scheduler puts them".to_string(),
            Err(why) => format!("not here: {why}"),
        };
        let what = match p {
            Placement::SameCpu => "both sides pinned to one CPU",
            Placement::CrossCpu => "the sides pinned to two different CPUs",
            Placement::Unpinned => "no pinning",
            Placement::Topology(class) => class.about(),
        };
        lines.push(format!("  {:<11} {what} ({here})", p.name()));
    }
    lines.join("\n") + "\n"
}

pub(crate) fn scenario(name: &str) -> UsageResult<String> {
    let s = scenario::find(name).ok_or_else(|| {
        UsageError::new(format!(
            "unknown scenario '{name}': expected one of {}",
            scenario::names().join(", ")
        ))
    })?;
    let mut out = format!("{}: {}\n\n", s.name(), s.about());
    let mut params = table(&["parameter", "default", "values", "meaning"]);
    for p in s.params() {
        params.add_row(vec![
            p.name.to_string(),
            p.default.to_string(),
            p.kind.expected(),
            p.about.to_string(),
        ]);
    }
    let mut metrics = table(&["metric", "unit", "meaning"]);
    for m in s.metrics() {
        metrics.add_row(vec![m.name, m.unit, m.about]);
    }
    let _ = writeln!(out, "{params}\n\n{metrics}\n");
    out.push_str(&suites_using(s));
    if s.uses_mechanisms() {
        out.push_str("\nRuns over every mechanism (--mech) and placement (--placement); a list value sweeps.\n");
    }
    Ok(out)
}

fn suites_using(s: &dyn Scenario) -> String {
    let mut out = String::new();
    for suite in suite::ALL {
        for entry in suite.entries.iter().filter(|e| e.scenario == s.name()) {
            let params: Vec<String> = entry
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let _ = writeln!(
                out,
                "in suite {}: {}",
                suite.name,
                if params.is_empty() {
                    "defaults".into()
                } else {
                    params.join(" ")
                }
            );
        }
    }
    out
}

pub(crate) fn history(runs: &[RunSummary]) -> String {
    if runs.is_empty() {
        return "no runs stored yet: `iolab run` makes one\n".to_string();
    }
    let mut t = table(&[
        "run", "started", "label", "suite", "host", "kernel", "results", "failed",
    ]);
    for r in runs {
        let stored = [
            &r.run_id,
            &r.started_at,
            r.label.as_deref().unwrap_or_default(),
            r.suite.as_deref().unwrap_or_default(),
            &r.host,
            &r.kernel,
        ];
        let mut row: Vec<String> = stored.iter().map(|s| printable(s, STORED_WIDTH)).collect();
        row.extend([r.results.to_string(), r.failed.to_string()]);
        t.add_row(row);
    }
    format!("{t}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> Vec<String> {
        let row = mechanism_row(mechanism::find(name).unwrap());
        row[..6].to_vec()
    }

    #[test]
    fn mechanism_rows_say_what_each_carries_its_boundaries_size_and_sides() {
        let both = "processes, threads";
        assert_eq!(
            row("pipe"),
            [
                "pipe",
                "yes",
                "data",
                "none (byte stream)",
                "unlimited",
                both
            ]
        );
        assert_eq!(
            row("eventfd"),
            [
                "eventfd",
                "yes",
                "notification",
                "counts (may add up)",
                "8 B",
                both
            ]
        );
        assert_eq!(
            row("udp"),
            [
                "udp",
                "yes",
                "data",
                "kept, may be dropped",
                "65507 B",
                both
            ]
        );
        let why = "an in-process baseline: its two ends are threads of one process";
        assert_eq!(row("channel")[5], format!("threads (processes: {why})"));
        let header = "mechanism  here  carries  boundaries  max message  sides  what it is";
        let squeezed = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(squeezed(&overview()).contains(&squeezed(header)));
    }

    #[test]
    fn every_placement_has_a_line_with_its_pair_or_reason() {
        let text = placements();
        assert_eq!(text.lines().count(), 1 + ALL_PLACEMENTS.len());
        for p in ALL_PLACEMENTS {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{} ", p.name())))
                .unwrap_or_else(|| panic!("no line for {p} in {text}"));
            let here = match pin::choose(p) {
                Ok([Some(a), Some(b)]) => format!("(CPUs {a}|{b} here)"),
                Ok(_) => "(wherever the scheduler puts them)".to_string(),
                Err(why) => format!("(not here: {why})"),
            };
            assert!(line.ends_with(&here), "{line:?} should end with {here:?}");
        }
    }
}
