//! `iolab claims --across RUN...`: each claim's verdict over several stored
//! runs, one line per run under the claim with its margin and figure, and
//! the claim marked when the runs disagree (`opposite` when one says holds
//! and another does not hold). Stability is a figure too.

use super::render::margin_line;
use crate::model::ClaimVerdict;
use serde::Serialize;
use std::io::Write;

/// One stored run's claims, as `--across` shows them.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct RunClaims {
    pub(crate) run_id: String,
    /// How the user named it, e.g. `latest~1`.
    pub(crate) selector: String,
    pub(crate) claims: Vec<ClaimVerdict>,
}

/// How the runs' verdicts on one claim compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agreement {
    Same,
    Differs,
    /// One run says holds, another does not hold.
    Opposite,
}

impl Agreement {
    fn as_str(self) -> &'static str {
        match self {
            Agreement::Same => "same",
            Agreement::Differs => "DIFFERS",
            Agreement::Opposite => "DIFFERS (opposite verdicts)",
        }
    }
}

/// The claims' ids in order of first appearance over `runs`.
fn ids(runs: &[RunClaims]) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::new();
    for c in runs.iter().flat_map(|r| &r.claims) {
        if !ids.contains(&c.id.as_str()) {
            ids.push(&c.id);
        }
    }
    ids
}

/// How the verdicts on `id` compare (a run that did not answer it differs).
pub(crate) fn agreement(runs: &[RunClaims], id: &str) -> Agreement {
    use crate::model::ClaimStatus::{DoesNotHold, Holds};
    let answers: Vec<Option<&ClaimVerdict>> = runs
        .iter()
        .map(|r| r.claims.iter().find(|c| c.id == id))
        .collect();
    let texts: Vec<Option<String>> = answers
        .iter()
        .map(|a| a.map(ClaimVerdict::verdict_text))
        .collect();
    if texts.windows(2).all(|w| w[0] == w[1]) {
        return Agreement::Same;
    }
    let says = |s| answers.iter().flatten().any(|c| c.verdict == s);
    match says(Holds) && says(DoesNotHold) {
        true => Agreement::Opposite,
        false => Agreement::Differs,
    }
}

pub(crate) fn write(out: &mut dyn Write, runs: &[RunClaims]) -> std::io::Result<()> {
    writeln!(out, "== Claims across {} runs ==", runs.len())?;
    let ids = ids(runs);
    let mut differ: Vec<&str> = Vec::new();
    for id in &ids {
        let agreement = agreement(runs, id);
        if agreement != Agreement::Same {
            differ.push(id);
        }
        writeln!(out, "{id:<24} {}", agreement.as_str())?;
        for run in runs {
            write_run(out, run, id)?;
        }
    }
    let list = match differ.is_empty() {
        true => String::new(),
        false => format!(": {}", differ.join(", ")),
    };
    writeln!(
        out,
        "{} of {} claims differ across the runs{list}",
        differ.len(),
        ids.len()
    )
}

/// One run's line under a claim: run, verdict, margin and figure.
fn write_run(out: &mut dyn Write, run: &RunClaims, id: &str) -> std::io::Result<()> {
    let name = format!("{} ({})", run.run_id, run.selector);
    let Some(c) = run.claims.iter().find(|c| c.id == id) else {
        return writeln!(out, "  {name:<36} not answered");
    };
    writeln!(out, "  {name:<36} {:<31} {}", c.verdict_text(), c.figure)?;
    if let Some(line) = margin_line(c) {
        writeln!(out, "  {:<36} {:<31} {line}", "", "")?;
    }
    Ok(())
}
