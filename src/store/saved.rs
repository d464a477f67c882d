//! A run kept as a JSON file when the store could not take it, and read back
//! by `iolab import`. The file is the JSON `iolab run --json` writes plus
//! each result's latency histogram (which the JSON contract leaves out), so
//! a run imported later is stored whole; a plain `--json` file imports too,
//! without histograms. Either must say its `schema_version`
//! (`model::Document`), one this iolab reads.

use crate::error::UsageError;
use crate::model::{Document, Run, SCHEMA_VERSION};
use anyhow::bail;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// `R` is `&Run` when writing, `Run` when reading.
#[derive(Serialize, Deserialize)]
struct Saved<R> {
    #[serde(flatten)]
    run: R,
    /// One per result, in order: its HdrHistogram V2 blob in hex, or null.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    histograms: Vec<Option<String>>,
}

/// Saves `run` as `iolab-run-ID.json` in the store's directory (a file
/// store's), or in the working directory if that fails or the store is a
/// server; returns the file.
pub(crate) fn save_beside(run: &Run, store: Option<&Path>) -> anyhow::Result<PathBuf> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let beside = match store.and_then(Path::parent) {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => cwd.clone(),
    };
    save_in(run, &[beside, cwd])
}

/// Saves `run` in the first of `dirs` where that works.
pub(super) fn save_in(run: &Run, dirs: &[PathBuf]) -> anyhow::Result<PathBuf> {
    let name = format!("iolab-run-{}.json", run.run_id);
    let mut failures = Vec::new();
    for dir in dirs {
        let file = dir.join(&name);
        match write_new(&file, run) {
            Ok(()) => return Ok(file),
            Err(err) => failures.push(format!("{}: {err:#}", file.display())),
        }
    }
    bail!(
        "cannot save the run as JSON either ({})",
        failures.join("; ")
    )
}

/// Writes a new file (never over an existing one); a partly written file
/// (a full disk) is removed.
fn write_new(file: &Path, run: &Run) -> anyhow::Result<()> {
    let created = File::create_new(file)?;
    let written = fill(created, run);
    if written.is_err() {
        let _ = std::fs::remove_file(file);
    }
    written
}

fn fill(file: File, run: &Run) -> anyhow::Result<()> {
    let histograms = match run.results.iter().any(|r| r.histogram.is_some()) {
        true => run
            .results
            .iter()
            .map(|r| r.histogram.as_deref().map(hex))
            .collect(),
        false => Vec::new(),
    };
    let mut out = BufWriter::new(file);
    serde_json::to_writer_pretty(&mut out, &Document::new(Saved { run, histograms }))?;
    writeln!(out)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

/// The largest run file read: a run at the import bounds (`vet`) takes a
/// few tens of MiB, and reading takes several times the file in memory.
pub(crate) const MAX_FILE: u64 = 256 << 20;

/// The run in `file` ('-' for stdin), as `iolab run --json` or a run whose
/// storing failed wrote it. Anything else is a usage error naming the file.
pub(crate) fn read_saved(file: &Path) -> anyhow::Result<Run> {
    let text = read_bounded(file)?;
    let not_a_run = |e: serde_json::Error| {
        UsageError::new(format!(
            "{} is not a run as `iolab run --json` writes it: {e}",
            file.display()
        ))
    };
    let version: Version = serde_json::from_str(&text).map_err(not_a_run)?;
    readable_version(version.schema_version)
        .map_err(|why| UsageError::new(format!("{}: {why}", file.display())))?;
    let saved: Document<Saved<Run>> = serde_json::from_str(&text).map_err(not_a_run)?;
    Ok(attach_histograms(saved.body, file)?)
}

/// The one field read before the rest.
#[derive(Deserialize)]
struct Version {
    schema_version: Option<u32>,
}

/// A document's version this iolab reads: one it writes or an older one.
fn readable_version(version: Option<u32>) -> Result<(), String> {
    match version {
        None => Err(format!(
            "no schema_version: every JSON document iolab writes has one (this iolab's is \
             {SCHEMA_VERSION}); write the run again with `iolab show RUN --json`"
        )),
        Some(v) if v > SCHEMA_VERSION || v == 0 => Err(format!(
            "schema_version {v} is not one this iolab reads (1 to {SCHEMA_VERSION}): import it \
             with the iolab that wrote it"
        )),
        Some(_) => Ok(()),
    }
}

/// The text of `file` ('-' for stdin), refused past `MAX_FILE` bytes
/// before more is read.
fn read_bounded(file: &Path) -> Result<String, UsageError> {
    use std::io::Read;
    let cannot =
        |e: std::io::Error| UsageError::new(format!("cannot read {}: {e}", file.display()));
    let too_large = || {
        UsageError::new(format!(
            "{} is larger than {} MiB, more than a run of iolab holds: nothing stored",
            file.display(),
            MAX_FILE >> 20
        ))
    };
    let source: Box<dyn Read> = match file == Path::new("-") {
        true => Box::new(std::io::stdin()),
        false => {
            let opened = File::open(file).map_err(cannot)?;
            if opened.metadata().is_ok_and(|m| m.len() > MAX_FILE) {
                return Err(too_large());
            }
            Box::new(opened)
        }
    };
    let mut text = String::new();
    source
        .take(MAX_FILE + 1)
        .read_to_string(&mut text)
        .map_err(cannot)?;
    match text.len() as u64 > MAX_FILE {
        true => Err(too_large()),
        false => Ok(text),
    }
}

fn attach_histograms(saved: Saved<Run>, file: &Path) -> Result<Run, UsageError> {
    let Saved {
        mut run,
        histograms,
    } = saved;
    if histograms.is_empty() {
        return Ok(run);
    }
    if histograms.len() != run.results.len() {
        return Err(UsageError::new(format!(
            "{} has {} histograms for {} results: expected one (or null) per result",
            file.display(),
            histograms.len(),
            run.results.len()
        )));
    }
    for (idx, (result, text)) in run.results.iter_mut().zip(histograms).enumerate() {
        result.histogram = text
            .map(|t| unhex(&t).ok_or_else(|| not_hex(file, idx)))
            .transpose()?;
    }
    Ok(run)
}

fn not_hex(file: &Path, idx: usize) -> UsageError {
    UsageError::new(format!(
        "{}: histogram {idx} is not hex (expected pairs of 0-9a-f)",
        file.display()
    ))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}
