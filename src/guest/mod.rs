//! `run --kernel K`: the same binary and the same suite under another
//! kernel, booted through virtme-ng (`vng`) on a copy-on-write view of
//! this system. Each kernel is named by its image, its release or its
//! Debian package (`kernel.rs`); what is missing to boot one is one line
//! with its install command (`prereq.rs`); the guest mirrors the host's
//! CPUs, memory, open-file limits and cgroup controllers where it can
//! (`mirror.rs`); its CPU is KVM's when a probe boot shows it works here,
//! else emulated (`accel.rs`); virtme-ng and its QEMU run in a process
//! group of their own, killed on error and Ctrl-C, and every file of the
//! guest lives in the run's private temp dir (`vng.rs`). The guest's run
//! comes back as JSON and is stored as a run of that kernel, its
//! environment saying how the kernel ran (`model::Guest`); under
//! emulation its timed claims are "not judged: emulated CPU".

pub(crate) mod accel;
pub(crate) mod kernel;
pub(crate) mod mirror;
pub(crate) mod prereq;
pub(crate) mod vng;

use crate::model::{Guest, Run};
pub(crate) use accel::Accel;
use anyhow::Context;
pub(crate) use kernel::Kernel;

/// How every guest of one `run --kernel` boots.
pub(crate) struct Boot {
    pub(crate) accel: Accel,
    pub(crate) mirror: mirror::Mirror,
}

/// Runs `iolab run ARGS` in a guest of `kernel` and returns its run, with
/// the guest in its environment.
pub(crate) fn run(kernel: &Kernel, boot: &Boot, args: &[String]) -> anyhow::Result<Run> {
    let dir = crate::sys::owner::private_temp_dir().context("the guest's temp dir")?;
    crate::exec::cleanup::track_dir(dir.path().to_path_buf());
    let outcome = run_in(kernel, boot, args, dir.path());
    crate::exec::cleanup::untrack_dir(dir.path());
    outcome
}

fn run_in(
    kernel: &Kernel,
    boot: &Boot,
    args: &[String],
    dir: &std::path::Path,
) -> anyhow::Result<Run> {
    // This very binary, copied: rebuilt or removed meanwhile, the guest
    // still runs what the host ran.
    let iolab = dir.join("iolab");
    std::fs::copy("/proc/self/exe", &iolab).context("copying iolab for the guest")?;
    let script = boot.mirror.script(&iolab, args, dir);
    std::fs::write(dir.join("guest.sh"), script).context("writing the guest's script")?;
    let log = vng::run(kernel, boot, dir)?;
    let json = std::fs::read_to_string(dir.join("run.json")).map_err(|_| {
        let said = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
        anyhow::anyhow!(
            "the guest of {} wrote no run: {}",
            kernel.release,
            last_lines(if said.trim().is_empty() { &log } else { &said })
        )
    })?;
    let mut run: Run = serde_json::from_str(&json).context("the guest's run")?;
    let unmirrored = std::fs::read_to_string(dir.join("unmirrored")).unwrap_or_default();
    let mut guest = Guest {
        image: kernel.image.display().to_string(),
        accel: boot.accel.name().to_string(),
        cpu_model: boot.accel.cpu_model(),
        cpus: boot.mirror.cpus,
        memory_bytes: run.environment.memory_bytes,
        via: prereq::via(),
        unmirrored: boot.mirror.unmirrored.clone(),
    };
    guest
        .unmirrored
        .extend(unmirrored.lines().map(str::to_string));
    if boot.accel == Accel::Emulated {
        crate::claims::not_judged_when_timed(&mut run.claims, "emulated CPU");
    }
    run.environment.guest = Some(guest);
    Ok(run)
}

/// The last few lines of what a guest said, as one line.
pub(crate) fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(3)..];
    crate::format::printable(&tail.join(" / "), 400)
}
