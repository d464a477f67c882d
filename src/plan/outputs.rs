//! The outputs (`--json`, `--csv`, `--openmetrics`, `--bmf`, ...) made
//! before anything is measured: a run that measures for minutes and then
//! cannot write its output has wasted them. Permission bits prove nothing
//! (root passes `access(W_OK)` on /proc and /sys), so each file is proven
//! writable by making the very file its report goes to: a regular file (or
//! one still to come) is written to a temp file in its directory, made now,
//! flushed to disk and renamed over it once written, so a reader sees the
//! old file or the new one, never half of one, even after a crash; anything else (a device such as /dev/full,
//! a symlink such as /dev/stdout) is opened now and given an empty write,
//! and written in place; a FIFO, whose opening waits for a reader, is
//! opened when its report is written. A path must name a file (not a
//! directory) in an existing directory, and at most one output may take
//! standard output.

use crate::error::{UsageError, UsageResult};
use anyhow::Context;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// One output, ready to be written.
#[derive(Debug)]
pub(crate) struct Output {
    path: PathBuf,
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    /// `-`.
    Stdout,
    /// A regular file or none yet: the temp file beside it that is renamed
    /// over it once written.
    Replace(tempfile::NamedTempFile),
    /// Not a regular file: written where it is.
    InPlace(File),
    /// A FIFO: opened when written.
    Fifo,
}

