//! GitHub-flavoured Markdown for pasting into an issue: the runs, the
//! environment and every scenario's table (no charts), with a baseline
//! also the comparison. Every cell is escaped so a `|` or `<` in a label,
//! reason or kernel string can neither break a table nor become markup.

use super::page::{self, Page, Table};
use super::Reporter;
use crate::compare;
use crate::model::Run;
use std::io::Write;

/// Markdown for one run, or for `baseline` (run A) against it (run B).
pub(crate) struct MarkdownReporter<'a> {
    pub(crate) baseline: Option<&'a Run>,
}

impl Reporter for MarkdownReporter<'_> {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        let runs = page::tagged(self.baseline, run);
        let page = page::build(&runs, false)?;
        let mut text = String::new();
        write_head(&mut text, &page);
        if let Some(a) = self.baseline {
            write_comparison(&mut text, a, run);
        }
        for section in &page.scenarios {
            text.push_str(&format!("\n## {}\n", escape(&section.name)));
            for t in &section.tables {
                write_table_block(&mut text, t);
            }
        }
        out.write_all(text.as_bytes())?;
        Ok(())
    }
}

fn write_head(text: &mut String, page: &Page) {
    text.push_str(&format!("# {}\n\n", escape(&page.title)));
    let header = ["run", "id", "label", "started", "suite", "results"];
    let rows: Vec<Vec<String>> = page
        .runs
        .iter()
        .map(|r| {
            let tag = if r.tag.is_empty() { "this run" } else { &r.tag };
            vec![
                tag.to_string(),
                r.run_id.clone(),
                r.label.clone().unwrap_or_default(),
                r.started_at.clone(),
                r.suite.clone().unwrap_or_default(),
                r.summary.clone(),
            ]
        })
        .collect();
    text.push_str(&table(&header.map(String::from), &[false; 6], &rows));
    text.push_str("\n## Environment\n\n");
    let mut header = vec![String::new()];
    header.extend(
        page.runs
            .iter()
            .map(|r| format!("run {}", r.tag).trim().to_string()),
    );
    let rows: Vec<Vec<String>> = page
        .environment
        .iter()
        .map(|e| {
            std::iter::once(e.name.clone())
                .chain(e.values.clone())
                .collect()
        })
        .collect();
    text.push_str(&table(&header, &vec![false; header.len()], &rows));
}

fn write_comparison(text: &mut String, a: &Run, b: &Run) {
    let c = compare::compare(a, b);
    text.push_str(&format!("\n## Comparison\n\n{}\n\n", escape(&c.test)));
    let header = [
        "scenario", "case", "metric", "A", "B", "B/A", "95% CI", "change",
    ];
    let rows: Vec<Vec<String>> = c.cases.iter().map(|x| compare::cells(x).to_vec()).collect();
    let numeric = [false, false, false, true, true, true, true, false];
    text.push_str(&table(&header.map(String::from), &numeric, &rows));
    write_list(text, &compare::unmatched_lines(&c));
}

fn write_table_block(text: &mut String, t: &Table) {
    if !t.tag.is_empty() {
        text.push_str(&format!("\n### run {}\n", escape(&t.tag)));
    }
    text.push('\n');
    text.push_str(&table(&t.header, &t.numeric, &t.rows));
    write_list(text, &t.notes);
    write_list(text, &t.verdicts);
}

fn write_list(text: &mut String, items: &[String]) {
    if items.is_empty() {
        return;
    }
    text.push('\n');
    for item in items {
        text.push_str(&format!("- {}\n", escape(item)));
    }
}

