//! The outputs (`--json`, `--csv`, `--openmetrics`, `--bmf`, ...) checked
//! before anything is measured: a run that measures for minutes and then
//! cannot write its output has wasted them. A path must name a file (not a
//! directory) in an existing directory this user may write to, and at most
//! one output may take standard output.

use crate::error::{UsageError, UsageResult};
use std::path::Path;

/// Refuses outputs that could not be written, or that would share stdout;
/// `outputs` are each option given and its path.
pub(crate) fn check(outputs: &[(&str, &Path)]) -> UsageResult<()> {
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
    for (option, path) in outputs {
        if *path != Path::new("-") {
            writable(option, path)?;
        }
    }
    Ok(())
}

/// Whether `path` can be created or overwritten, said as `option`'s error.
pub(crate) fn writable(option: &str, path: &Path) -> UsageResult<()> {
    let bad = |why: String| {
        Err(UsageError::new(format!(
            "invalid {option} '{}': {why}",
            path.display()
        )))
    };
    if path.is_dir() {
        return bad("it is a directory: give a file name".into());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return bad(format!("no directory {}", parent.display()));
    }
    let target = if path.exists() { path } else { parent };
    if rustix::fs::access(target, rustix::fs::Access::WRITE_OK).is_err() {
        return bad(format!("{} is not writable", target.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_two(json: Option<&Path>, csv: Option<&Path>) -> UsageResult<()> {
        let given = [("--json", json), ("--csv", csv)];
        let given: Vec<(&str, &Path)> = given
            .into_iter()
            .filter_map(|(o, p)| Some((o, p?)))
            .collect();
        check(&given)
    }

    fn refusal(json: Option<&str>, csv: Option<&str>) -> String {
        match check_two(json.map(Path::new), csv.map(Path::new)) {
            Ok(()) => panic!("accepted {json:?} {csv:?}"),
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
        let file = dir.path().join("run.json");
        assert!(check_two(Some(&file), Some(Path::new("-"))).is_ok());
        assert!(check_two(Some(Path::new("-")), None).is_ok());
        let both = check(&[("--json", Path::new("-")), ("--bmf", Path::new("-"))]);
        assert_eq!(
            both.unwrap_err().0,
            "--json - and --bmf - would both write to standard output: give one of them a file"
        );
        assert!(!file.exists(), "the check wrote {}", file.display());
    }
}