/// The outputs of a command line, each under its option.
#[derive(Debug, Default)]
pub(crate) struct Outputs(Vec<(&'static str, Output)>);

impl Outputs {
    /// The output made for `option`, or `path` made ready now (a read
    /// command, which measures nothing first).
    pub(crate) fn take_or_make(&mut self, option: &str, path: &Path) -> UsageResult<Output> {
        match self.0.iter().position(|(o, _)| *o == option) {
            Some(at) => Ok(self.0.remove(at).1),
            None => Output::make(path).map_err(|why| refused(option, path, &why)),
        }
    }
}

/// Refuses outputs that could not be written, or that would share stdout,
/// and makes the rest ready; `outputs` are each option given and its path.
pub(crate) fn prepare(outputs: &[(&'static str, &Path)]) -> UsageResult<Outputs> {
    let to_stdout: Vec<&str> = outputs
        .iter()
        .filter(|(_, path)| *path == Path::new("-"))
        .map(|(option, _)| *option)
        .collect();
    if let [first, second, ..] = to_stdout[..] {
        return Err(UsageError::new(format!(
            "{first} - and {second} - would both write to standard output: give one of them a file"
        )));
    }
    let mut made = Outputs::default();
    for (option, path) in outputs {
        let output = Output::make(path).map_err(|why| refused(option, path, &why))?;
        made.0.push((option, output));
    }
    Ok(made)
}

fn refused(option: &str, path: &Path, why: &str) -> UsageError {
    UsageError::new(format!("invalid {option} '{}': {why}", path.display()))
}

impl Output {
    /// Standard output.
    pub(crate) fn stdout() -> Output {
        Output {
            path: PathBuf::from("-"),
            sink: Sink::Stdout,
        }
    }

    /// Where it goes, as given (`-`: stdout).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// `path` (`-`: stdout) made ready, or why it cannot be written.
    fn make(path: &Path) -> Result<Output, String> {
        if path == Path::new("-") {
            return Ok(Output::stdout());
        }
        let sink = sink(path)?;
        let path = path.to_path_buf();
        Ok(Output { path, sink })
    }

    /// Writes the output through `fill`, then puts it in place; errors
    /// name the file.
    pub(crate) fn write(
        self,
        fill: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let cannot = || format!("cannot write report file {}", self.path.display());
        match self.sink {
            Sink::Stdout => {
                fill(&mut crate::stdout::lock()).context("cannot write the report to stdout")
            }
            Sink::Replace(mut temp) => {
                let mut out = BufWriter::new(anstream::AutoStream::auto(temp.as_file_mut()));
                fill(&mut out).with_context(cannot)?;
                out.flush().with_context(cannot)?;
                drop(out);
                // On disk before it takes the name: a crash never leaves
                // the name on an empty or partial file.
                temp.as_file().sync_all().with_context(cannot)?;
                temp.persist(&self.path)
                    .map_err(|e| e.error)
                    .with_context(cannot)?;
                Ok(())
            }
            Sink::InPlace(file) => fill_file(file, fill).with_context(cannot),
            Sink::Fifo => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(&self.path)
                    .with_context(cannot)?;
                fill_file(file, fill).with_context(cannot)
            }
        }
    }
}

/// Writes `file` from its start, shortened to what `fill` writes when it
/// is a regular file.
fn fill_file(
    file: File,
    fill: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if file.metadata()?.is_file() {
        file.set_len(0)?;
    }
    let mut out = BufWriter::new(anstream::AutoStream::auto(file));
    fill(&mut out)?;
    out.flush()?;
    Ok(())
}

/// Where the report for `path` goes, made now.
fn sink(path: &Path) -> Result<Sink, String> {
    if path.is_dir() {
        return Err("it is a directory: give a file name".into());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!("no directory {}", dir.display()));
    }
    let Ok(own) = std::fs::symlink_metadata(path) else {
        return replacing(dir, None);
    };
    let kind = std::fs::metadata(path).map(|m| m.file_type());
    match kind {
        _ if own.is_file() => replacing(dir, Some(own.permissions())),
        Ok(kind) if kind.is_fifo() => Ok(Sink::Fifo),
        _ => in_place(path),
    }
}

/// The temp file in `dir` a report is written to, with the mode of the
/// file it replaces (else 0666 less the umask, as a created file gets).
/// Named `.iolab-*.tmp`, which node_exporter's textfile collector
/// (reading `*.prom`) passes over.
fn replacing(dir: &Path, mode: Option<std::fs::Permissions>) -> Result<Sink, String> {
    let temp = tempfile::Builder::new()
        .prefix(".iolab-")
        .suffix(".tmp")
        .permissions(mode.unwrap_or_else(|| std::fs::Permissions::from_mode(0o666)))
        .tempfile_in(dir)
        .map_err(|e| format!("cannot create a file in {}: {e}", dir.display()))?;
    Ok(Sink::Replace(temp))
}

/// `path` opened for writing and given an empty write: a device that
/// refuses every write (/dev/full) says so now.
fn in_place(path: &Path) -> Result<Sink, String> {
    let cannot = |e: std::io::Error| format!("cannot write there: {e}");
    let mut file = OpenOptions::new().write(true).open(path).map_err(cannot)?;
    file.write(&[]).map_err(cannot)?;
    Ok(Sink::InPlace(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_two(json: Option<&Path>, csv: Option<&Path>) -> UsageResult<Outputs> {
        let given = [("--json", json), ("--csv", csv)];
        let given: Vec<(&str, &Path)> = given
            .into_iter()
            .filter_map(|(o, p)| Some((o, p?)))
            .collect();
        prepare(&given)
    }

    fn refusal(json: Option<&str>, csv: Option<&str>) -> String {
        match check_two(json.map(Path::new), csv.map(Path::new)) {
            Ok(_) => panic!("accepted {json:?} {csv:?}"),
            Err(e) => e.0,
        }
    }

    #[test]
    fn outputs_that_cannot_be_written_are_refused_before_measuring() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        assert_eq!(
            refusal(Some(&d), None),
            format!("invalid --json '{d}': it is a directory: give a file name")
        );
        assert_eq!(
            refusal(None, Some("/nonexistent/x.csv")),
            "invalid --csv '/nonexistent/x.csv': no directory /nonexistent"
        );
        assert_eq!(
            refusal(Some("-"), Some("-")),
            "--json - and --csv - would both write to standard output: give one of them a file"
        );
        assert_eq!(
            refusal(Some("/dev/full"), None),
            "invalid --json '/dev/full': cannot write there: No space left on device (os error 28)"
        );
        let file = dir.path().join("run.json");
        assert!(check_two(Some(&file), Some(Path::new("-"))).is_ok());
        assert!(check_two(Some(Path::new("-")), None).is_ok());
        let both = prepare(&[("--json", Path::new("-")), ("--bmf", Path::new("-"))]);
        assert_eq!(
            both.unwrap_err().0,
            "--json - and --bmf - would both write to standard output: give one of them a file"
        );
        assert!(!file.exists(), "the check wrote {}", file.display());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert!(
            left.is_empty(),
            "the temp files are gone with the outputs: {left:?}"
        );
    }

    /// A file is replaced in one step by what was written, keeping its
    /// mode; a device is written in place; nothing is left beside them.
    #[test]
    fn a_made_output_replaces_its_file_once_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, "old and longer").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let mut made = prepare(&[("--json", &path)]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old and longer");
        let output = made.take_or_make("--json", &path).unwrap();
        output.write(|out| Ok(out.write_all(b"new")?)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temp file is left: {left:?}");
        let null = Path::new("/dev/null");
        let output = Outputs::default().take_or_make("--csv", null).unwrap();
        output.write(|out| Ok(out.write_all(b"gone")?)).unwrap();
        assert!(
            null.exists() && !null.is_file(),
            "/dev/null is still the device"
        );
    }
}
