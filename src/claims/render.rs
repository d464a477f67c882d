//! The "Claims" section as text: one line per claim with its verdict and
//! the figure that decided it, the original's figure below it, and the
//! kernel profile's evidence when the claim has some. The table reporter
//! and `iolab claims` both print it.

use crate::model::ClaimVerdict;
use std::io::Write;

/// The section, or nothing when the run answered no claim.
pub(crate) fn write(out: &mut dyn Write, claims: &[ClaimVerdict]) -> std::io::Result<()> {
    if claims.is_empty() {
        return Ok(());
    }
    writeln!(out, "== Claims ==")?;
    for c in claims {
        writeln!(out, "{:<24} {:<13} {}", c.id, c.verdict.as_str(), c.figure)?;
        writeln!(out, "{:<24} {:<13} original: {}", "", "", c.original)?;
        if let Some(kernel) = &c.kernel_evidence {
            writeln!(out, "{:<24} {:<13} {kernel}", "", "")?;
        }
    }
    Ok(())
}
