//! The view `iolab run` prints by default: what a reader needs to see the
//! answer, within 100 columns. Each scenario's cases one row each, with
//! the placements (and, where they fit, the message sizes) side by side as
//! columns, so a mechanism reads across; failures and flags named; the
//! unsupported cases one line per reason; the noise guard's grades one
//! line per scenario. Every column and note per case is `--verbose`'s, and
//! the report's.

use super::table::{headline_cell, status_style};
use crate::compare::printed_names;
use crate::format::{case_label, plural, size};
use crate::model::{CaseResult, Grade, Status};
use comfy_table::{CellAlignment, ContentArrangement, Table};
use std::collections::BTreeMap;
use std::io::Write;

/// The widest the compact view gets.
pub(super) const WIDTH: u16 = 100;

/// Past this many columns of values, sizes stay in the case's name.
const MAX_VALUE_COLUMNS: usize = 6;

/// A parameter shown as columns instead of in each case's name.
struct Axis {
    key: String,
    /// The values in order of first appearance, as the names show them.
    values: Vec<String>,
}

/// Parameters that say which case a row is, never a column.
const ROW_KEYS: [&str; 4] = ["mech", "poller", "copier", "repeat"];

/// The part of `name` that shows `r`'s `key`: `same-cpu`, `idle=100`,
/// `4 KiB`; None when the name does not show it.
fn part<'a>(r: &CaseResult, key: &str, name: &'a str) -> Option<&'a str> {
    let value = r.params.get(key)?;
    let text = value
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| value.to_string());
    let sized = value.as_u64().map(size);
    let candidates = [Some(format!("{key}={text}")), Some(text), sized];
    name.split('/')
        .find(|p| candidates.iter().flatten().any(|c| c == p))
}

/// One candidate axis: `key`'s parts over every result, when each name
/// shows it and it takes 2 to `MAX_VALUE_COLUMNS` values.
fn axis(key: &str, results: &[&CaseResult], names: &[String]) -> Option<Axis> {
    let mut values: Vec<String> = Vec::new();
    for (r, name) in results.iter().zip(names) {
        let v = part(r, key, name)?.to_string();
        if !values.contains(&v) {
            values.push(v);
        }
    }
    (2..=MAX_VALUE_COLUMNS)
        .contains(&values.len())
        .then(|| Axis {
            key: key.to_string(),
            values,
        })
}

/// The axes the results are laid out along: the placement first, then
/// the parameters with the fewest values, while the columns fit and every
/// case keeps a cell of its own.
fn axes(results: &[&CaseResult], names: &[String]) -> Vec<Axis> {
    let mut keys: Vec<&str> = Vec::new();
    for r in results {
        for key in r.params.keys() {
            if !ROW_KEYS.contains(&key.as_str()) && !keys.contains(&key.as_str()) {
                keys.push(key);
            }
        }
    }
    let mut candidates: Vec<Axis> = keys
        .iter()
        .filter_map(|k| axis(k, results, names))
        .collect();
    candidates.sort_by_key(|a| (a.key != "placement", a.values.len()));
    let mut chosen: Vec<Axis> = Vec::new();
    for candidate in candidates {
        let columns: usize = chosen.iter().map(|a| a.values.len()).product();
        if columns * candidate.values.len() > MAX_VALUE_COLUMNS {
            continue;
        }
        chosen.push(candidate);
        if !one_cell_each(results, names, &chosen) {
            chosen.pop();
        }
    }
    chosen
}

/// Whether no two cases land in the same row and column.
fn one_cell_each(results: &[&CaseResult], names: &[String], axes: &[Axis]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    results
        .iter()
        .zip(names)
        .all(|(r, name)| seen.insert((row_key(name, r, axes), parts(r, name, axes))))
}

/// A column's title and the axis values it holds.
type Column = (String, Vec<String>);

fn columns(axes: &[Axis]) -> Vec<Column> {
    let mut columns: Vec<Column> = vec![(String::new(), Vec::new())];
    for axis in axes {
        columns = columns
            .iter()
            .flat_map(|(title, values)| {
                axis.values.iter().map(move |v| {
                    let title = format!("{title} {v}").trim().to_string();
                    let mut values = values.clone();
                    values.push(v.clone());
                    (title, values)
                })
            })
            .collect();
    }
    columns
}

/// The parts of `name` the axes show, in the axes' order.
fn parts(r: &CaseResult, name: &str, axes: &[Axis]) -> Vec<String> {
    axes.iter()
        .filter_map(|a| part(r, &a.key, name).map(str::to_string))
        .collect()
}

/// `name` without the parts the columns show.
fn row_key(name: &str, r: &CaseResult, axes: &[Axis]) -> String {
    let hidden = parts(r, name, axes);
    let mut removed = vec![false; hidden.len()];
    let mut kept: Vec<&str> = Vec::new();
    for piece in name.split('/') {
        match hidden
            .iter()
            .zip(removed.iter_mut())
            .find(|(h, done)| !**done && h.as_str() == piece)
        {
            Some((_, done)) => *done = true,
            None => kept.push(piece),
        }
    }
    kept.join("/")
}

