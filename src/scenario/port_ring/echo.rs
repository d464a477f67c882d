//! The external "port" program a relay talks to: found before anything
//! runs, started without a shell with piped stdin/stdout, registered for
//! Ctrl-C, dying with iolab, and always killed and reaped at the end.

use crate::exec::cleanup;
use anyhow::Context;
use rustix::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The `echo` parameter: a program and its arguments, split on whitespace;
/// None for `none` (the relay echoes in-process).
#[derive(Debug, Clone)]
pub struct EchoCmd {
    pub program: PathBuf,
    pub args: Vec<String>,
}

pub fn parse(text: &str) -> Result<Option<EchoCmd>, String> {
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

/// A running echo program: the pipe ends go to its relay, the handle stays
/// with the ring's owner, who reaps it.
pub struct Echo {
    pub child: Child,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
}

impl EchoCmd {
    /// Starts the program; call from the thread that outlives it (its
    /// death signal is tied to the spawning thread).
    pub fn spawn(&self) -> anyhow::Result<Echo> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        crate::sys::spawn::die_with_parent(&mut cmd);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", self.program.display()))?;
        cleanup::track_child(child.id() as i32);
        if cleanup::cancelled() {
            cleanup::kill_child(child.id() as i32);
        }
        let stdin = child.stdin.take().context("echo stdin")?;
        let stdout = child.stdout.take().context("echo stdout")?;
        Ok(Echo {
            child,
            stdin: stdin.into(),
            stdout: stdout.into(),
        })
    }
}

/// Kills (if still running) and reaps every echo program.
pub fn reap_all(children: &mut Vec<Child>) {
    for child in children.iter_mut() {
        if !matches!(child.try_wait(), Ok(Some(_))) {
            let _ = child.kill();
            let _ = child.wait();
        }
        cleanup::untrack_child(child.id() as i32);
    }
    children.clear();
}

/// Kills every echo program still running, without reaping.
pub fn kill_all(children: &[Child]) {
    for child in children {
        cleanup::kill_child(child.id() as i32);
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
