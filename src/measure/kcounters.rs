//! Kernel counters `iolab run --explain` reads to say where an operation's
//! time went: a thread's run-queue wait (/proc/thread-self/schedstat), the
//! rescheduling and function-call IPIs each CPU took (/proc/interrupts) and
//! each CPU's idle-state entries (cpuidle in sysfs).

use std::path::Path;

/// Where the kernel lists CPUs and their idle states.
pub(crate) const SYSFS_CPUS: &str = "/sys/devices/system/cpu";

/// ns the calling thread has waited on a run queue, or None when the
/// kernel keeps no scheduler statistics (its on-CPU time reads 0).
pub(crate) fn run_queue_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let fields: Vec<u64> = text
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    match fields[..] {
        [on_cpu, waiting, ..] if on_cpu > 0 => Some(waiting),
        _ => None,
    }
}

/// One reading of the per-CPU counters, taken before and after a case.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    /// Rescheduling IPIs per CPU (the RES row).
    pub(crate) res: Vec<u64>,
    /// Function-call IPIs per CPU (the CAL row).
    pub(crate) cal: Vec<u64>,
    /// Idle-state entries per CPU, None when sysfs has no cpuidle.
    pub(crate) idle: Option<Vec<u64>>,
}

impl Snapshot {
    pub(crate) fn take(sysfs: &Path) -> Snapshot {
        let text = std::fs::read_to_string("/proc/interrupts").unwrap_or_default();
        let res = interrupt_row(&text, "RES");
        let cpus = crate::measure::pin::allowed_cpus();
        let n = res.len().max(cpus.iter().max().map_or(0, |m| m + 1));
        Snapshot {
            cal: interrupt_row(&text, "CAL"),
            res,
            idle: (0..n).map(|c| idle_entries(sysfs, c)).collect(),
        }
    }

    /// (RES, CAL, idle entries) from `self` to `later`, summed over `cpus`.
    pub(crate) fn delta(&self, later: &Snapshot, cpus: &[usize]) -> (u64, u64, Option<u64>) {
        let sum = |a: &[u64], b: &[u64]| -> u64 {
            cpus.iter()
                .filter_map(|&c| Some(b.get(c)?.saturating_sub(*a.get(c)?)))
                .sum()
        };
        let idle = match (&self.idle, &later.idle) {
            (Some(a), Some(b)) => Some(sum(a, b)),
            _ => None,
        };
        (sum(&self.res, &later.res), sum(&self.cal, &later.cal), idle)
    }
}

/// The per-CPU counts of the /proc/interrupts row labelled `label`.
pub(crate) fn interrupt_row(text: &str, label: &str) -> Vec<u64> {
    let head = format!("{label}:");
    text.lines()
        .map(str::trim_start)
        .find_map(|line| line.strip_prefix(&head))
        .map(|rest| {
            rest.split_whitespace()
                .map_while(|f| f.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Entries into any idle state of CPU `cpu`: the sum of
/// `cpuN/cpuidle/state*/usage`, None without a cpuidle directory.
pub(crate) fn idle_entries(sysfs: &Path, cpu: usize) -> Option<u64> {
    let dir = sysfs.join(format!("cpu{cpu}/cpuidle"));
    let states = std::fs::read_dir(dir).ok()?;
    Some(
        states
            .flatten()
            .filter_map(|s| std::fs::read_to_string(s.path().join("usage")).ok())
            .filter_map(|t| t.trim().parse::<u64>().ok())
            .sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupt_rows_are_read_per_cpu() {
        let text = "           CPU0       CPU1\n  24:  1  0  IO-APIC 5-edge ACPI\n\
                    RES:    2029120    1710634   Rescheduling interrupts\n\
                    CAL:    22   33   Function call interrupts\n";
        assert_eq!(interrupt_row(text, "RES"), vec![2029120, 1710634]);
        assert_eq!(interrupt_row(text, "CAL"), vec![22, 33]);
        assert_eq!(interrupt_row(text, "TLB"), Vec::<u64>::new());
    }

    #[test]
    fn idle_entries_add_up_states_of_a_fixture_tree() {
        let root = tempfile::tempdir().unwrap();
        for (state, usage) in [("state0", "5\n"), ("state1", "37\n")] {
            let dir = root.path().join("cpu1/cpuidle").join(state);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("usage"), usage).unwrap();
        }
        std::fs::create_dir_all(root.path().join("cpu0")).unwrap();
        assert_eq!(idle_entries(root.path(), 1), Some(42));
        assert_eq!(idle_entries(root.path(), 0), None);
    }

    #[test]
    fn deltas_sum_over_the_chosen_cpus_only() {
        let a = Snapshot {
            res: vec![1, 10, 100],
            cal: vec![0, 0, 0],
            idle: Some(vec![0, 5, 9]),
        };
        let b = Snapshot {
            res: vec![2, 13, 200],
            cal: vec![1, 4, 0],
            idle: Some(vec![0, 8, 9]),
        };
        assert_eq!(a.delta(&b, &[0, 1]), (4, 5, Some(3)));
        let none = Snapshot { idle: None, ..b };
        assert_eq!(a.delta(&none, &[1]), (3, 4, None));
    }
}
