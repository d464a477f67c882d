//! The claims across kernels (`run --kernel`, `claims --across --kernels`):
//! one row per claim, one column per kernel in version order, and the
//! cells where a claim's verdict turns between adjacent columns marked
//! with the cause: a known upstream change (`seeds/eN`'s `CHANGES`: the
//! version and the commit), a fact of the machine the claim reads that the
//! guest did not share with the other column (its memory: not a kernel
//! change), two builds of one version (their configuration), or
//! "changed between A and B" with the kernels at hand to bisect next
//! (`bisect.rs`). Only verdicts turn: an inconclusive or not-judged cell
//! beside a verdict is shown, never marked. `render.rs` prints it.

pub(crate) mod bisect;
pub(crate) mod render;

use super::engine::change::{KernelChange, MachineFact};
use crate::model::{ClaimStatus, ClaimVerdict, Environment};
use serde::Serialize;

/// One kernel's run, as a column of the matrix.
pub(crate) struct KernelRun<'a> {
    pub(crate) run_id: &'a str,
    pub(crate) environment: &'a Environment,
    pub(crate) claims: &'a [ClaimVerdict],
}

/// The matrix, columns in version order.
#[derive(Debug, Serialize)]
pub(crate) struct Matrix {
    pub(crate) columns: Vec<Column>,
    pub(crate) rows: Vec<Row>,
    /// Every marked turn, in row order.
    pub(crate) turns: Vec<Turn>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Column {
    /// The kernel's release, e.g. "6.1.0-56-amd64".
    pub(crate) kernel: String,
    pub(crate) run_id: String,
    /// "host", or the guest: "guest, emulated, 2 CPUs, 4.0 GiB".
    pub(crate) ran: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) source: String,
    pub(crate) claim: String,
    pub(crate) cells: Vec<Cell>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Cell {
    /// "holds", "not judged: emulated CPU", "not answered".
    pub(crate) verdict: String,
    /// The verdict's status; none where the run did not answer.
    pub(crate) status: Option<ClaimStatus>,
    pub(crate) figure: String,
    /// How this cell's verdict turned from the previous column's.
    pub(crate) turn: Option<Cause>,
}

/// Why a verdict turned between two adjacent columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "text", rename_all = "kebab-case")]
pub(crate) enum Cause {
    /// A known upstream change: "Linux 6.15: pipe: ... (f017b0a4951f)", its source.
    Known(String, String),
    /// No known change: "changed between 6.1.0-56-rt-amd64 and 6.18.44".
    Unknown(String),
    /// Two builds of one version: their configuration.
    Build(String),
    /// The machine, not the kernel: "memory 1.0 GiB vs 23.4 GiB".
    Guest(String),
}

impl Cause {
    /// A kernel change: known, unknown or between two builds.
    pub(crate) fn is_kernel(&self) -> bool {
        !matches!(self, Cause::Guest(_))
    }

