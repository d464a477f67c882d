//! Placement: which CPU each side of a case runs on. `cross-cpu` prefers two
//! CPUs that are not SMT siblings; the topology placements take one CPU pair
//! of their class (see `topology`). The CPUs chosen are reported with every
//! result because on a VM they change figures by an order of magnitude.

use crate::measure::topology::{Class, Topology, ALL_CLASSES};
use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    SameCpu,
    CrossCpu,
    Unpinned,
    /// The lowest-numbered allowed CPU pair of a topology class.
    Topology(Class),
}

pub(crate) const ALL_PLACEMENTS: [Placement; 8] = [
    Placement::SameCpu,
    Placement::CrossCpu,
    Placement::Unpinned,
    Placement::Topology(ALL_CLASSES[0]),
    Placement::Topology(ALL_CLASSES[1]),
    Placement::Topology(ALL_CLASSES[2]),
    Placement::Topology(ALL_CLASSES[3]),
    Placement::Topology(ALL_CLASSES[4]),
];

impl Placement {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Placement::SameCpu => "same-cpu",
            Placement::CrossCpu => "cross-cpu",
            Placement::Unpinned => "unpinned",
            Placement::Topology(class) => class.name(),
        }
    }

    pub fn parse(text: &str) -> Option<Placement> {
        ALL_PLACEMENTS.into_iter().find(|p| p.name() == text)
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The CPU each of the two sides is pinned to (None: unpinned).
pub(crate) type Cpus = [Option<usize>; 2];

/// Chooses CPUs for `placement` from the CPUs this process may use.
pub fn choose(placement: Placement) -> Result<Cpus, String> {
    let allowed = allowed_cpus();
    match placement {
        Placement::Unpinned => Ok([None, None]),
        Placement::SameCpu => {
            let cpu = *allowed.first().ok_or("no CPU is allowed")?;
            Ok([Some(cpu), Some(cpu)])
        }
        Placement::CrossCpu => cross_pair(&allowed).map(|(a, b)| [Some(a), Some(b)]),
        Placement::Topology(class) => Topology::here()
            .pair(class, &allowed)
            .map(|(a, b)| [Some(a), Some(b)]),
    }
}

fn cross_pair(allowed: &[usize]) -> Result<(usize, usize), String> {
    let first = *allowed.first().ok_or("no CPU is allowed")?;
    let siblings = Topology::here().threads(first);
    let other = allowed
        .iter()
        .copied()
        .find(|c| *c != first && !siblings.contains(c))
        .or_else(|| allowed.iter().copied().find(|c| *c != first));
    match other {
        Some(second) => Ok((first, second)),
        None => Err(format!(
            "cross-cpu needs two CPUs, this process may only use {allowed:?}"
        )),
    }
}

/// CPUs in this process's affinity mask as it was at the first call
/// (ascending), so a thread that pinned itself does not shrink the choice.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    static ALLOWED: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
    ALLOWED
        .get_or_init(|| match sched_getaffinity(None) {
            Ok(set) => (0..CpuSet::MAX_CPU).filter(|c| set.is_set(*c)).collect(),
            Err(_) => vec![0],
        })
        .clone()
}

/// Parses a kernel CPU list such as "0-3,8,10-11".
pub(crate) fn parse_cpu_list(text: &str) -> Vec<usize> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((lo, hi)) => {
                if let (Ok(lo), Ok(hi)) = (lo.parse::<usize>(), hi.parse::<usize>()) {
                    cpus.extend(lo..=hi);
                }
            }
            None => cpus.extend(part.parse::<usize>().ok()),
        }
    }
    cpus
}

/// Pins the calling thread to `cpu` (no-op for None).
pub fn pin_current(cpu: Option<usize>) -> std::io::Result<()> {
    let Some(cpu) = cpu else { return Ok(()) };
    let mut set = CpuSet::new();
    set.set(cpu);
    sched_setaffinity(None, &set)?;
    Ok(())
}

/// The CPU the calling thread is on right now.
pub(crate) fn current_cpu() -> usize {
    rustix::thread::sched_getcpu()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse() {
        assert_eq!(parse_cpu_list("0-3,8,10-11\n"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(parse_cpu_list("1"), vec![1]);
        assert!(parse_cpu_list("").is_empty());
    }

    #[test]
    fn names_round_trip() {
        for p in ALL_PLACEMENTS {
            assert_eq!(Placement::parse(p.name()), Some(p));
        }
        assert_eq!(Placement::parse("same"), None);
    }

    #[test]
    fn cross_needs_two_cpus() {
        assert!(cross_pair(&[0]).is_err());
        assert_eq!(cross_pair(&[2, 5]).unwrap().0, 2);
    }

    #[test]
    fn same_cpu_pins_both_sides_to_one_cpu() {
        let cpus = choose(Placement::SameCpu).unwrap();
        assert_eq!(cpus[0], cpus[1]);
        assert!(cpus[0].is_some());
    }
}
