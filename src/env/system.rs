//! What the rest of the machine looks like: kernel, architecture, host,
//! memory, whether we run under a hypervisor, the open-file limit and
//! whether we are root. These decide what a run may do (how many fds
//! `poll-scale` can open, whether netns works) and how to read its numbers.

use super::{cpu::cpuinfo_value, read_text};
use crate::model::Environment;
use rustix::process::{geteuid, getrlimit, Resource};

const MEMINFO: &str = "/proc/meminfo";
const HYPERVISOR_TYPE: &str = "/sys/hypervisor/type";
const DMI_VENDOR: &str = "/sys/class/dmi/id/sys_vendor";
const DMI_PRODUCT: &str = "/sys/class/dmi/id/product_name";

/// Fills the kernel, host, memory, hypervisor, limit and privilege fields.
pub(crate) fn fill(env: &mut Environment, cpuinfo: &str) {
    fill_uname(env);
    env.memory_bytes = read_text(MEMINFO)
        .and_then(|m| parse_mem_total(&m))
        .unwrap_or(0);
    env.hypervisor = hypervisor(cpuinfo);
    let (soft, hard) = nofile();
    env.nofile_soft = soft;
    env.nofile_hard = hard;
    env.root = geteuid().is_root();
}

fn fill_uname(env: &mut Environment) {
    let uts = rustix::system::uname();
    let text = |c: &std::ffi::CStr| c.to_string_lossy().into_owned();
    env.kernel = text(uts.release());
    env.kernel_version = text(uts.version());
    env.arch = text(uts.machine());
    env.hostname = text(uts.nodename());
}

/// `MemTotal` of `/proc/meminfo` text, in bytes.
pub(crate) fn parse_mem_total(meminfo: &str) -> Option<u64> {
    meminfo_field(meminfo, "MemTotal")
}

/// `MemAvailable` of `/proc/meminfo`, in bytes: what can be allocated
/// without swapping.
pub(crate) fn mem_available() -> Option<u64> {
    read_text(MEMINFO).and_then(|m| meminfo_field(&m, "MemAvailable"))
}

/// The field `key` of `/proc/meminfo` text, in bytes.
fn meminfo_field(meminfo: &str, key: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))?;
    let mut words = line[key.len() + 1..].split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    let scale = match words.next() {
        Some("kB") => 1024,
        None => 1,
        Some(_) => return None,
    };
    value.checked_mul(scale)
}

/// RLIMIT_NOFILE as (soft, hard); `u64::MAX` stands for unlimited.
fn nofile() -> (u64, u64) {
    let limit = getrlimit(Resource::Nofile);
    (
        limit.current.unwrap_or(u64::MAX),
        limit.maximum.unwrap_or(u64::MAX),
    )
}

/// The hypervisor we run under, None on (apparent) bare metal.
fn hypervisor(cpuinfo: &str) -> Option<String> {
    let xen_type = read_text(HYPERVISOR_TYPE);
    if !has_hypervisor_flag(cpuinfo) && xen_type.is_none() {
        return None;
    }
    let vendor = read_text(DMI_VENDOR);
    let product = read_text(DMI_PRODUCT);
    Some(hypervisor_name(
        xen_type.as_deref(),
        vendor.as_deref(),
        product.as_deref(),
    ))
}

/// Whether the x86 `flags` line of cpuinfo text carries `hypervisor`.
pub(crate) fn has_hypervisor_flag(cpuinfo: &str) -> bool {
    cpuinfo_value(cpuinfo, "flags").is_some_and(|f| f.split_whitespace().any(|w| w == "hypervisor"))
}

/// A name from the sources that exist, best first; "unknown" when the
/// hypervisor hides behind no readable file (e.g. Firecracker has no DMI).
pub(crate) fn hypervisor_name(
    sys_type: Option<&str>,
    vendor: Option<&str>,
    product: Option<&str>,
) -> String {
    match (known(sys_type), known(vendor), known(product)) {
        (Some(t), _, _) => t.to_string(),
        (None, Some(v), Some(p)) => format!("{v} {p}"),
        (None, Some(one), None) | (None, None, Some(one)) => one.to_string(),
        (None, None, None) => "unknown".to_string(),
    }
}

/// A trimmed, non-empty value.
fn known(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_total_in_bytes() {
        let meminfo = "MemTotal:       24683656 kB\nMemFree:         1000 kB\n";
        assert_eq!(parse_mem_total(meminfo), Some(24_683_656 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: x kB\n"), None);
    }

    #[test]
    fn hypervisor_flag_only_in_flags_line() {
        assert!(has_hypervisor_flag(
            "flags\t\t: fpu vme hypervisor lahf_lm\n"
        ));
        assert!(!has_hypervisor_flag(
            "flags\t\t: fpu vme\nmodel name : hypervisor\n"
        ));
        assert!(!has_hypervisor_flag(""));
    }

    #[test]
    fn hypervisor_name_prefers_sys_type() {
        assert_eq!(
            hypervisor_name(Some("xen"), Some("Xen"), Some("HVM domU")),
            "xen"
        );
        assert_eq!(
            hypervisor_name(None, Some("QEMU"), Some("Standard PC")),
            "QEMU Standard PC"
        );
        assert_eq!(
            hypervisor_name(None, Some("Amazon EC2"), None),
            "Amazon EC2"
        );
        assert_eq!(hypervisor_name(None, Some(" "), None), "unknown");
        assert_eq!(hypervisor_name(None, None, None), "unknown");
    }
}