/// A GFM table: header, delimiter (`---:` for numbers), rows.
fn table(header: &[String], numeric: &[bool], rows: &[Vec<String>]) -> String {
    let line = |cells: &mut dyn Iterator<Item = String>| {
        let cells: Vec<String> = cells.collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(&mut header.iter().map(|h| escape(h)));
    out.push_str(&line(
        &mut numeric
            .iter()
            .map(|n| if *n { "---:" } else { "---" }.to_string()),
    ));
    for row in rows {
        out.push_str(&line(&mut row.iter().map(|c| escape(c))));
    }
    out
}

/// Text made inert in a Markdown table cell or list item.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::case_label;
    use crate::report::fixtures::{self, FAILED_REASON, OK_CASE};

    fn render(run: &Run, baseline: Option<&Run>) -> String {
        let mut out = Vec::new();
        MarkdownReporter { baseline }.write(run, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The cells of a table line, split at pipes that are not escaped.
    fn cells(line: &str) -> Vec<String> {
        let inner = line.strip_prefix("| ").unwrap().strip_suffix(" |").unwrap();
        let mut cells = vec![String::new()];
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    cells.last_mut().unwrap().push(c);
                    cells.last_mut().unwrap().extend(chars.next());
                }
                '|' => cells.push(String::new()),
                c => cells.last_mut().unwrap().push(c),
            }
        }
        cells.into_iter().map(|c| c.trim().to_string()).collect()
    }

    /// Every table: a header, a delimiter row of `---`/`---:` and rows of
    /// the same width, with a blank line before it. Returns the tables.
    fn gfm_tables(text: &str) -> Vec<Vec<Vec<String>>> {
        let lines: Vec<&str> = text.lines().collect();
        let mut tables = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            if !lines[i].starts_with('|') {
                i += 1;
                continue;
            }
            assert!(
                i > 0 && lines[i - 1].is_empty(),
                "no blank line before {:?}",
                lines[i]
            );
            let start = i;
            while i < lines.len() && lines[i].starts_with('|') {
                i += 1;
            }
            let rows: Vec<Vec<String>> = lines[start..i].iter().map(|l| cells(l)).collect();
            assert!(
                rows.len() >= 2,
                "table without delimiter: {:?}",
                lines[start]
            );
            assert!(
                rows[1].iter().all(|c| c == "---" || c == "---:"),
                "{:?}",
                rows[1]
            );
            assert!(rows.iter().all(|r| r.len() == rows[0].len()), "{rows:?}");
            tables.push(rows);
        }
        tables
    }

    #[test]
    fn tables_are_valid_gfm() {
        let text = render(&fixtures::run(), None);
        let tables = gfm_tables(&text);
        // runs, environment, pingpong, stream
        assert_eq!(tables.len(), 4, "{text}");
        let pingpong = &tables[2];
        assert_eq!(pingpong[0][0], "case");
        assert_eq!(pingpong[1][1], "---:", "headline is right-aligned");
        assert!(pingpong
            .iter()
            .any(|r| r[0] == "unix-stream/cross-cpu/processes/64 KiB" && r[1] == "5.21 us ±3%"));
        assert!(text.contains("## pingpong") && text.contains("## stream"));
        assert!(text.contains(&format!(
            "- pipe/cross-cpu/processes/1 B failed: {FAILED_REASON}"
        )));
    }

    #[test]
    fn pipes_and_markup_in_strings_stay_inside_their_cell() {
        let mut run = fixtures::run();
        run.label = Some("a | b <script>alert(1)</script>".into());
        run.environment.kernel = "Linux | *6.8* \n second line".into();
        let text = render(&run, None);
        let tables = gfm_tables(&text);
        assert_eq!(
            tables[0][2][2],
            "a \\| b &lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert!(!text.contains("<script>"));
    }

    #[test]
    fn comparison_adds_its_table() {
        let a = fixtures::run();
        let text = render(&a, Some(&a));
        let tables = gfm_tables(&text);
        assert!(text.contains("## Comparison"));
        let comparison = tables.iter().find(|t| t[0][0] == "scenario").unwrap();
        assert_eq!(comparison[0].len(), 8);
        assert!(comparison
            .iter()
            .any(|r| r[1] == case_label(OK_CASE) && r[5] == "1.00x"));
        assert!(text.contains("### run A") && text.contains("### run B"));
    }
}
