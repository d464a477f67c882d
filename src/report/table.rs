//! The human-facing terminal table: one comfy-table per scenario group,
//! its verdicts right below it, and one summary line, so a run reads as a
//! short report. Failed and unsupported cases show their status and reason,
//! never a number (DESIGN.md: every result is verified).

use super::format::{human, spread};
use super::Reporter;
use crate::model::{CaseResult, Run, Side, Status};
use anstyle::{AnsiColor, Style};
use comfy_table::{Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};
use std::io::Write;

/// Terminal table; `color` adds bold headings and red/yellow statuses.
pub struct TableReporter {
    pub color: bool,
}

/// The widest the table should get: past it headers and `vs limit` wrap at
/// their spaces (see `shape_column`).
const MAX_WIDTH: u16 = 120;

/// Borderless except for a rule under the header.
const PRESET: &str = "     ─             ";

/// Column names; `NUMERIC` marks the right-aligned ones.
pub(super) const COLUMNS: [&str; 11] = [
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
];
pub(super) const NUMERIC: [bool; 11] = [
    false, true, false, true, true, true, false, true, true, false, false,
];
const CASE: usize = 0;
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

/// The cell texts of one result, one per entry of `COLUMNS`.
pub(super) type Texts = [String; 11];

impl Reporter for TableReporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        for (scenario, results) in groups(&run.results) {
            self.write_group(out, scenario, &results)?;
            for verdict in run.verdicts.iter().filter(|v| v.scenario == scenario) {
                writeln!(out, "-> {}", verdict.text)?;
            }
            writeln!(out)?;
        }
        crate::claims::render::write(out, &run.claims)?;
        if !run.claims.is_empty() {
            writeln!(out)?;
        }
        writeln!(out, "{}", summary(&run.results))?;
        Ok(())
    }
}

