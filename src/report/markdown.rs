//! GitHub-flavoured Markdown for pasting into an issue: the findings (as
//! the HTML page opens with them), the runs, the environment and every
//! scenario's table (no charts), with a baseline also the comparison. Every cell is escaped so a `|` or `<` in a label,
//! reason or kernel string can neither break a table nor become markup.

use super::comparison::ComparisonView;
use super::findings::{Findings, Line};
use super::page::{self, Page, Table};
use super::Reporter;
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
        let mut text = format!("# {}\n", escape(&page.title));
        write_findings(&mut text, &page.findings);
        write_head(&mut text, &page);
        if let Some(c) = &page.comparison {
            write_comparison(&mut text, c);
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

/// The findings as lists, each scenario named as its heading reads.
fn write_findings(text: &mut String, f: &Findings) {
    text.push_str(&format!("\n## Findings\n\n{}.\n", escape(&f.summary)));
    if let Some(host) = &f.host {
        text.push_str(&format!("\n{}.\n", escape(host)));
    }
    if !f.claims.is_empty() {
        text.push_str("\n### Classic claims\n\n");
        for c in &f.claims {
            let (id, claim, figure) = (escape(&c.id), escape(&c.claim), escape(&c.figure));
            let scenario = escape(&c.scenario.label);
            let margin: String = [&c.margin, &c.to_decide, &c.host]
                .into_iter()
                .flatten()
                .map(|m| format!("; {}", escape(m)))
                .collect();
            text.push_str(&format!(
                "- **{}**: {id} {claim} ({figure}{margin}; {scenario})\n",
                c.verdict
            ));
            for (verdict, figure) in &c.parts {
                text.push_str(&format!("  - {verdict}: {}\n", escape(figure)));
            }
        }
    }
    if !f.verdicts.is_empty() {
        text.push_str("\n### What each scenario found\n");
        for g in &f.verdicts {
            text.push_str(&format!("\n{}:\n\n", escape(&g.title)));
            write_lines(text, &g.lines);
        }
    }
    if !f.limits.is_empty() {
        text.push_str("\n### This machine's limits\n\n");
        write_lines(text, &f.limits);
    }
    if let Some(n) = &f.noise {
        text.push_str(&format!("\n### Noise\n\n{}:\n\n", escape(&n.title)));
        for cause in &n.causes {
            text.push_str(&format!("- {}\n", escape(cause)));
        }
    }
    if !f.warnings.is_empty() {
        text.push_str("\n### Warnings\n");
        for g in &f.warnings {
            text.push_str(&format!("\n{}:\n\n", escape(&g.title)));
            write_lines(text, &g.lines);
        }
    }
}

/// One list item per line, its links' labels after it.
fn write_lines(text: &mut String, lines: &[Line]) {
    for l in lines {
        let labels: Vec<String> = l.links.iter().map(|k| escape(&k.label)).collect();
        match labels.is_empty() {
            true => text.push_str(&format!("- {}\n", escape(&l.text))),
            false => text.push_str(&format!("- {} ({})\n", escape(&l.text), labels.join(", "))),
        }
    }
}

fn write_head(text: &mut String, page: &Page) {
    text.push_str("\n## Runs\n\n");
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

/// The comparison rows, significant changes first (see `comparison`).
fn write_comparison(text: &mut String, c: &ComparisonView) {
    text.push_str(&format!(
        "\n## Comparison\n\nRun B against run A: {}.\n\n{}\n\n",
        escape(&c.summary),
        escape(&c.test)
    ));
    let header = [
        "scenario", "case", "metric", "A", "B", "B/A", "95% CI", "change",
    ];
    let rows: Vec<Vec<String>> = c.rows().map(|r| r.cells.to_vec()).collect();
    let numeric = [false, false, false, true, true, true, true, false];
    text.push_str(&table(&header.map(String::from), &numeric, &rows));
    write_list(text, &c.unmatched);
}

fn write_table_block(text: &mut String, t: &Table) {
    if !t.tag.is_empty() {
        text.push_str(&format!("\n### run {}\n", escape(&t.tag)));
    }
    text.push('\n');
    text.push_str(&table(&t.header, &t.numeric, &t.rows));
    write_list(text, &t.notes);
    write_list(text, &t.verdicts);
    write_list(text, &t.observations);
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
    fn findings_come_first_with_verdicts_claims_and_reasons() {
        let text = render(&fixtures::run(), None);
        let findings = text.find("## Findings").unwrap();
        let first_table = text.find("\n|").unwrap();
        assert!(findings < first_table, "{text}");
        let head = &text[findings..first_table];
        assert!(head.contains(&format!("- {}\n", escape(fixtures::VERDICT))));
        assert!(head.contains("- **holds**: E9-fixture pipes are fast ("));
        assert!(head.contains(
            "1 case unsupported:\n\n- futex wake-up needs CONFIG\\_FUTEX (1) (pingpong)"
        ));
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
