//! External programs a side talks to (e.g. port-ring's echo program):
//! started without a shell with piped stdin and stdout, dying with iolab
//! (PR_SET_PDEATHSIG, see `sys::spawn`), registered for Ctrl-C, and killed
//! and reaped when their handle is dropped, also on error.

use super::cleanup;
use anyhow::Context;
use rustix::fd::OwnedFd;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running external program.
pub(crate) struct Program {
    child: Child,
}

/// A program just started, with the iolab ends of its stdin and stdout.
pub(crate) struct Started {
    pub(crate) program: Program,
    pub(crate) stdin: OwnedFd,
    pub(crate) stdout: OwnedFd,
}

impl Program {
    /// Starts `path` with `args`; its stderr is discarded. Call from a
    /// thread that outlives the program (its death signal is tied to the
    /// thread that started it).
    pub(crate) fn start(path: &Path, args: &[String]) -> anyhow::Result<Started> {
        let mut cmd = Command::new(path);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        crate::sys::spawn::die_with_parent(&mut cmd);
        let child = cmd
            .spawn()
            .with_context(|| format!("starting {}", path.display()))?;
        let mut program = Program { child };
        let pid = program.pid();
        cleanup::track_child(pid);
        if cleanup::cancelled() {
            cleanup::kill_child(pid);
        }
        let stdin = program.child.stdin.take().context("the program's stdin")?;
        let stdout = program
            .child
            .stdout
            .take()
            .context("the program's stdout")?;
        Ok(Started {
            program,
            stdin: stdin.into(),
            stdout: stdout.into(),
        })
    }

    pub(crate) fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Waits for the program to exit (e.g. once its stdin is closed).
    pub(crate) fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        self.child.wait()
    }

    /// Kills the program if it still runs; it is reaped when dropped.
    pub(crate) fn kill(&self) {
        cleanup::kill_child(self.pid());
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        cleanup::untrack_child(self.pid());
    }
}

/// A command the user asked to watch (`iolab doctor -- CMD`): started
/// without a shell on the terminal's stdin, stdout and stderr, dying with
/// iolab. iolab becomes a subreaper first, so a process the command starts
/// stays iolab's descendant even when its parent exits, and stopping the
/// command stops every process it started.
pub(crate) struct Watched {
    child: Child,
}

impl Watched {
    pub(crate) fn start(argv: &[String]) -> std::io::Result<Watched> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| std::io::Error::other("no command"))?;
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
        let mut cmd = Command::new(program);
        cmd.args(args);
        crate::sys::spawn::die_with_parent(&mut cmd);
        let child = cmd.spawn()?;
        cleanup::track_child(child.id() as i32);
        Ok(Watched { child })
    }

    pub(crate) fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// The command's exit status once it has exited.
    pub(crate) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Kills the command (unless it has exited) and the processes in
    /// `family`, reaps them, and returns the command's exit status.
    pub(crate) fn stop(&mut self, family: &[i32]) -> std::io::Result<std::process::ExitStatus> {
        for pid in family {
            cleanup::kill_child(*pid);
        }
        let status = self.child.wait();
        while let Ok(Some(_)) = rustix::process::waitpid(None, rustix::process::WaitOptions::NOHANG)
        {
        }
        status
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if self.exited().is_none() {
            let _ = self.stop(&[self.pid()]);
        }
        cleanup::untrack_child(self.pid());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_talks_through_its_pipes_and_is_reaped_on_drop() {
        let started = Program::start(Path::new("cat"), &[]).unwrap();
        crate::mechanism::write_all_fd(&started.stdin, b"ping\n").unwrap();
        let mut got = [0u8; 5];
        crate::mechanism::read_exact_fd(&started.stdout, &mut got).unwrap();
        assert_eq!(&got, b"ping\n");
        let pid = rustix::process::Pid::from_raw(started.program.pid()).unwrap();
        drop(started.program);
        assert_eq!(
            rustix::process::test_kill_process(pid),
            Err(rustix::io::Errno::SRCH),
            "killed and reaped while its stdin was still open"
        );
    }

    #[test]
    fn a_missing_program_is_an_error_naming_it() {
        let err = Program::start(Path::new("/no/such/iolab-program"), &[]).err();
        let err = format!("{:#}", err.expect("an error"));
        assert!(
            err.starts_with("starting /no/such/iolab-program: "),
            "{err}"
        );
    }
}
