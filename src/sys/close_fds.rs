//! A child that closes every descriptor it may have before exec, as a
//! spawning library that does not trust CLOEXEC does: one close(2) per
//! descriptor number up to RLIMIT_NOFILE, or one close_range(2). The work
//! runs between fork and exec (`pre_exec`), which is unsafe, so it is here.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// How the child closes its descriptors from 3 up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Closing {
    /// close(2) on every number below the soft RLIMIT_NOFILE.
    Loop,
    /// One close_range(2) over every number.
    Range,
}

/// Runs `program` (no arguments, no input or output) to its end, its
/// child closing descriptors as `close_before_exec` says.
pub(crate) fn run_closing(program: &Path, limit: u64, how: Closing) -> io::Result<ExitStatus> {
    let mut cmd = Command::new(program);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    close_before_exec(&mut cmd, limit, how).status()
}

/// Makes `cmd`'s child set its soft RLIMIT_NOFILE to `limit` (the hard
/// limit unchanged) and then close its descriptors from 3 up as `how`
/// says, before exec. Only the child's limit changes, never iolab's.
fn close_before_exec(cmd: &mut Command, limit: u64, how: Closing) -> &mut Command {
    // SAFETY: the closure runs in the forked child before exec and only
    // makes async-signal-safe system calls (getrlimit, setrlimit, close,
    // close_range); it allocates nothing and touches no lock.
    unsafe {
        cmd.pre_exec(move || {
            let mut rl = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            super::cvt(libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl))?;
            rl.rlim_cur = limit as libc::rlim_t;
            super::cvt(libc::setrlimit(libc::RLIMIT_NOFILE, &rl))?;
            match how {
                Closing::Loop => {
                    for fd in 3..limit as libc::c_int {
                        libc::close(fd);
                    }
                }
                Closing::Range => {
                    let ret = libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
                    super::cvt(ret as libc::c_int)?;
                }
            }
            Ok(())
        })
    }
}
