//! virtme-ng, started for one guest: `vng -r IMAGE` with the mirrored CPUs
//! and memory, the run's temp dir shared read-write (the guest's script,
//! run and log), KVM's CPU model or `--disable-kvm`, and virtme-ng's own
//! temp files in that dir too. It runs as the leader of its own process
//! group (with its QEMU) that error and Ctrl-C kill whole: nothing of a
//! guest outlives the run.

use super::accel::Accel;
use super::kernel::Kernel;
use super::Boot;
use crate::exec::cleanup;
use anyhow::Context;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Boots `kernel` and runs the script in `dir`; returns virtme-ng's log.
pub(crate) fn run(kernel: &Kernel, boot: &Boot, dir: &Path) -> anyhow::Result<String> {
    let script = format!("sh {}/guest.sh", dir.display());
    let mut cmd = command(
        kernel,
        &boot.accel,
        boot.mirror.cpus,
        boot.mirror.memory_mib,
        dir,
    );
    cmd.args(["--exec", &script]);
    let log = dir.join("vng.log");
    let outcome = wait(cmd, &log, None);
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    match outcome {
        Ok(()) => Ok(said),
        Err(e) if e.downcast_ref::<crate::error::Interrupted>().is_some() => Err(e),
        Err(e) => {
            let guest = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
            Err(e.context(format!(
                "the guest of {}: {}",
                kernel.release,
                super::last_lines(&format!("{said}\n{guest}"))
            )))
        }
    }
}

/// Boots `kernel` under `accel` to run `true`, within PROBE_SECONDS: Err
/// says how it failed.
pub(crate) fn probe(kernel: &Kernel, accel: &Accel) -> Result<(), String> {
    let dir = crate::sys::owner::private_temp_dir().map_err(|e| e.to_string())?;
    cleanup::track_dir(dir.path().to_path_buf());
    let mut cmd = command(kernel, accel, 1, 512, dir.path());
    cmd.args(["--exec", "true"]);
    let log = dir.path().join("vng.log");
    let limit = Duration::from_secs(super::accel::PROBE_SECONDS);
    let outcome = wait(cmd, &log, Some(limit)).map_err(|e| {
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        match said.lines().rev().find(|l| l.contains("error")) {
            Some(line) => format!("{e}: {}", crate::format::printable(line, 200)),
            None => e.to_string(),
        }
    });
    cleanup::untrack_dir(dir.path());
    outcome
}

fn command(kernel: &Kernel, accel: &Accel, cpus: usize, memory_mib: u64, dir: &Path) -> Command {
    let mut cmd = Command::new("vng");
    cmd.arg("-r")
        .arg(&kernel.image)
        .args([
            "--cpus",
            &cpus.to_string(),
            "--memory",
            &format!("{memory_mib}M"),
        ])
        .arg(format!("--rwdir={}", dir.display()))
        .env("TMPDIR", dir)
        .current_dir(dir);
    match accel {
        Accel::Emulated => cmd.arg("--disable-kvm"),
        Accel::Kvm { cpu } => cmd.arg(format!("--qemu-opts=-cpu {cpu}")),
    };
    cmd
}

/// Runs `cmd` in a process group of its own, its output into `log`, until
/// it ends, `limit` passes (then the group is killed: an error) or the run
/// is cancelled (the group is killed: Interrupted).
fn wait(mut cmd: Command, log: &Path, limit: Option<Duration>) -> anyhow::Result<()> {
    let out = std::fs::File::create(log).context("the guest's log")?;
    cmd.stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .process_group(0);
    crate::sys::spawn::die_with_parent(&mut cmd);
    let mut child = cmd.spawn().context("starting vng")?;
    let pgid = child.id() as i32;
    cleanup::track_group(pgid);
    let started = Instant::now();
    let outcome = loop {
        if let Some(signal) = crate::cancel::cancelled_by() {
            break Err(crate::error::Interrupted(signal).into());
        }
        if limit.is_some_and(|l| started.elapsed() > l) {
            break Err(anyhow::anyhow!(
                "no answer within {} s",
                limit.unwrap_or_default().as_secs()
            ));
        }
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break Ok(()),
            Ok(Some(status)) => break Err(anyhow::anyhow!("vng ended with {status}")),
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => break Err(e.into()),
        }
    };
    cleanup::kill_group(pgid);
    let _ = child.wait();
    reap_group(pgid);
    cleanup::untrack_group(pgid);
    outcome
}

/// Waits (at most 5 s) until no process of group `pgid` is left: QEMU
/// has been killed but may take a moment to go.
fn reap_group(pgid: i32) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && group_alive(pgid) {
        cleanup::kill_group(pgid);
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn group_alive(pgid: i32) -> bool {
    rustix::process::Pid::from_raw(pgid)
        .is_some_and(|p| rustix::process::test_kill_process_group(p).is_ok())
}
