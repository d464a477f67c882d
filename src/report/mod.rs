//! Output formats for a run, one file per format behind `trait Reporter`,
//! so that adding a format (markdown, html) is one new file and the
//! commands never care which one the user asked for.

mod charts;
mod compact;
mod comparison;
mod csv;
mod explain_text;
mod findings;
mod flame;
mod fleet_view;
mod glance;
mod html;
mod json;
mod markdown;
mod observation_text;
mod page;
mod profile_text;
mod table;
mod trust;

#[cfg(test)]
pub(crate) mod fixtures;

pub(crate) use self::csv::CsvReporter;
pub(crate) use self::flame::profiled_case;
pub(crate) use self::fleet_view::write_fleet;
pub(crate) use self::html::HtmlReporter;
pub(crate) use self::json::JsonReporter;
pub(crate) use self::markdown::MarkdownReporter;
pub(crate) use self::table::TableReporter;

use crate::model::Run;
use anyhow::Context;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// One output format: renders a whole run onto a byte sink.
pub(crate) trait Reporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()>;
}

/// Render `run` with `reporter` to `path`, where `-` means stdout; any other
/// path is created or truncated. Both sinks go through anstream, which
/// drops colour codes when the sink is not a terminal (and honours the
/// global colour choice), so colour never leaks into files or pipes.
pub(crate) fn write_to(path: &Path, reporter: &dyn Reporter, run: &Run) -> anyhow::Result<()> {
    if path == Path::new("-") {
        let mut out = anstream::stdout().lock();
        return finish(reporter, run, &mut out).context("cannot write the report to stdout");
    }
    let file = File::create(path)
        .with_context(|| format!("cannot create report file {}", path.display()))?;
    let mut out = BufWriter::new(anstream::AutoStream::auto(file));
    finish(reporter, run, &mut out)
        .with_context(|| format!("cannot write report file {}", path.display()))
}

fn finish(reporter: &dyn Reporter, run: &Run, out: &mut dyn Write) -> anyhow::Result<()> {
    reporter.write(run, out)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_to_creates_and_truncates_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, "x".repeat(100_000)).unwrap();
        let run = fixtures::run();
        write_to(&path, &JsonReporter, &run).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let back: Run = serde_json::from_str(&text).unwrap();
        assert_eq!(back, run);
    }

    #[test]
    fn write_to_names_the_path_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("run.csv");
        let err = write_to(&path, &CsvReporter, &fixtures::run()).unwrap_err();
        assert!(
            format!("{err:#}").contains("missing-dir/run.csv"),
            "{err:#}"
        );
    }
}
