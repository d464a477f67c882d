//! The human-facing terminal table: one comfy-table per scenario group,
//! its verdicts right below it, and one summary line, so a run reads as a
//! short report. Failed and unsupported cases show their status and reason,
//! never a number (ARCHITECTURE.md: every result is verified).

use super::Reporter;
use crate::format::{human, plural, ratio};
use crate::model::{CaseResult, Run, Side, Status};
use anstyle::{AnsiColor, Style};
use comfy_table::{Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};
use std::io::Write;

/// Terminal table; `color` adds bold headings and red/yellow statuses.
/// Without `scenarios` only the claims and the summary line are written:
/// `run` printed each scenario's table as soon as it finished.
pub(crate) struct TableReporter {
    pub(crate) color: bool,
    pub(crate) scenarios: bool,
    /// Every column and every note under each table (`--verbose`, `show`);
    /// else the compact view (`compact.rs`).
    pub(crate) verbose: bool,
}

/// The widest the table should get: past it headers and `vs limit` wrap at
/// their spaces (see `shape_column`).
const MAX_WIDTH: u16 = 120;

/// Borderless except for a rule under the header.
pub(super) const PRESET: &str = "     ─             ";

/// Column names; `NUMERIC` marks the right-aligned ones.
pub(super) const COLUMNS: [&str; 12] = [
    "case",
    "headline",
    "metric",
    "p50",
    "p99",
    "p99.9",
    "lat",
    "cpu usr/sys",
    "csw/op",
    "vs limit",
    "cpus",
    "noise",
];
pub(super) const NUMERIC: [bool; 12] = [
    false, true, false, true, true, true, false, true, true, false, false, false,
];
pub(super) const CASE: usize = 0;
const HEADLINE: usize = 1;
const METRIC: usize = 2;
const P50: usize = 3;
const P99: usize = 4;
const P99_9: usize = 5;
const LAT: usize = 6;
const CPU: usize = 7;
const CSW: usize = 8;
const VS_LIMIT: usize = 9;
const CPUS: usize = 10;
const NOISE: usize = 11;

/// The cell texts of one result, one per entry of `COLUMNS`.
pub(super) type Texts = [String; 12];

impl Reporter for TableReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        if self.scenarios {
            for (scenario, results) in groups(&run.results) {
                let verdicts = run.verdicts.iter().filter(|v| v.scenario == scenario);
                let texts: Vec<&str> = verdicts.map(|v| v.text.as_str()).collect();
                self.write_scenario(out, scenario, &results, &texts)?;
            }
        }
        match self.verbose {
            true => crate::claims::render::write(out, &run.claims, &run.environment.kernel)?,
            false => crate::claims::render::write_compact(out, run)?,
        }
        if !run.claims.is_empty() {
            writeln!(out)?;
        }
        let all: Vec<&CaseResult> = run.results.iter().collect();
        if let Some(legend) = super::trust::legend(&all).filter(|_| !self.verbose) {
            writeln!(out, "{legend}")?;
        }
        if self.verbose {
            for (id, why) in crate::claims::render::left_out(run) {
                writeln!(out, "left out: {id}: {why}")?;
            }
        }
        if let Some(tally) = crate::claims::render::tally(run) {
            writeln!(out, "{tally}")?;
        }
        writeln!(out, "{}", summary(&run.results))?;
        if let Some(host) = host_line(run) {
            writeln!(out, "{host}")?;
        }
        Ok(())
    }
}

/// "host: busy (steal 8%): cross-CPU wake-up 85.2 us ...", for a run whose
/// host was sampled.
pub(crate) fn host_line(run: &Run) -> Option<String> {
    let state = run.environment.host.as_ref()?;
    Some(format!(
        "host: {}",
        crate::measure::host::summary(state)?.text()
    ))
}

