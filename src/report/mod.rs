//! Output formats for a run, one file per format behind `trait Reporter`,
//! so that adding a format (markdown, html) is one new file and the
//! commands never care which one the user asked for.

mod benchmark_action;
mod bmf;
mod charts;
mod compact;
mod comparison;
mod csv;
mod explain_text;
mod findings;
mod flame;
mod fleet_view;
mod glance;
mod hdr;
mod html;
mod json;
pub(crate) mod kernels_view;
mod markdown;
mod observation_text;
mod openmetrics;
mod page;
mod profile_text;
mod table;
pub(crate) use table::host_line;
mod trust;

#[cfg(test)]
pub(crate) mod fixtures;

pub(crate) use self::benchmark_action::BenchmarkActionReporter;
pub(crate) use self::bmf::BmfReporter;
pub(crate) use self::csv::CsvReporter;
pub(crate) use self::flame::profiled_case;
pub(crate) use self::fleet_view::write_fleet;
pub(crate) use self::hdr::HdrReporter;
pub(crate) use self::html::HtmlReporter;
pub(crate) use self::json::JsonReporter;
pub(crate) use self::markdown::MarkdownReporter;
pub(crate) use self::openmetrics::OpenMetricsReporter;
pub(crate) use self::table::TableReporter;

use crate::error::UsageError;
use crate::model::Run;
use crate::plan::outputs::Output;
use std::io::Write;

/// One output format: renders a whole run onto a byte sink.
pub(crate) trait Reporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()>;

    /// Why the run gives this format nothing to write (an export whose
    /// consumer fails on an empty file), or None.
    fn nothing_to_write(&self, _run: &Run) -> Option<String> {
        None
    }
}

/// Renders `run` with `reporter` into `output` (`plan::outputs`: stdout,
/// or a file replaced in one step by what was written); a format the run
/// gives nothing is refused first (exit 2), with no file written. Every
/// sink goes through anstream, which drops colour codes when it is not a
/// terminal (and honours the global colour choice), so colour never leaks
/// into files or pipes.
pub(crate) fn write(output: Output, reporter: &dyn Reporter, run: &Run) -> anyhow::Result<()> {
    if let Some(why) = reporter.nothing_to_write(run) {
        return Err(UsageError::new(format!(
            "nothing to write to {}: {why}; no file written",
            output.path().display()
        ))
        .into());
    }
    output.write(|out| {
        reporter.write(run, out)?;
        out.flush()?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::outputs::Outputs;
    use std::path::Path;

    fn to(path: &Path, reporter: &dyn Reporter, run: &Run) -> anyhow::Result<()> {
        write(
            Outputs::default().take_or_make("--out", path)?,
            reporter,
            run,
        )
    }

    #[test]
    fn a_report_replaces_a_longer_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, "x".repeat(100_000)).unwrap();
        let run = fixtures::run();
        to(&path, &JsonReporter, &run).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let back: crate::model::Document<Run> = serde_json::from_str(&text).unwrap();
        assert_eq!(back.body, run);
        to(&path, &OpenMetricsReporter, &run).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("# EOF\n"), "{text}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temp file is left: {left:?}");
    }

    #[test]
    fn a_report_names_the_path_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("run.csv");
        let err = to(&path, &CsvReporter, &fixtures::run()).unwrap_err();
        assert!(
            format!("{err:#}").contains("missing-dir/run.csv"),
            "{err:#}"
        );
    }
}
