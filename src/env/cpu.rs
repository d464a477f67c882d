//! What the processor side of the machine looks like: model, online CPUs,
//! SMT, frequency governor, clocksource and the speculative-execution
//! mitigations in force. Each of these moves IPC numbers (a wake-up across
//! SMT siblings, a `powersave` governor, retpolines on every syscall), so a
//! run records them next to its results.

use super::read_text;
use crate::model::Environment;
use std::path::Path;

pub(crate) const CPUINFO: &str = "/proc/cpuinfo";
const ONLINE: &str = "/sys/devices/system/cpu/online";
const SMT_ACTIVE: &str = "/sys/devices/system/cpu/smt/active";
const GOVERNOR: &str = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor";
const CLOCKSOURCE: &str = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
const VULNERABILITIES: &str = "/sys/devices/system/cpu/vulnerabilities";
const DT_MODEL: &str = "/proc/device-tree/model";

/// Fills the CPU fields of `env`; what cannot be read stays unknown.
pub(crate) fn fill(env: &mut Environment, cpuinfo: &str) {
    env.cpu_model = parse_cpu_model(cpuinfo)
        .or_else(|| read_text(DT_MODEL).map(|m| m.trim_end_matches('\0').to_string()))
        .unwrap_or_default();
    let online = read_text(ONLINE).unwrap_or_default();
    env.cpus = parse_cpu_list(&online)
        .map(|cpus| cpus.len())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| fallback_cpu_count(cpuinfo));
    env.cpus_online = online;
    env.smt = read_text(SMT_ACTIVE).and_then(|s| parse_smt(&s));
    env.governor = read_text(GOVERNOR).filter(|s| !s.is_empty());
    env.clocksource = read_text(CLOCKSOURCE).filter(|s| !s.is_empty());
    env.mitigations = filter_mitigations(read_vulnerabilities(Path::new(VULNERABILITIES)));
}

/// Parses a kernel CPU list such as `0-1,4` into `[0, 1, 4]`; None if any
/// part is malformed.
pub(crate) fn parse_cpu_list(text: &str) -> Option<Vec<usize>> {
    let text = text.trim();
    if text.is_empty() {
        return Some(Vec::new());
    }
    let mut cpus = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi): (usize, usize) = (lo.parse().ok()?, hi.parse().ok()?);
                if lo > hi {
                    return None;
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// The processor's name from `/proc/cpuinfo` text. x86 has `model name`;
/// other architectures use other keys, and arm64 only gives implementer and
/// part numbers.
pub(crate) fn parse_cpu_model(cpuinfo: &str) -> Option<String> {
    const KEYS: [&str; 5] = ["model name", "Hardware", "cpu model", "cpu", "uarch"];
    KEYS.iter()
        .find_map(|key| cpuinfo_value(cpuinfo, key))
        .map(str::to_string)
        .or_else(|| arm_model(cpuinfo))
}

/// The value of the first `key : value` line in cpuinfo text whose key is
/// exactly `key`, if it is not empty.
pub(crate) fn cpuinfo_value<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        let v = v.trim();
        (k.trim() == key && !v.is_empty()).then_some(v)
    })
}

/// `ARM part 0xd0c` style name from arm64 implementer and part numbers.
fn arm_model(cpuinfo: &str) -> Option<String> {
    let implementer = cpuinfo_value(cpuinfo, "CPU implementer")?;
    let part = cpuinfo_value(cpuinfo, "CPU part").unwrap_or("unknown");
    let vendor = match implementer {
        "0x41" => "ARM".to_string(),
        "0x42" => "Broadcom".to_string(),
        "0x43" => "Cavium".to_string(),
        "0x48" => "HiSilicon".to_string(),
        "0x4e" => "NVIDIA".to_string(),
        "0x51" => "Qualcomm".to_string(),
        "0x61" => "Apple".to_string(),
        "0xc0" => "Ampere".to_string(),
        other => format!("implementer {other}"),
    };
    Some(format!("{vendor} part {part}"))
}

/// Counts `processor` lines when the online list is unreadable; at least 1.
fn fallback_cpu_count(cpuinfo: &str) -> usize {
    let n = cpuinfo
        .lines()
        .filter(|l| {
            l.split_once(':')
                .is_some_and(|(k, _)| k.trim() == "processor")
        })
        .count();
    if n > 0 {
        return n;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `/sys/devices/system/cpu/smt/active` holds `1` or `0`.
pub(crate) fn parse_smt(text: &str) -> Option<bool> {
    match text.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// Every (file name, content) pair of the vulnerabilities directory.
fn read_vulnerabilities(dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let content = read_text(e.path())?;
            Some((name, content))
        })
        .collect()
}

/// `name: content` for each vulnerability that is not "Not affected",
/// sorted by name.
pub(crate) fn filter_mitigations(mut entries: Vec<(String, String)>) -> Vec<String> {
    entries.sort();
    entries
        .into_iter()
        .map(|(name, content)| (name, content.trim().to_string()))
        .filter(|(_, content)| !content.is_empty() && content != "Not affected")
        .map(|(name, content)| format!("{name}: {content}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu vme hypervisor\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
    const ARM64: &str = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd0c\nCPU revision\t: 1\n";

    #[test]
    fn cpu_list_ranges_and_singles() {
        assert_eq!(parse_cpu_list("0-1,4"), Some(vec![0, 1, 4]));
        assert_eq!(parse_cpu_list("0\n"), Some(vec![0]));
        assert_eq!(parse_cpu_list("2-3,6-7"), Some(vec![2, 3, 6, 7]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("a-b"), None);
    }

    #[test]
    fn model_name_on_x86() {
        assert_eq!(parse_cpu_model(X86).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(fallback_cpu_count(X86), 2);
    }

    #[test]
    fn model_from_arm64_implementer_and_part() {
        assert_eq!(parse_cpu_model(ARM64).as_deref(), Some("ARM part 0xd0c"));
    }

    #[test]
    fn model_from_other_keys() {
        let ppc = "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\n";
        assert_eq!(
            parse_cpu_model(ppc).as_deref(),
            Some("POWER9 (architected), altivec supported")
        );
        assert_eq!(parse_cpu_model("processor : 0\n"), None);
    }

    #[test]
    fn smt_values() {
        assert_eq!(parse_smt("1\n"), Some(true));
        assert_eq!(parse_smt("0"), Some(false));
        assert_eq!(parse_smt("notsupported"), None);
    }

    #[test]
    fn mitigations_skip_not_affected_and_sort() {
        let entries = vec![
            (
                "spectre_v2".to_string(),
                "Mitigation: Retpolines\n".to_string(),
            ),
            ("meltdown".to_string(), "Not affected\n".to_string()),
            ("mds".to_string(), "Vulnerable".to_string()),
        ];
        assert_eq!(
            filter_mitigations(entries),
            vec!["mds: Vulnerable", "spectre_v2: Mitigation: Retpolines"]
        );
    }
}