impl TableReporter {
    /// One scenario's table with its verdicts right below it and a blank
    /// line, as `run` prints it when the scenario's last case finished.
    pub(crate) fn write_scenario(
        &self,
        out: &mut dyn Write,
        scenario: &str,
        results: &[&CaseResult],
        verdicts: &[&str],
    ) -> anyhow::Result<()> {
        self.write_group(out, scenario, results)?;
        for verdict in verdicts {
            writeln!(out, "-> {verdict}")?;
        }
        writeln!(out)?;
        Ok(())
    }

    /// Heading, table and the reasons of the results that are not ok.
    fn write_group(
        &self,
        out: &mut dyn Write,
        scenario: &str,
        results: &[&CaseResult],
    ) -> anyhow::Result<()> {
        let lat = shared(results, |r| r.latency.as_ref().map(|l| l.kind.as_str()));
        let limit = shared(results, |r| {
            r.limit_ratio.as_ref().map(|l| l.limit.as_str())
        });
        let heading = self.paint(Style::new().bold(), &format!("== {scenario} =="));
        if !self.verbose {
            let heading = format!("{heading}{}", folded(lat, None));
            return super::compact::write_group(out, &heading, results, self.color);
        }
        let rows = named_texts(results, limit.is_none());
        writeln!(out, "{heading}{}", folded(lat, limit))?;
        let columns = visible_columns(&rows, lat.is_some());
        writeln!(out, "{}", self.table(results, &rows, &columns).trim_fmt())?;
        let names: Vec<&str> = rows.iter().map(|t| t[CASE].as_str()).collect();
        self.write_notes(out, results, &names)
    }

    fn table(&self, results: &[&CaseResult], rows: &[Texts], columns: &[usize]) -> Table {
        let mut table = Table::new();
        table
            .load_preset(PRESET)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(MAX_WIDTH)
            .set_header(columns.iter().map(|&c| COLUMNS[c]));
        if self.color {
            table.enforce_styling();
        } else {
            table.force_no_tty();
        }
        for (result, texts) in results.iter().zip(rows) {
            table.add_row(
                columns
                    .iter()
                    .map(|&c| self.cell(result.status, c, &texts[c])),
            );
        }
        let gap = column_gap(rows, columns);
        for (i, &c) in columns.iter().enumerate() {
            let right = if i + 1 == columns.len() { 0 } else { gap };
            shape_column(&mut table, i, c, rows, right);
        }
        table
    }

    fn cell(&self, status: Status, column: usize, text: &str) -> Cell {
        let cell = Cell::new(text);
        match (self.color && column == HEADLINE, status) {
            (true, Status::Failed) => cell.fg(comfy_table::Color::Red),
            (true, Status::Unsupported) => cell.fg(comfy_table::Color::Yellow),
            _ => cell,
        }
    }

