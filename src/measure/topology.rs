//! The machine's CPU topology as sysfs shows it: which CPUs are SMT siblings,
//! which share an L2 or an L3, and which NUMA node each is on. The topology
//! placements (`smt-sibling` ... `cross-node`) pick one CPU pair per class
//! from it. The roots are arguments so tests read fixture trees of real
//! machines.

use crate::measure::pin::parse_cpu_list;
use std::path::Path;
use std::sync::OnceLock;

const CPU_ROOT: &str = "/sys/devices/system/cpu";
const NODE_ROOT: &str = "/sys/devices/system/node";

/// How close two different CPUs are: the nearest thing they share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Two hardware threads of one core.
    SmtSibling,
    /// Two cores sharing an L2 (e.g. an E-core cluster).
    SharedL2,
    /// Two CPUs sharing an L3 but not an L2.
    SharedL3,
    /// Two CPUs on different L3s in one NUMA node (e.g. two CCXs).
    CrossL3,
    /// Two CPUs on different NUMA nodes.
    CrossNode,
}

pub(crate) const ALL_CLASSES: [Class; 5] = [
    Class::SmtSibling,
    Class::SharedL2,
    Class::SharedL3,
    Class::CrossL3,
    Class::CrossNode,
];

impl Class {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Class::SmtSibling => "smt-sibling",
            Class::SharedL2 => "shared-l2",
            Class::SharedL3 => "shared-l3",
            Class::CrossL3 => "cross-l3",
            Class::CrossNode => "cross-node",
        }
    }

    pub(crate) fn about(self) -> &'static str {
        match self {
            Class::SmtSibling => "the sides on two threads of one core",
            Class::SharedL2 => "two cores sharing an L2",
            Class::SharedL3 => "two CPUs sharing an L3, not an L2",
            Class::CrossL3 => "two L3s of one NUMA node",
            Class::CrossNode => "two NUMA nodes",
        }
    }
}

/// What sysfs says about one online CPU (an empty list: not shown).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Cpu {
    pub(crate) id: usize,
    /// Its core's threads, itself included.
    pub(crate) threads: Vec<usize>,
    /// The CPUs sharing its L2 / L3.
    pub(crate) l2: Vec<usize>,
    pub(crate) l3: Vec<usize>,
    pub(crate) node: Option<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Topology {
    pub(crate) cpus: Vec<Cpu>,
}

impl Topology {
    /// This machine's topology, read once.
    pub(crate) fn here() -> &'static Topology {
        static HERE: OnceLock<Topology> = OnceLock::new();
        HERE.get_or_init(|| Topology::read(Path::new(CPU_ROOT), Path::new(NODE_ROOT)))
    }

    /// Reads the online CPUs under `cpu_root` (like /sys/devices/system/cpu)
    /// and the NUMA nodes under `node_root` (like /sys/devices/system/node).
    pub(crate) fn read(cpu_root: &Path, node_root: &Path) -> Topology {
        let nodes = read_nodes(node_root);
        let cpus = online_cpus(cpu_root)
            .into_iter()
            .map(|id| {
                let mut cpu = read_cpu(&cpu_root.join(format!("cpu{id}")), id);
                cpu.node = nodes
                    .iter()
                    .find(|(_, cpus)| cpus.contains(&id))
                    .map(|(n, _)| *n);
                cpu
            })
            .collect();
        Topology { cpus }
    }

    fn cpu(&self, id: usize) -> Option<&Cpu> {
        self.cpus.iter().find(|c| c.id == id)
    }

    /// The SMT siblings of `cpu`, itself included (empty: not known).
    pub(crate) fn threads(&self, cpu: usize) -> &[usize] {
        self.cpu(cpu).map(|c| c.threads.as_slice()).unwrap_or(&[])
    }

    /// The class of two different CPUs (None: sysfs does not say).
    pub(crate) fn class(&self, a: usize, b: usize) -> Option<Class> {
        closest(self.cpu(a)?, self.cpu(b)?).filter(|_| a != b)
    }

    /// The lowest-numbered pair (a < b, first by a then by b) of `allowed`
    /// CPUs whose class is `class`, or why there is none.
    pub(crate) fn pair(&self, class: Class, allowed: &[usize]) -> Result<(usize, usize), String> {
        if let Some(pair) = self.first_pair(class, allowed) {
            return Ok(pair);
        }
        let all: Vec<usize> = self.cpus.iter().map(|c| c.id).collect();
        if self.first_pair(class, &all).is_some() {
            return Err(format!(
                "no {} pair among the CPUs this process may use {allowed:?}",
                class.name()
            ));
        }
        Err(self.lacks(class))
    }

    fn first_pair(&self, class: Class, allowed: &[usize]) -> Option<(usize, usize)> {
        let mut cpus: Vec<&Cpu> = allowed.iter().filter_map(|id| self.cpu(*id)).collect();
        cpus.sort_by_key(|c| c.id);
        cpus.dedup_by_key(|c| c.id);
        cpus.iter().enumerate().find_map(|(i, a)| {
            cpus[i + 1..]
                .iter()
                .find(|b| closest(a, b) == Some(class))
                .map(|b| (a.id, b.id))
        })
    }

    /// Why the machine has no pair of `class`.
    fn lacks(&self, class: Class) -> String {
        let l2s = self.distinct(|c| &c.l2);
        let l3s = self.distinct(|c| &c.l3);
        let reason = match class {
            Class::SmtSibling => "no SMT siblings: every core has one thread",
            Class::SharedL2 if l2s == 0 => "sysfs shows no L2 cache",
            Class::SharedL2 => "no L2 shared by two cores: every core has its own",
            Class::SharedL3 if l3s == 0 => "sysfs shows no L3 cache",
            Class::SharedL3 => "no L3 shared beyond one L2",
            Class::CrossL3 if l3s <= 1 => "one L3 for all CPUs",
            Class::CrossL3 => "every NUMA node has one L3: pairs across L3s are cross-node",
            Class::CrossNode => "one NUMA node",
        };
        reason.to_string()
    }

    fn distinct(&self, list: impl Fn(&Cpu) -> &Vec<usize>) -> usize {
        let mut lists: Vec<&Vec<usize>> = self
            .cpus
            .iter()
            .map(&list)
            .filter(|l| !l.is_empty())
            .collect();
        lists.sort();
        lists.dedup();
        lists.len()
    }
}

