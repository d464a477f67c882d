//! The matrix on the terminal, within 100 columns: the kernels numbered
//! above it (K1, K2, ... with how each ran), one line per claim with a
//! short verdict per kernel, `*` after a cell whose verdict turned by the
//! kernel and `~` by the guest, and below it each turn with its cause and
//! the kernels to bisect, wrapped to the same width.

use super::{Cause, Cell, Matrix};
use std::io::Write;

/// The terminal's width the matrix keeps within.
pub(crate) const WIDTH: usize = 100;
const CELL: usize = 15;

pub(crate) fn write(out: &mut dyn Write, m: &Matrix) -> std::io::Result<()> {
    writeln!(out, "== Claims across {} kernels ==", m.columns.len())?;
    for (i, c) in m.columns.iter().enumerate() {
        let line = format!("K{} {} ({}, run {})", i + 1, c.kernel, c.ran, c.run_id);
        wrapped(out, &line, "     ")?;
    }
    let id_width = m.rows.iter().map(|r| r.id.len()).max().unwrap_or(5).min(30);
    let per_block = ((WIDTH - id_width - 1) / CELL).max(1);
    let blocks: Vec<usize> = (0..m.columns.len()).step_by(per_block).collect();
    for start in blocks {
        let end = (start + per_block).min(m.columns.len());
        write!(out, "\n{:<id_width$} ", "claim")?;
        for k in start..end {
            write!(out, "{:<CELL$}", format!("K{}", k + 1))?;
        }
        writeln!(out)?;
        for row in &m.rows {
            let mut line = format!(
                "{:<id_width$} ",
                crate::format::printable(&row.id, id_width)
            );
            for cell in &row.cells[start..end] {
                line.push_str(&format!("{:<CELL$}", short(cell)));
            }
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    writeln!(
        out,
        "\n* the verdict turned with the kernel, ~ with the guest's machine (not the kernel)"
    )?;
    write_turns(out, m)
}

fn write_turns(out: &mut dyn Write, m: &Matrix) -> std::io::Result<()> {
    writeln!(
        out,
        "{} of {} claims turned with the kernel, {} with the guest",
        distinct(m, true),
        m.rows.len(),
        distinct(m, false)
    )?;
    for t in &m.turns {
        let mark = if t.cause.is_kernel() { "*" } else { "~" };
        let mut line = format!(
            "{mark} {}: {} from {} to {}: {}",
            t.claim,
            t.verdicts,
            t.from,
            t.to,
            t.cause.text()
        );
        if let Some(b) = t
            .bisect
            .as_ref()
            .map(|b| b.text())
            .filter(|b| !b.is_empty())
        {
            line.push_str(&format!("; bisect: {b}"));
        }
        wrapped(out, &line, "    ")?;
    }
    if m.turns.is_empty() {
        writeln!(out, "no claim's verdict turned between adjacent kernels")?;
    }
    Ok(())
}

/// How many claims turned (with the kernel, or with the guest).
fn distinct(m: &Matrix, kernel: bool) -> usize {
    let mut ids: Vec<&str> = m
        .turns
        .iter()
        .filter(|t| t.cause.is_kernel() == kernel)
        .map(|t| t.claim.as_str())
        .collect();
    ids.dedup();
    ids.len()
}

/// A cell in at most CELL - 1 characters: its verdict, shortened, and its mark.
fn short(cell: &Cell) -> String {
    let verdict = match cell.verdict.as_str() {
        v if v.starts_with("not judged") => "not judged",
        v if v.starts_with("inconclusive") => "inconclusive",
        "not answered" => "-",
        v => v,
    };
    let mark = match &cell.turn {
        Some(Cause::Guest(_)) => "~",
        Some(_) => "*",
        None => "",
    };
    format!("{verdict}{mark}")
}

fn wrapped(out: &mut dyn Write, line: &str, indent: &str) -> std::io::Result<()> {
    let line = crate::format::printable(line, usize::MAX);
    let options = textwrap::Options::new(WIDTH).subsequent_indent(indent);
    for part in textwrap::wrap(&line, options) {
        writeln!(out, "{part}")?;
    }
    Ok(())
}
