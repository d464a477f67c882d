//! How the guest's CPU runs: under KVM where /dev/kvm is there and a probe
//! boot shows a guest starts with the chosen CPU model, else emulated
//! (QEMU's TCG: every timing is QEMU's, so timed claims are not judged).
//! On a nested VM QEMU may stop on an MSR it cannot set with `-cpu host`
//! ("failed to set MSR 0x10a"), which `host,-arch-capabilities` avoids, or
//! the guest may hang in its first instructions; the probe boot finds out.

use super::kernel::Kernel;

/// The CPU model under KVM unless `--guest-cpu` names another: the host's
/// CPU without the MSR a nested hypervisor may refuse.
pub(crate) const DEFAULT_CPU: &str = "host,-arch-capabilities";
/// How long a probe boot under KVM may take before KVM is taken not to work.
pub(crate) const PROBE_SECONDS: u64 = 30;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Accel {
    Kvm { cpu: String },
    Emulated,
}

impl Accel {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Accel::Kvm { .. } => "kvm",
            Accel::Emulated => "emulated",
        }
    }

    pub(crate) fn cpu_model(&self) -> Option<String> {
        match self {
            Accel::Kvm { cpu } => Some(cpu.clone()),
            Accel::Emulated => None,
        }
    }
}

/// Whether /dev/kvm can be opened for reading and writing.
pub(crate) fn kvm_usable() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
        .is_ok()
}

/// The accelerator `choice` ("auto", "kvm", "emulated") gives here: auto
/// boots `kernel` once under KVM with `cpu` and falls back to emulation,
/// saying why, when /dev/kvm is missing or the guest does not come up.
pub(crate) fn choose(choice: &str, cpu: &str, kernel: &Kernel) -> anyhow::Result<Accel> {
    let kvm = Accel::Kvm {
        cpu: cpu.to_string(),
    };
    match choice {
        "emulated" => Ok(Accel::Emulated),
        "kvm" if !kvm_usable() => anyhow::bail!("--guest-accel kvm: /dev/kvm cannot be opened here (load kvm_intel or kvm_amd; in a VM, enable nested virtualization)"),
        "kvm" => Ok(kvm),
        _ if !kvm_usable() => {
            eprintln!("guest: no usable /dev/kvm: the guests' CPUs are emulated, their timed claims not judged");
            Ok(Accel::Emulated)
        }
        _ => match super::vng::probe(kernel, &kvm) {
            Ok(()) => Ok(kvm),
            Err(why) => {
                if let Some(signal) = crate::cancel::cancelled_by() {
                    return Err(crate::error::Interrupted(signal).into());
                }
                eprintln!("guest: KVM with -cpu {cpu} did not boot {} ({why}): the guests' CPUs are emulated, their timed claims not judged", kernel.release);
                Ok(Accel::Emulated)
            }
        },
    }
}
