//! The "Claims" section as text: one line per claim with its verdict and
//! the figure that decided it, then its margin and the precision it got,
//! what would decide it when inconclusive, the original's figure, the form
//! of the rule, the kernel the run measured on (some verdicts change with
//! it) and the kernel profile's evidence when the claim has some. The
//! table reporter and `iolab claims` both print it, grouped by seed
//! (E1..E6), each seed's myths that turned out false first (`by_seed`).

use super::margin;
use crate::model::{ClaimStatus, ClaimVerdict};
use std::io::Write;

/// The claims grouped by seed in the seeds' order, and within a seed the
/// *myth?* claims that do not hold first; otherwise in the order given.
pub(crate) fn by_seed(claims: &[ClaimVerdict]) -> Vec<&ClaimVerdict> {
    let mut out: Vec<&ClaimVerdict> = claims.iter().collect();
    out.sort_by_key(|c| (c.source.clone(), !refuted_myth(c)));
    out
}

/// A *myth?* claim that does not hold here.
pub(crate) fn refuted_myth(c: &ClaimVerdict) -> bool {
    super::is_myth(&c.id) && c.verdict == ClaimStatus::DoesNotHold
}

/// The section, or nothing when the run answered no claim; `kernel` is
/// the run's (`environment.kernel`), empty when unknown.
pub(crate) fn write(
    out: &mut dyn Write,
    claims: &[ClaimVerdict],
    kernel: &str,
) -> std::io::Result<()> {
    if claims.is_empty() {
        return Ok(());
    }
    writeln!(out, "== Claims ==")?;
    let mut seed = "";
    for c in by_seed(claims) {
        if c.source != seed {
            seed = &c.source;
            writeln!(out, "-- {seed} --")?;
        }
        writeln!(out, "{:<26} {:<13} {}", c.id, c.verdict_text(), c.figure)?;
        let mut below = |text: String| writeln!(out, "{:<26} {:<13} {text}", "", "");
        if let Some(line) = margin_line(c) {
            below(line)?;
        }
        if let Some(decide) = &c.to_decide {
            below(format!("to decide: {decide}"))?;
        }
        below(format!("original: {}", c.original))?;
        if !c.form.is_empty() {
            below(format!("form: {}", c.form))?;
        }
        if !kernel.is_empty() {
            below(format!("measured on kernel {kernel}"))?;
        }
        if let Some(evidence) = &c.kernel_evidence {
            below(evidence.clone())?;
        }
    }
    Ok(())
}

/// "margin 3.2; ±1.0% (noatime) and ±0.8% (default) after 3 repetitions".
pub(crate) fn margin_line(c: &ClaimVerdict) -> Option<String> {
    let m = margin::text(c.margin?);
    Some(match &c.precision {
        Some(p) => format!("{m}; {p}"),
        None => m,
    })
}