/// The class of two different CPUs: the nearest level they share, or the
/// farthest they are apart (None: sysfs does not say).
fn closest(a: &Cpu, b: &Cpu) -> Option<Class> {
    if a.threads.contains(&b.id) {
        Some(Class::SmtSibling)
    } else if a.l2.contains(&b.id) {
        Some(Class::SharedL2)
    } else if a.l3.contains(&b.id) {
        Some(Class::SharedL3)
    } else if matches!((a.node, b.node), (Some(x), Some(y)) if x != y) {
        Some(Class::CrossNode)
    } else if !a.l3.is_empty() && !b.l3.is_empty() {
        Some(Class::CrossL3)
    } else {
        None
    }
}

fn read_list(path: &Path) -> Option<Vec<usize>> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| parse_cpu_list(&t))
}

/// The online CPUs: `online` if sysfs has it, else every `cpuN` directory.
fn online_cpus(root: &Path) -> Vec<usize> {
    if let Some(cpus) = read_list(&root.join("online")) {
        return cpus;
    }
    let mut cpus = numbered_entries(root, "cpu");
    cpus.sort_unstable();
    cpus
}

/// The N of every `{prefix}N` entry of `dir`.
fn numbered_entries(dir: &Path, prefix: &str) -> Vec<usize> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix(prefix)?
                .parse()
                .ok()
        })
        .collect()
}

fn read_cpu(dir: &Path, id: usize) -> Cpu {
    let threads = read_list(&dir.join("topology/thread_siblings_list")).unwrap_or_default();
    let mut cpu = Cpu {
        id,
        threads,
        ..Cpu::default()
    };
    let cache = dir.join("cache");
    for index in numbered_entries(&cache, "index") {
        let entry = cache.join(format!("index{index}"));
        let text = |name: &str| std::fs::read_to_string(entry.join(name)).unwrap_or_default();
        if text("type").trim() == "Instruction" {
            continue;
        }
        let shared = read_list(&entry.join("shared_cpu_list")).unwrap_or_default();
        match text("level").trim() {
            "2" => cpu.l2 = shared,
            "3" => cpu.l3 = shared,
            _ => {}
        }
    }
    cpu
}

/// Each NUMA node with its CPUs.
fn read_nodes(root: &Path) -> Vec<(usize, Vec<usize>)> {
    let mut nodes: Vec<(usize, Vec<usize>)> = numbered_entries(root, "node")
        .into_iter()
        .filter_map(|n| Some((n, read_list(&root.join(format!("node{n}/cpulist")))?)))
        .collect();
    nodes.sort();
    nodes
}

#[cfg(test)]
mod tests;
