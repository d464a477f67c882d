//! The HTML report: one self-contained page (inline CSS and SVG, no
//! scripts but those of the flame graphs in their sandboxed frames,
//! nothing fetched) with the environment, each scenario's table
//! and the charts its data supports; with a baseline run, both runs share
//! the charts and a comparison table leads. The template is compiled into
//! the binary and escapes every value it prints; only the SVG markup,
//! whose texts plotters escapes itself, is inserted as is.

use super::flame::{self, Flame};
use super::page::{self, Page};
use super::Reporter;
use crate::compare;
use crate::model::{CaseResult, Run};
use minijinja::value::{Serde, Value};
use minijinja::{context, Environment};
use serde::Serialize;
use std::io::Write;

const TEMPLATE: &str = include_str!("templates/report.html");

/// The page for one run, or for `baseline` (run A) against it (run B);
/// with `diff`, the differential flame graph of those two cases too.
pub(crate) struct HtmlReporter<'a> {
    pub(crate) baseline: Option<&'a Run>,
    pub(crate) diff: Option<[&'a CaseResult; 2]>,
}

/// The comparison rows as cell texts.
#[derive(Serialize)]
struct Comparison {
    test: String,
    rows: Vec<[String; 8]>,
    unmatched: Vec<String>,
}

impl Reporter for HtmlReporter<'_> {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        let runs = page::tagged(self.baseline, run);
        let page = page::build(&runs, true)?;
        let comparison = self.baseline.map(|a| comparison(a, run));
        let diff = self.diff.map(|[a, b]| flame::diff(a, b)).transpose()?;
        out.write_all(render(&page, comparison, diff)?.as_bytes())?;
        Ok(())
    }
}

fn render(
    page: &Page,
    comparison: Option<Comparison>,
    diff: Option<Flame>,
) -> anyhow::Result<String> {
    let mut env = Environment::new();
    // The `.html` name turns autoescaping on.
    env.add_template("report.html", TEMPLATE)?;
    let template = env.get_template("report.html")?;
    Ok(template.render(context! {
        page => Value::from(Serde(page)),
        comparison => Value::from(Serde(comparison)),
        diff => Value::from(Serde(diff)),
    })?)
}

fn comparison(a: &Run, b: &Run) -> Comparison {
    let result = compare::compare(a, b);
    Comparison {
        test: compare::TEST.to_string(),
        rows: result.cases.iter().map(compare::cells).collect(),
        unmatched: compare::unmatched_lines(&result),
    }
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
