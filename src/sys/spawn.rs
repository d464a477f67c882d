//! Starting an external program that dies with iolab. `pre_exec` runs code
//! between fork and exec, which is unsafe, so it is wrapped here.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes the program `cmd` starts get SIGKILL when the thread that spawned
/// it exits (PR_SET_PDEATHSIG), so no echo program outlives a crashed or
/// killed iolab. Spawn from a thread that outlives the child.
pub(crate) fn die_with_parent(cmd: &mut Command) -> &mut Command {
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child before exec and only
    // makes async-signal-safe system calls (prctl, getppid); it allocates
    // nothing and touches no lock.
    unsafe {
        cmd.pre_exec(move || {
            super::cvt(libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
            ))?;
            if libc::getppid() != parent.as_raw_nonzero().get() {
                return Err(std::io::Error::other("parent exited during spawn"));
            }
            Ok(())
        })
    }
}
