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
use anyhow::Context;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// One output format: renders a whole run onto a byte sink.
pub(crate) trait Reporter {
    fn write(&self, run: &Run, out: &mut dyn Write) -> anyhow::Result<()>;

    /// Why the run gives this format nothing to write (an export whose
    /// consumer fails on an empty file), or None.
    fn nothing_to_write(&self, _run: &Run) -> Option<String> {
        None
    }
}

/// Refuses, before anything is written, a format the run gives nothing.
fn refuse_nothing(path: &Path, reporter: &dyn Reporter, run: &Run) -> Result<(), UsageError> {
    match reporter.nothing_to_write(run) {
        Some(why) => Err(UsageError::new(format!(
            "nothing to write to {}: {why}; no file written",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// Render `run` with `reporter` to `path`, where `-` means stdout (a
/// format the run gives nothing refused first, exit 2); any other
/// path is created or truncated. Both sinks go through anstream, which
/// drops colour codes when the sink is not a terminal (and honours the
/// global colour choice), so colour never leaks into files or pipes.
pub(crate) fn write_to(path: &Path, reporter: &dyn Reporter, run: &Run) -> anyhow::Result<()> {
    refuse_nothing(path, reporter, run)?;
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

/// Like `write_to`, but a file is replaced in one step: the report is
/// written to a temp file in the same directory (named `.iolab-*.tmp`, which
/// node_exporter's textfile collector, reading `*.prom`, passes over),
/// flushed to disk, then renamed over `path`, so a reader sees the old file or the new one, never
/// half of one. The new file gets the mode a created file would (0666 less
/// the umask). What is not a regular file (a FIFO, `/dev/stdout`) is written
/// in place, as `write_to` does.
pub(crate) fn write_replacing(
    path: &Path,
    reporter: &dyn Reporter,
    run: &Run,
) -> anyhow::Result<()> {
    refuse_nothing(path, reporter, run)?;
    let in_place = path == Path::new("-") || (path.exists() && !path.is_file());
    if in_place {
        return write_to(path, reporter, run);
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let cannot = || format!("cannot write report file {}", path.display());
    let mut temp = tempfile::Builder::new()
        .prefix(".iolab-")
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(cannot)?;
    finish(reporter, run, &mut BufWriter::new(temp.as_file_mut())).with_context(cannot)?;
    // On disk before it takes the name: a crash never leaves the name on
    // an empty or partial file.
    temp.as_file().sync_all().with_context(cannot)?;
    temp.persist(path)
        .map_err(|e| e.error)
        .with_context(cannot)?;
    Ok(())
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
        let back: crate::model::Document<Run> = serde_json::from_str(&text).unwrap();
        assert_eq!(back.body, run);
    }

    #[test]
    fn write_replacing_renames_a_whole_file_over_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("iolab.prom");
        std::fs::write(&path, "old").unwrap();
        let run = fixtures::run();
        write_replacing(&path, &OpenMetricsReporter, &run).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("# EOF\n"), "{text}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temp file is left: {left:?}");
        let missing = dir.path().join("no-such-dir").join("x.prom");
        let err = write_replacing(&missing, &OpenMetricsReporter, &run).unwrap_err();
        assert!(format!("{err:#}").contains("no-such-dir/x.prom"), "{err:#}");
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