    /// Reasons of the results that are not ok, listed under the table
    /// (comfy-table has no cell spanning the width).
    /// `names`: the results' printed names.
    fn write_notes(
        &self,
        out: &mut dyn Write,
        results: &[&CaseResult],
        names: &[&str],
    ) -> anyhow::Result<()> {
        let named = || results.iter().zip(names);
        for (r, name) in named().filter(|(r, _)| r.status != Status::Ok) {
            let reason = r.reason.as_deref().unwrap_or("no reason recorded");
            let status = self.paint(status_style(r.status), r.status.as_str());
            writeln!(out, "  {name} {status}: {reason}")?;
        }
        for (r, name) in named().filter(|(r, _)| r.status == Status::Ok) {
            for flag in &r.flags {
                writeln!(out, "  {name} {}: {}", flag.name, flag.reason)?;
            }
        }
        for line in super::trust::notes(results) {
            writeln!(out, "  {line}")?;
        }
        for line in results.iter().filter_map(|r| super::explain_text::line(r)) {
            writeln!(out, "{line}")?;
        }
        for line in results.iter().flat_map(|r| super::profile_text::lines(r)) {
            writeln!(out, "{line}")?;
        }
        for line in results
            .iter()
            .flat_map(|r| super::observation_text::lines(r))
        {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }
}

/// The cell texts of `results`, each case column its printed name among
/// them (`compare::printed_names`: the parameters that tell apart cases
/// whose stored names read the same).
pub(super) fn named_texts(results: &[&CaseResult], limit_name: bool) -> Vec<Texts> {
    let names = crate::compare::printed_names(results);
    results
        .iter()
        .zip(names)
        .map(|(r, name)| {
            let mut t = texts(r, limit_name);
            t[CASE] = name;
            t
        })
        .collect()
}

/// A case's headline cell: its status when it is not ok, its first flag
/// when one was raised, else the headline with its `±`.
pub(super) fn headline_cell(r: &CaseResult) -> String {
    match (r.status, r.flags.first()) {
        (Status::Ok, Some(flag)) => flag.name.replace('_', " "),
        (Status::Ok, None) => headline(r).unwrap_or_default(),
        (status, _) => status.as_str().to_string(),
    }
}

/// One result as cell texts; a result that is not ok shows its status in
/// the headline column and nothing else, never a number. `limit_name`:
/// whether `vs limit` names the limit (not when the heading does). The
/// case column is its stored name as it reads; `named_texts` tells apart
/// the cases of a group.
fn texts(r: &CaseResult, limit_name: bool) -> Texts {
    let mut t: Texts = Default::default();
    t[CASE] = crate::format::case_label(&r.case);
    t[HEADLINE] = headline_cell(r);
    if r.status != Status::Ok {
        return t;
    }
    t[METRIC] = r.headline.clone().unwrap_or_default();
    if let Some(l) = &r.latency {
        t[P50] = human(l.p50 as f64, &l.unit);
        t[P99] = human(l.p99 as f64, &l.unit);
        t[P99_9] = human(l.p99_9 as f64, &l.unit);
        t[LAT] = l.kind.as_str().to_string();
    }
    if let Some(c) = &r.cpu {
        t[CPU] = format!("{:.2}/{:.2} s", c.user_s, c.sys_s);
    }
    if let Some(m) = r.metrics.get("csw_per_op") {
        t[CSW] = human(m.value, "");
    }
    if let Some(l) = &r.limit_ratio {
        t[VS_LIMIT] = if limit_name {
            format!("{} {}", ratio(l.ratio), l.limit)
        } else {
            ratio(l.ratio)
        };
    }
    t[CPUS] = cpus(&r.sides);
    t[NOISE] = super::trust::noise_cell(r);
    t
}

/// Case and headline always; other columns only when some row fills them,
/// and `lat` not when the heading already names the one kind.
pub(super) fn visible_columns(rows: &[Texts], lat_in_heading: bool) -> Vec<usize> {
    (0..COLUMNS.len())
        .filter(|&c| c <= HEADLINE || rows.iter().any(|t| !t[c].is_empty()))
        .filter(|&c| !(c == LAT && lat_in_heading))
        .collect()
}

/// The value every result of the group that has one shares, if any: a
/// scenario usually measures one latency kind against one limit, and
/// saying so once in the heading keeps the rows to one line.
fn shared<'a>(
    results: &[&'a CaseResult],
    value: impl Fn(&'a CaseResult) -> Option<&'a str>,
) -> Option<&'a str> {
    let mut values = results.iter().filter_map(|r| value(r));
    let first = values.next()?;
    values.all(|v| v == first).then_some(first)
}

/// The heading's tail for the values folded out of the rows:
/// ` (round-trip latency, vs limit wake_rtt_ns)`.
fn folded(lat: Option<&str>, limit: Option<&str>) -> String {
    let parts: Vec<String> = [
        lat.map(|kind| format!("{kind} latency")),
        limit.map(|limit| format!("vs limit {limit}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// Two spaces between columns when the table fits `MAX_WIDTH` with them,
/// else one (a pingpong row with every column filled needs the room).
fn column_gap(rows: &[Texts], columns: &[usize]) -> u16 {
    let content: usize = columns.iter().map(|&c| min_width(rows, c)).sum();
    let fits = 1 + content + 2 * columns.len().saturating_sub(1) <= usize::from(MAX_WIDTH);
    if fits {
        2
    } else {
        1
    }
}

/// The narrowest column `c` can be without splitting a word: its widest
/// cell (for `vs limit`, its widest word, as it may wrap at the space) and
/// the widest word of its header.
fn min_width(rows: &[Texts], c: usize) -> usize {
    let words = |text: &str| {
        text.split(' ')
            .map(|w| w.chars().count())
            .max()
            .unwrap_or(0)
    };
    let cells = rows.iter().map(|t| match c {
        VS_LIMIT => words(&t[c]),
        _ => t[c].chars().count(),
    });
    cells.chain([words(COLUMNS[c])]).max().unwrap_or(0)
}

/// Alignment, padding and width of table column `index` showing
/// `COLUMNS[c]`: numbers right-aligned; never narrower than `min_width`, so
/// only headers and `vs limit` wrap, at spaces, when the table would pass
/// `MAX_WIDTH` (and a table that cannot fit grows wider instead of
/// splitting words).
fn shape_column(table: &mut Table, index: usize, c: usize, rows: &[Texts], right: u16) {
    let Some(column) = table.column_mut(index) else {
        return;
    };
    if NUMERIC[c] {
        column.set_cell_alignment(CellAlignment::Right);
    }
    column.set_padding((u16::from(index == 0), right));
    let width = u16::try_from(min_width(rows, c)).unwrap_or(u16::MAX) + column.padding_width();
    column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(width)));
}

pub(super) fn status_style(status: Status) -> Style {
    let color = match status {
        Status::Ok => return Style::new(),
        Status::Failed => AnsiColor::Red,
        Status::Unsupported => AnsiColor::Yellow,
    };
    Style::new().fg_color(Some(color.into()))
}

/// Results grouped by scenario, groups in order of first appearance.
pub(super) fn groups(results: &[CaseResult]) -> Vec<(&str, Vec<&CaseResult>)> {
    let mut groups: Vec<(&str, Vec<&CaseResult>)> = Vec::new();
    for r in results {
        match groups.iter_mut().find(|(name, _)| *name == r.scenario) {
            Some((_, members)) => members.push(r),
            None => groups.push((&r.scenario, vec![r])),
        }
    }
    groups
}

/// The headline metric as `5.21 us ±3%` (`trust::plus_minus`).
pub(super) fn headline(r: &CaseResult) -> Option<String> {
    let (name, metric) = r.headline_metric()?;
    let value = human(metric.value, &metric.unit);
    Some(match super::trust::plus_minus(r, name, metric) {
        Some(spread) => format!("{value} {spread}"),
        None => value,
    })
}

/// Where the sides ran: `0|1`, with `0,1` for a side seen on both CPUs;
/// many pairs placed alike as one period and its repeats: `0|1 x64`.
fn cpus(sides: &[Side]) -> String {
    let side = |s: &Side| {
        s.cpus
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let each: Vec<String> = sides.iter().map(side).collect();
    let period = (2..each.len())
        .step_by(2)
        .find(|p| each.len().is_multiple_of(*p) && each.chunks(*p).all(|c| c == &each[..*p]));
    match period {
        Some(p) => format!("{} x{}", each[..p].join("|"), each.len() / p),
        None => each.join("|"),
    }
}

/// `N results: X ok, Y failed, Z unsupported` (`1 result: ...`).
pub(super) fn summary<'a, I>(results: I) -> String
where
    I: IntoIterator<Item = &'a CaseResult> + Clone,
{
    let count = |s: Status| {
        results
            .clone()
            .into_iter()
            .filter(|r| r.status == s)
            .count()
    };
    format!(
        "{}: {} ok, {} failed, {} unsupported",
        plural(results.clone().into_iter().count(), "result"),
        count(Status::Ok),
        count(Status::Failed),
        count(Status::Unsupported)
    )
}

#[cfg(test)]
mod tests;
