//! What booting another kernel needs here, each missing one named in one
//! line with the command that installs it: virtme-ng's `vng`, QEMU, the
//! static busybox virtme-ng's init takes, and for KVM, /dev/kvm.

use crate::error::UsageError;
use std::path::{Path, PathBuf};

/// The QEMU virtme-ng starts.
pub(crate) const QEMU: &str = "qemu-system-x86_64";

/// Where a program is on PATH.
pub(crate) fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Every missing prerequisite, one line each with its install command.
pub(crate) fn missing() -> Vec<String> {
    let mut missing = Vec::new();
    if on_path("vng").is_none() {
        missing.push("virtme-ng's vng is not on PATH: pip install virtme-ng".to_string());
    }
    if on_path(QEMU).is_none() {
        missing.push(format!(
            "{QEMU} is not on PATH: apt-get install qemu-system-x86"
        ));
    }
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .iter()
        .any(|p| static_busybox(Path::new(p)));
    if !busybox {
        missing
            .push("no static busybox for virtme-ng's init: apt-get install busybox-static".into());
    }
    missing
}

/// Refuses `run --kernel` when something to boot a guest is missing.
pub(crate) fn check() -> anyhow::Result<()> {
    match missing().as_slice() {
        [] => Ok(()),
        lines => Err(UsageError::new(format!(
            "--kernel cannot boot a guest here: {}",
            lines.join("; ")
        ))
        .into()),
    }
}

/// Whether `path` is a statically linked busybox (no ELF interpreter).
fn static_busybox(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let interp = b"/lib64/ld-linux";
    !bytes.windows(interp.len()).any(|w| w == interp)
}

/// "virtme-ng 1.42 on QEMU 7.2.x".
pub(crate) fn via() -> String {
    let first_line = |program: &str, arg: &str| {
        std::process::Command::new(program)
            .arg(arg)
            .output()
            .ok()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    };
    let qemu = first_line(QEMU, "--version");
    let qemu = qemu.split_whitespace().nth(3).unwrap_or("?");
    format!("{} on QEMU {qemu}", first_line("vng", "--version").trim())
}