impl TableReporter {
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
        let rows: Vec<Texts> = results.iter().map(|r| texts(r, limit.is_none())).collect();
        let heading = self.paint(Style::new().bold(), &format!("== {scenario} =="));
        writeln!(out, "{heading}{}", folded(lat, limit))?;
        let columns = visible_columns(&rows, lat.is_some());
        writeln!(out, "{}", self.table(results, &rows, &columns).trim_fmt())?;
        self.write_notes(out, results)
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
    fn write_notes(&self, out: &mut dyn Write, results: &[&CaseResult]) -> anyhow::Result<()> {
        for r in results.iter().filter(|r| r.status != Status::Ok) {
            let reason = r.reason.as_deref().unwrap_or("no reason recorded");
            let status = self.paint(status_style(r.status), r.status.as_str());
            writeln!(out, "  {} {status}: {reason}", r.case)?;
        }
        for r in results.iter().filter(|r| r.status == Status::Ok) {
            for flag in &r.flags {
                writeln!(out, "  {} {}: {}", r.case, flag.name, flag.reason)?;
            }
        }
        for line in results.iter().flat_map(|r| super::profile_text::lines(r)) {
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

/// One result as cell texts; a result that is not ok shows its status in
/// the headline column and nothing else, never a number. `limit_name`:
/// whether `vs limit` names the limit (not when the heading does).
pub(super) fn texts(r: &CaseResult, limit_name: bool) -> Texts {
    let mut t: Texts = Default::default();
    t[CASE] = r.case.clone();
    if r.status != Status::Ok {
        t[HEADLINE] = r.status.as_str().to_string();
        return t;
    }
    t[HEADLINE] = match r.flags.first() {
        Some(flag) => flag.name.replace('_', " "),
        None => headline(r).unwrap_or_default(),
    };
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

fn status_style(status: Status) -> Style {
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

/// The headline metric as `5.21 us ±3%`.
fn headline(r: &CaseResult) -> Option<String> {
    let (_, metric) = r.headline_metric()?;
    let value = human(metric.value, &metric.unit);
    Some(match spread(metric) {
        Some(spread) => format!("{value} {spread}"),
        None => value,
    })
}

/// A limit ratio as `3.2x`, `12x` or `0.85x`.
fn ratio(ratio: f64) -> String {
    match ratio {
        r if r < 1.0 => format!("{r:.2}x"),
        r if r < 10.0 => format!("{r:.1}x"),
        r => format!("{r:.0}x"),
    }
}

/// Where the sides ran: `0|1`, with `0,1` for a side seen on both CPUs.
fn cpus(sides: &[Side]) -> String {
    let side = |s: &Side| {
        s.cpus
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    sides.iter().map(side).collect::<Vec<_>>().join("|")
}

/// `N results: X ok, Y failed, Z unsupported` (`1 result: ...`).
pub(super) fn summary(results: &[CaseResult]) -> String {
    let count = |s: Status| results.iter().filter(|r| r.status == s).count();
    let noun = if results.len() == 1 {
        "result"
    } else {
        "results"
    };
    format!(
        "{} {noun}: {} ok, {} failed, {} unsupported",
        results.len(),
        count(Status::Ok),
        count(Status::Failed),
        count(Status::Unsupported)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LatencyKind;
    use crate::report::fixtures::{self, *};

    fn render(run: &Run, color: bool) -> String {
        let mut buf = Vec::new();
        TableReporter { color }.write(run, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
    }

    #[test]
    fn plain_table_has_groups_rows_notes_verdicts_and_summary() {
        let text = render(&fixtures::run(), false);
        let heading = "== pingpong == (round-trip latency, vs limit wake_rtt_ns)\n";
        assert!(text.starts_with(heading), "{text}");
        assert!(text.contains("\n== stream ==\n"), "{text}");
        for case in [OK_CASE, FAILED_CASE, UNSUPPORTED_CASE, STREAM_CASE] {
            assert!(text.contains(case), "{case} missing in\n{text}");
        }
        assert!(
            text.contains(&format!("{FAILED_CASE} failed: {FAILED_REASON}\n")),
            "{text}"
        );
        assert!(text.contains(&format!(
            "{UNSUPPORTED_CASE} unsupported: {UNSUPPORTED_REASON}\n"
        )));
        assert!(text.contains(&format!("\n-> {VERDICT}\n")), "{text}");
        assert!(text.contains("\n-> only one case\n"), "{text}");
        let claims = text
            .split("== Claims ==\n")
            .nth(1)
            .expect("a Claims section");
        assert!(
            claims.starts_with("E9-fixture               holds         pipe 4.82 us"),
            "{claims}"
        );
        assert!(claims.contains("original: about 5 us\n"), "{claims}");
        assert!(
            text.ends_with("\n4 results: 2 ok, 1 failed, 1 unsupported\n"),
            "{text}"
        );
        assert!(
            !text.contains('\u{1b}'),
            "escape codes with colour off:\n{text}"
        );
    }

    #[test]
    fn ok_row_shows_every_column() {
        let text = render(&fixtures::run(), false);
        let row: Vec<&str> = line_with(&text, OK_CASE).split_whitespace().collect();
        let want = [
            OK_CASE,
            "5.21",
            "us",
            "±3%",
            "rtt_ns",
            "5.12",
            "us",
            "12.3",
            "us",
            "41.0",
            "us",
            "0.12/0.40",
            "s",
            "2.00",
            "3.2x",
            "0|0,1",
        ];
        assert_eq!(row, want, "\n{text}");
        let header: Vec<&str> = line_with(&text, "headline").split_whitespace().collect();
        let want = [
            "case", "headline", "metric", "p50", "p99", "p99.9", "cpu", "usr/sys", "csw/op", "vs",
            "limit", "cpus",
        ];
        assert_eq!(header, want, "\n{text}");
    }

    #[test]
    fn failed_and_unsupported_rows_show_status_and_no_number() {
        let text = render(&fixtures::run(), false);
        for (case, status) in [(FAILED_CASE, "failed"), (UNSUPPORTED_CASE, "unsupported")] {
            let row = line_with(&text, &format!("{case} "));
            let cells: Vec<&str> = row.split_whitespace().collect();
            assert_eq!(cells, [case, status], "{row:?}");
        }
        assert!(
            !text.contains("777"),
            "a failed case's number leaked:\n{text}"
        );
    }

    #[test]
    fn fits_in_120_columns() {
        let text = render(&fixtures::run(), false);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 120,
                "{} wide: {line:?}",
                line.chars().count()
            );
        }
    }

    #[test]
    fn mixed_kinds_and_limits_stay_in_the_rows() {
        let mut run = fixtures::run();
        let mut one_way = ok_result();
        one_way.case = "udp/cross-cpu/processes/65536B".into();
        one_way.latency.as_mut().unwrap().kind = LatencyKind::OneWay;
        one_way.limit_ratio.as_mut().unwrap().limit = "wake_ow_ns".into();
        run.results.insert(1, one_way);
        let text = render(&run, false);
        assert!(text.starts_with("== pingpong ==\n"), "{text}");
        assert!(line_with(&text, "headline").contains(" lat "), "{text}");
        let ok = line_with(&text, OK_CASE);
        assert!(
            ok.contains(" round-trip ") && ok.contains(" 3.2x"),
            "{text}"
        );
        assert!(line_with(&text, "udp/").contains(" one-way "), "{text}");
        // `vs limit` wraps at its space, never inside a word.
        let limits: Vec<&str> = text
            .split_whitespace()
            .filter(|w| w.starts_with("wake_"))
            .collect();
        assert_eq!(limits, ["wake_rtt_ns", "wake_ow_ns"], "{text}");
    }

    #[test]
    fn colour_marks_heading_and_statuses() {
        let text = render(&fixtures::run(), true);
        let bold = Style::new().bold();
        assert!(
            text.starts_with(&format!("{bold}== pingpong =={bold:#}")),
            "{text:?}"
        );
        let red = status_style(Status::Failed);
        assert!(
            text.contains(&format!("{red}failed{red:#}: {FAILED_REASON}")),
            "{text:?}"
        );
        assert!(
            line_with(&text, &format!("{FAILED_CASE} ")).contains('\u{1b}'),
            "{text:?}"
        );
    }

    #[test]
    fn one_result_and_empty_run_summaries() {
        let mut run = fixtures::run();
        run.results.truncate(1);
        assert!(render(&run, false).ends_with("\n1 result: 1 ok, 0 failed, 0 unsupported\n"));
        run.results.clear();
        run.claims.clear();
        assert_eq!(
            render(&run, false),
            "0 results: 0 ok, 0 failed, 0 unsupported\n"
        );
    }

    #[test]
    fn a_flagged_row_names_the_flag_instead_of_the_number() {
        let mut run = fixtures::run();
        run.results[0].flags.push(crate::model::Flag {
            name: "not_really_moved".into(),
            reason: "faster than memcpy".into(),
        });
        let text = render(&run, false);
        let row = line_with(&text, OK_CASE);
        assert!(
            row.contains("not really moved") && !row.contains("5.21"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "  {OK_CASE} not_really_moved: faster than memcpy\n"
            )),
            "{text}"
        );
    }

    #[test]
    fn cpus_and_ratio_formats() {
        let side = |cpus: Vec<usize>| Side {
            role: "x".into(),
            cpus,
            cpu: Default::default(),
        };
        assert_eq!(cpus(&[side(vec![0]), side(vec![1])]), "0|1");
        assert_eq!(cpus(&[side(vec![0, 1]), side(vec![1])]), "0,1|1");
        assert_eq!(cpus(&[]), "");
        assert_eq!(ratio(3.24), "3.2x");
        assert_eq!(ratio(12.6), "13x");
        assert_eq!(ratio(0.854), "0.85x");
    }

    #[test]
    #[ignore = "prints the fixture table for eyes: cargo test print_fixture -- --ignored --nocapture"]
    fn print_fixture() {
        print!("{}", render(&fixtures::run(), false));
    }
}