    pub(crate) fn text(&self) -> String {
        match self {
            Cause::Known(change, source) => format!("{change} (source: {source})"),
            Cause::Unknown(t) | Cause::Build(t) => t.clone(),
            Cause::Guest(t) => format!("the guest, not the kernel: {t}"),
        }
    }
}

/// One marked turn: the claim, the two columns and the cause, with what
/// to bisect for a kernel change.
#[derive(Debug, Serialize)]
pub(crate) struct Turn {
    pub(crate) claim: String,
    pub(crate) from: String,
    pub(crate) to: String,
    /// "holds -> does not hold".
    pub(crate) verdicts: String,
    pub(crate) cause: Cause,
    pub(crate) bisect: Option<bisect::Bisect>,
}

/// The version numbers a kernel release starts with: "6.1.0-56-amd64" is
/// [6, 1, 0]; "6.15" is [6, 15].
pub(crate) fn version(release: &str) -> Vec<u64> {
    let head = release.split(['-', '+', ' ']).next().unwrap_or("");
    head.split('.').map_while(|p| p.parse().ok()).collect()
}

/// Compares versions with missing parts as 0 (6.15 == 6.15.0).
fn cmp_versions(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    (0..n)
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// Orders kernel releases by version, then by name.
pub(crate) fn cmp_releases(a: &str, b: &str) -> std::cmp::Ordering {
    cmp_versions(&version(a), &version(b)).then_with(|| a.cmp(b))
}

/// The matrix of `runs`; `images` are the other kernels at hand, which
/// bisecting may suggest.
pub(crate) fn build(runs: &[KernelRun], images: &[String]) -> Matrix {
    let mut runs: Vec<&KernelRun> = runs.iter().collect();
    runs.sort_by(|a, b| cmp_releases(&a.environment.kernel, &b.environment.kernel));
    let columns = runs.iter().map(|r| column(r)).collect();
    let mut rows = Vec::new();
    let mut turns = Vec::new();
    for claim in super::CLAIMS.iter() {
        let answers: Vec<Option<&ClaimVerdict>> = runs
            .iter()
            .map(|r| r.claims.iter().find(|c| c.id == claim.id))
            .collect();
        let Some(first) = answers.iter().flatten().next() else {
            continue;
        };
        let mut cells: Vec<Cell> = answers.iter().map(|a| cell(*a)).collect();
        for i in 1..runs.len() {
            let (Some(a), Some(b)) = (answers[i - 1], answers[i]) else {
                continue;
            };
            if !turned(a, b) {
                continue;
            }
            let cause = cause(
                claim.id,
                runs[i - 1].environment,
                runs[i].environment,
                b.verdict,
            );
            let (from, to) = (&runs[i - 1].environment.kernel, &runs[i].environment.kernel);
            let bisect =
                matches!(cause, Cause::Unknown(_)).then(|| bisect::suggest(from, to, images));
            cells[i].turn = Some(cause.clone());
            turns.push(Turn {
                claim: claim.id.to_string(),
                from: from.clone(),
                to: to.clone(),
                verdicts: format!("{} -> {}", a.verdict.as_str(), b.verdict.as_str()),
                cause,
                bisect,
            });
        }
        rows.push(Row {
            id: claim.id.to_string(),
            source: first.source.clone(),
            claim: first.claim.clone(),
            cells,
        });
    }
    Matrix {
        columns,
        rows,
        turns,
    }
}

/// Two answers whose verdicts turned: both a verdict, and not the same.
fn turned(a: &ClaimVerdict, b: &ClaimVerdict) -> bool {
    let verdict = |c: &ClaimVerdict| c.verdict != ClaimStatus::Inconclusive;
    verdict(a) && verdict(b) && a.verdict != b.verdict
}

/// Why `claim` turned to `became` from kernel `a` to kernel `b`.
fn cause(claim: &str, a: &Environment, b: &Environment, became: ClaimStatus) -> Cause {
    let facts: Vec<MachineFact> = super::seeds::reads_machine()
        .into_iter()
        .filter(|r| r.claim == claim)
        .map(|r| r.fact)
        .collect();
    let differ: Vec<String> = facts
        .iter()
        .filter(|f| f.of(a) != f.of(b))
        .map(|f| {
            format!(
                "{} {} on {} vs {} on {}",
                f.name(),
                f.of(a),
                a.kernel,
                f.of(b),
                b.kernel
            )
        })
        .collect();
    if !differ.is_empty() {
        return Cause::Guest(differ.join("; "));
    }
    let (va, vb) = (version(&a.kernel), version(&b.kernel));
    if cmp_versions(&va, &vb).is_eq() {
        return Cause::Build(format!(
            "two builds of one version ({} and {}): their configuration",
            a.kernel, b.kernel
        ));
    }
    let known = super::seeds::kernel_changes().into_iter().find(|k| {
        let v = version(k.version);
        k.claim == claim
            && k.became == became
            && cmp_versions(&va, &v).is_lt()
            && cmp_versions(&v, &vb).is_le()
    });
    match known {
        Some(k) => known_cause(k),
        None => Cause::Unknown(format!("changed between {} and {}", a.kernel, b.kernel)),
    }
}

fn known_cause(k: &KernelChange) -> Cause {
    Cause::Known(k.describe(), k.source.to_string())
}

fn column(run: &KernelRun) -> Column {
    let env = run.environment;
    let ran = match &env.guest {
        None => "host".to_string(),
        Some(g) => format!(
            "guest, {}, {}, {}",
            g.accel,
            crate::format::plural(g.cpus, "CPU"),
            crate::format::binary_size(g.memory_bytes as f64, 1)
        ),
    };
    Column {
        kernel: crate::format::printable(&env.kernel, crate::format::STORED_WIDTH),
        run_id: run.run_id.to_string(),
        ran,
    }
}

fn cell(answer: Option<&ClaimVerdict>) -> Cell {
    match answer {
        Some(c) => Cell {
            verdict: c.verdict_text(),
            status: Some(c.verdict),
            figure: c.figure.clone(),
            turn: None,
        },
        None => Cell {
            verdict: "not answered".into(),
            status: None,
            figure: String::new(),
            turn: None,
        },
    }
}

#[cfg(test)]
mod tests;
