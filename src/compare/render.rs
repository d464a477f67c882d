//! `iolab compare` for people: a table per scenario with both headlines,
//! the ratio, its interval and a change mark; then the cases only one run
//! has, and what could not be compared. The same cell texts serve the
//! terminal and the HTML report.

use super::{CaseComparison, Change, Comparison};
use crate::format::{human, plural, printable, ratio, STORED_WIDTH};
use comfy_table::{CellAlignment, ContentArrangement, Table};

const HEADER: [&str; 7] = ["case", "metric", "A", "B", "B/A", "95% CI", "change"];
/// Right-aligned columns of `HEADER`.
const NUMERIC: [usize; 4] = [2, 3, 4, 5];

/// The whole comparison as text; `fail_pct` adds the regression verdict.
pub(crate) fn text(c: &Comparison, fail_pct: Option<f64>) -> String {
    let mut out = format!("A: {}\nB: {}\n{}\n", name(&c.a), name(&c.b), c.test);
    let mut scenarios: Vec<&str> = Vec::new();
    for case in &c.cases {
        if !scenarios.contains(&case.scenario.as_str()) {
            scenarios.push(&case.scenario);
        }
    }
    for scenario in scenarios {
        let rows = c.cases.iter().filter(|x| x.scenario == scenario);
        out.push_str(&format!("\n== {scenario} ==\n{}\n", table(rows)));
    }
    let unmatched = unmatched_lines(c);
    if !unmatched.is_empty() {
        out.push('\n');
    }
    for line in unmatched {
        out.push_str(&format!("{line}\n"));
    }
    if let Some(pct) = fail_pct {
        out.push_str(&format!("\n{}\n", verdict(c, pct)));
    }
    out
}

fn name(run: &super::RunRef) -> String {
    match &run.label {
        Some(label) => format!("{} ({})", run.run_id, printable(label, STORED_WIDTH)),
        None => run.run_id.clone(),
    }
}

fn table<'a>(rows: impl Iterator<Item = &'a CaseComparison>) -> String {
    let mut table = Table::new();
    table
        .load_preset("     ─             ")
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty()
        .set_header(HEADER);
    for c in rows {
        table.add_row(cells(c)[1..].to_vec());
    }
    for column in NUMERIC {
        if let Some(col) = table.column_mut(column) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    table.trim_fmt()
}

/// scenario, case, metric, A, B, B/A, 95% CI, change.
pub(crate) fn cells(c: &CaseComparison) -> [String; 8] {
    let bound = |r: f64| ratio(r).trim_end_matches('x').to_string();
    let interval = match (c.ci_low, c.ci_high) {
        (Some(lo), Some(hi)) => format!("{}-{}", bound(lo), bound(hi)),
        _ => "n/a".to_string(),
    };
    [
        c.scenario.clone(),
        row_name(c),
        c.metric.clone(),
        human(c.a, &c.unit),
        human(c.b, &c.unit),
        ratio(c.ratio),
        interval,
        change(c),
    ]
}

/// The printed name, and what differs between the paired cases:
/// `poll/tcp/idle=0 (repeat 5 vs 10)`.
fn row_name(c: &CaseComparison) -> String {
    if c.differences.is_empty() {
        return c.name.clone();
    }
    let texts: Vec<String> = c.differences.iter().map(|d| d.text()).collect();
    format!("{} ({})", c.name, texts.join(", "))
}

/// `worse by 12% *`, `better by 3.1% *`, `same (n.s.)`.
fn change(c: &CaseComparison) -> String {
    let by = c.worse_pct.map(f64::abs).map(pct).unwrap_or_default();
    match c.change {
        Change::Worse => format!("worse by {by} *"),
        Change::Better => format!("better by {by} *"),
        Change::Changed => "changed *".to_string(),
        Change::NotSignificant if c.noise.is_some() => "same (n.s., noise)".to_string(),
        Change::NotSignificant => "same (n.s.)".to_string(),
        Change::Unknown => "n/a (under 2 repetitions)".to_string(),
    }
}

fn pct(value: f64) -> String {
    if value < 10.0 {
        format!("{value:.1}%")
    } else {
        format!("{value:.0}%")
    }
}

/// The cases not compared (unmatched.rs).
pub(crate) fn unmatched_lines(c: &Comparison) -> Vec<String> {
    super::unmatched::lines(c)
}

/// The `--fail-on-regression` verdict line.
pub(crate) fn verdict(c: &Comparison, pct: f64) -> String {
    let regressed: Vec<String> = c
        .cases
        .iter()
        .filter(|x| x.regressed(pct))
        .map(|x| format!("{} {}", x.scenario, row_name(x)))
        .collect();
    if regressed.is_empty() {
        format!("no case got significantly worse by more than {pct}%")
    } else {
        format!(
            "REGRESSION: {} significantly worse by more than {pct}%: {}",
            plural(regressed.len(), "case"),
            regressed.join(", ")
        )
    }
}
