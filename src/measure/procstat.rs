//! System-wide counters from /proc/stat: context switches (`ctxt`) and the
//! CPU time split of the `cpu` line, read before and after a run the way
//! dstat shows them.

/// One reading of /proc/stat.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct ProcStat {
    pub(crate) ctxt: u64,
    /// user + nice, in clock ticks over all CPUs.
    pub(crate) user: u64,
    /// system + irq + softirq.
    pub(crate) system: u64,
    /// Every field of the `cpu` line added up.
    pub(crate) total: u64,
    /// Time the hypervisor ran something else while a vCPU wanted to run.
    pub(crate) steal: u64,
    /// Tasks runnable at the moment of reading (`procs_running`).
    pub(crate) running: u64,
}

impl ProcStat {
    pub(crate) fn read() -> std::io::Result<ProcStat> {
        Ok(parse(&std::fs::read_to_string("/proc/stat")?))
    }

    /// (context switches, user %, system %) between `self` and `later`;
    /// the percentages are of all CPUs' time, as dstat reports them.
    pub(crate) fn delta(&self, later: &ProcStat) -> (u64, f64, f64) {
        let total = later.total.saturating_sub(self.total).max(1) as f64;
        (
            later.ctxt.saturating_sub(self.ctxt),
            later.user.saturating_sub(self.user) as f64 * 100.0 / total,
            later.system.saturating_sub(self.system) as f64 * 100.0 / total,
        )
    }
}

pub(crate) fn parse(text: &str) -> ProcStat {
    let mut stat = ProcStat::default();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        match fields.next() {
            Some("ctxt") => stat.ctxt = fields.next().and_then(|v| v.parse().ok()).unwrap_or(0),
            Some("procs_running") => {
                stat.running = fields.next().and_then(|v| v.parse().ok()).unwrap_or(0)
            }
            Some("cpu") => {
                let v: Vec<u64> = fields.map(|f| f.parse().unwrap_or(0)).collect();
                let at = |i: usize| v.get(i).copied().unwrap_or(0);
                stat.user = at(0) + at(1);
                stat.system = at(2) + at(5) + at(6);
                stat.steal = at(7);
                // guest time is already counted in user.
                stat.total = v.iter().take(8).sum();
            }
            _ => {}
        }
    }
    stat
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ctxt_and_cpu_split() {
        let text = "cpu  100 10 50 800 20 5 15 7 0 0\ncpu0 1 2 3 4\nctxt 12345\nbtime 1\nprocs_running 3\n";
        let s = parse(text);
        assert_eq!((s.ctxt, s.steal, s.running), (12345, 7, 3));
        assert_eq!((s.user, s.system, s.total), (110, 70, 1007));
        let later = parse("cpu  200 10 100 1650 20 5 15 7\nctxt 13345\n");
        let (csw, user, sys) = s.delta(&later);
        assert_eq!(csw, 1000);
        assert!((user - 10.0).abs() < 1e-9 && (sys - 5.0).abs() < 1e-9);
    }
}