/// Whether every case's headline counts observations (`probe`): their
/// figures are what each call saw, and the claims say what they mean.
fn only_observations(results: &[&CaseResult]) -> bool {
    !results.is_empty()
        && results.iter().all(|r| {
            r.status == Status::Ok
                && r.headline_metric()
                    .is_some_and(|(_, m)| m.unit == "observations")
        })
}

/// One scenario's compact table and its notes.
pub(super) fn write_group(
    out: &mut dyn Write,
    heading: &str,
    results: &[&CaseResult],
    color: bool,
) -> anyhow::Result<()> {
    writeln!(out, "{heading}")?;
    let shown: Vec<&CaseResult> = results
        .iter()
        .copied()
        .filter(|r| r.status != Status::Unsupported)
        .collect();
    match only_observations(&shown) {
        true => writeln!(
            out,
            "  {} ran; what each call saw: --verbose, or the report",
            plural(shown.len(), "check")
        )?,
        false if !shown.is_empty() => writeln!(out, "{}", table(&shown, color).trim_fmt())?,
        false => {}
    }
    for line in notes(results) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn table(results: &[&CaseResult], color: bool) -> Table {
    let names = printed_names(results);
    let axes = axes(results, &names);
    let columns = columns(&axes);
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for (r, name) in results.iter().zip(&names) {
        let key = row_key(name, r, &axes);
        let values = parts(r, name, &axes);
        let at = columns.iter().position(|(_, v)| *v == values).unwrap_or(0);
        let row = match rows.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                rows.push((key, vec![String::new(); columns.len()]));
                rows.len() - 1
            }
        };
        rows[row].1[at] = paint(headline_cell(r), r.status, color);
    }
    let mut table = Table::new();
    table
        .load_preset(super::table::PRESET)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(WIDTH);
    let titles = columns.iter().map(|(t, _)| match t.is_empty() {
        true => "headline".to_string(),
        false => t.clone(),
    });
    table.set_header(std::iter::once("case".to_string()).chain(titles));
    if color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    for (key, cells) in rows {
        table.add_row(std::iter::once(key).chain(cells));
    }
    for i in 1..=columns.len() {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

fn paint(text: String, status: Status, color: bool) -> String {
    let style = status_style(status);
    match color && status != Status::Ok {
        true => format!("{style}{text}{style:#}"),
        false => text,
    }
}

/// Failures, flags and an asked precision not reached case by case, the
/// unsupported cases per reason, the noise in one line, and what
/// `--explain` and `--profile` found when they were asked for.
fn notes(results: &[&CaseResult]) -> Vec<String> {
    let names = printed_names(results);
    let mut lines = Vec::new();
    for (r, name) in results.iter().zip(&names) {
        if r.status == Status::Failed {
            let reason = r.reason.as_deref().unwrap_or("no reason recorded");
            lines.push(format!("  {name} failed: {reason}"));
        }
        if r.status != Status::Ok {
            continue;
        }
        for flag in &r.flags {
            lines.push(format!("  {name} {}: {}", flag.name, flag.reason));
        }
        lines.extend(super::trust::not_reached(r).map(|l| format!("  {name} {l}")));
    }
    lines.extend(unsupported(results).into_iter().map(|l| format!("  {l}")));
    lines.extend(noise(results).map(|l| format!("  {l}")));
    lines.extend(results.iter().filter_map(|r| super::explain_text::line(r)));
    lines.extend(results.iter().flat_map(|r| super::profile_text::lines(r)));
    lines
}

/// `unsupported (8): an in-process baseline: ... (channel, condvar)`.
fn unsupported(results: &[&CaseResult]) -> Vec<String> {
    let mut by_reason: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for r in results.iter().filter(|r| r.status == Status::Unsupported) {
        let reason = r.reason.as_deref().unwrap_or("no reason recorded");
        let first = case_label(&r.case)
            .split('/')
            .next()
            .unwrap_or("")
            .to_string();
        by_reason.entry(reason).or_default().push(first);
    }
    by_reason
        .into_iter()
        .map(|(reason, mut who)| {
            let count = who.len();
            who.sort();
            who.dedup();
            format!("unsupported ({count}): {reason} ({})", who.join(", "))
        })
        .collect()
}

/// `noise: 40 of 88 noisy, 30 disturbed (host wake-ups slower 60, other load 25); --verbose`.
fn noise(results: &[&CaseResult]) -> Option<String> {
    let ok: Vec<&CaseResult> = results
        .iter()
        .copied()
        .filter(|r| r.status == Status::Ok)
        .collect();
    let graded = |g: Grade| {
        ok.iter()
            .filter(|r| r.noise.as_ref().is_some_and(|n| n.grade == g))
            .count()
    };
    let (noisy, disturbed) = (graded(Grade::Noisy), graded(Grade::Disturbed));
    if noisy + disturbed == 0 {
        return None;
    }
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    for n in ok.iter().filter_map(|r| r.noise.as_ref()) {
        for cause in &n.causes {
            *causes.entry(super::trust::cause_kind(cause)).or_default() += 1;
        }
    }
    let mut causes: Vec<(String, usize)> = causes.into_iter().collect();
    causes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let most: Vec<String> = causes
        .iter()
        .take(3)
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    Some(format!(
        "noise: {noisy} of {} noisy, {disturbed} disturbed ({}); --verbose",
        ok.len(),
        most.join(", ")
    ))
}
