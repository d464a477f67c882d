//! The HTML report: one self-contained page (inline CSS and SVG, no
//! scripts but those of the flame graphs in their sandboxed frames,
//! nothing fetched) that opens with what the run found, then a table of
//! contents, the environment, with a baseline run the comparison, the
//! claims, and per scenario its verdicts, charts and (collapsed) tables;
//! a print stylesheet opens the tables and leaves out the frames. The
//! template is compiled into the binary and escapes every value it prints;
//! only the SVG markup, whose texts plotters escapes itself, is inserted
//! as is.

use super::flame::{self, Flame};
use super::page::{self, Page};
use super::Reporter;
use crate::model::{CaseResult, Run};
use minijinja::value::{Serde, Value};
use minijinja::{context, Environment};
use std::io::Write;

const TEMPLATE: &str = include_str!("../templates/report.html");

/// The page for one run, or for `baseline` (run A) against it (run B);
/// with `diff`, the differential flame graph of those two cases too.
pub(crate) struct HtmlReporter<'a> {
    pub(crate) baseline: Option<&'a Run>,
    pub(crate) diff: Option<[&'a CaseResult; 2]>,
}

impl Reporter for HtmlReporter<'_> {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
        let runs = page::tagged(self.baseline, run);
        let page = page::build(&runs, true)?;
        let diff = self.diff.map(|[a, b]| flame::diff(a, b)).transpose()?;
        out.write_all(render(&page, diff)?.as_bytes())?;
        Ok(())
    }
}

fn render(page: &Page, diff: Option<Flame>) -> anyhow::Result<String> {
    let mut env = Environment::new();
    // The `.html` name turns autoescaping on.
    env.add_template("report.html", TEMPLATE)?;
    let template = env.get_template("report.html")?;
    Ok(template.render(context! {
        page => Value::from(Serde(page)),
        diff => Value::from(Serde(diff)),
    })?)
}

#[cfg(test)]
mod tests;
