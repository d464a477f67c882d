//! The external "port" program a relay talks to: found before anything
//! runs, then started by the harness (`exec::program`: no shell, piped
//! stdin/stdout, registered for Ctrl-C, dying with iolab, always killed
//! and reaped at the end).

use crate::exec::program::{Program, Started};
use std::path::{Path, PathBuf};

/// The `echo` parameter: a program and its arguments, split on whitespace;
/// None for `none` (the relay echoes in-process).
#[derive(Debug, Clone)]
pub(crate) struct EchoCmd {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
}

pub(crate) fn parse(text: &str) -> Result<Option<EchoCmd>, String> {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return Err(
            "invalid value '' for echo: expected a program and its arguments, or none".into(),
        );
    };
    if first == "none" && words.clone().next().is_none() {
        return Ok(None);
    }
    let program = resolve(first).ok_or_else(|| {
        format!(
            "invalid value '{text}' for echo: program '{first}' was not found on PATH or is not executable; expected a program and its arguments (run without a shell), or none"
        )
    })?;
    Ok(Some(EchoCmd {
        program,
        args: words.map(str::to_string).collect(),
    }))
}

/// The executable `name` names: a path as given, or the first match on PATH.
fn resolve(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return executable(Path::new(name)).then(|| PathBuf::from(name));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| executable(p))
}

fn executable(path: &Path) -> bool {
    path.is_file() && rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok()
}

impl EchoCmd {
    /// Starts the program through the harness; call from the thread that
    /// outlives it (its death signal is tied to the spawning thread).
    pub(crate) fn start(&self) -> anyhow::Result<Started> {
        Program::start(&self.program, &self.args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_cat_and_missing() {
        assert!(parse("none").unwrap().is_none());
        let cat = parse("cat -u").unwrap().unwrap();
        assert!(cat.program.ends_with("cat"));
        assert_eq!(cat.args, vec!["-u"]);
        let err = parse("no-such-program-iolab x").unwrap_err();
        assert!(
            err.contains("'no-such-program-iolab' was not found"),
            "{err}"
        );
        assert!(parse("/etc/passwd").is_err());
    }
}
