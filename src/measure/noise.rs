//! The noise guard: what could have disturbed a case, read before and after
//! it (per-CPU /proc/stat for steal and other tasks' load, `procs_running`,
//! /proc/interrupts, cpufreq and thermal throttling in sysfs where they
//! exist) plus where the sides ran, and the grade the thresholds below give
//! it: `clean`, `noisy: <cause>` or `disturbed: <cause>`. The thresholds
//! are the README's "The noise guard".

use super::canary;
use crate::model::{Grade, Noise};
use crate::sys::rusage::{usage, Who};
use std::path::Path;

/// Steal of the sides' CPUs' time, in percent: noisy, disturbed.
pub(crate) const STEAL_PCT: (f64, f64) = (2.0, 10.0);
/// Other tasks' share of the sides' CPUs' time, in percent.
pub(crate) const OTHER_LOAD_PCT: (f64, f64) = (10.0, 30.0);
/// Load and steal are judged only over this many clock ticks of the sides'
/// CPUs' time (10 ms each at USER_HZ 100): fewer cannot tell 5% from 20%.
pub(crate) const MIN_TICKS: u64 = 20;
/// A change of a side CPU's frequency, in percent.
pub(crate) const FREQ_CHANGE_PCT: (f64, f64) = (5.0, 15.0);
/// The host-speed canary slower than this machine's fastest, in percent.
pub(crate) const HOST_SLOWER_PCT: (f64, f64) = (10.0, 50.0);
/// The wake-up canary slower than this machine's fastest, in percent.
pub(crate) const HOST_WAKE_SLOWER_PCT: (f64, f64) = (10.0, 50.0);
/// Device interrupts per second on one side CPU.
pub(crate) const IRQ_PER_S: (f64, f64) = (1_000.0, 10_000.0);
/// /proc/interrupts rows a case causes itself or that tick regardless
/// (timer, rescheduling, function-call and TLB-shootdown IPIs): not noise.
const OWN_IRQ_ROWS: [&str; 5] = ["LOC", "RES", "CAL", "TLB", "IWI"];

/// One reading of everything the guard watches.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Reading {
    pub(crate) at_ns: u64,
    /// Per CPU: (busy, steal, all) clock ticks of its `cpuN` line.
    pub(crate) ticks: Vec<(u64, u64, u64)>,
    pub(crate) procs_running: u64,
    /// Per CPU: device interrupts (every row but `OWN_IRQ_ROWS`).
    pub(crate) irqs: Vec<u64>,
    /// Per CPU: cpufreq's current frequency in kHz, if any.
    pub(crate) freq_khz: Vec<Option<u64>>,
    /// Per CPU: thermal throttle events so far, if counted.
    pub(crate) throttles: Vec<Option<u64>>,
    /// CPU time of iolab and its reaped children, in ns.
    pub(crate) own_ns: u64,
    /// The host-speed canary's time per call (`canary.rs`); 0 when not read.
    pub(crate) canary_ns: f64,
    /// The wake-up canary's round trip (`canary.rs`); 0 when not read.
    pub(crate) wake_ns: f64,
}

impl Reading {
    /// Reads /proc and `sysfs` (the CPUs' directory) now.
    pub(crate) fn take(sysfs: &Path) -> Reading {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let own = [Who::Process, Who::Children]
            .map(|w| usage(w).map_or(0, |u| u.cpu_ns))
            .iter()
            .sum();
        let mut reading =
            Reading::parse(&read("/proc/stat"), &read("/proc/interrupts"), sysfs, own);
        reading.canary_ns = canary::ns_per_call(canary::CASE_BATCHES);
        reading.wake_ns = canary::wake_ns_per_round_trip(canary::CASE_BATCHES).unwrap_or(0.0);
        reading
    }

    pub(crate) fn parse(stat: &str, interrupts: &str, sysfs: &Path, own_ns: u64) -> Reading {
        let ticks = cpu_ticks(stat);
        let cpus = ticks.len();
        let sys_u64 = |cpu: usize, leaf: &str| -> Option<u64> {
            let path = sysfs.join(format!("cpu{cpu}")).join(leaf);
            std::fs::read_to_string(path).ok()?.trim().parse().ok()
        };
        let throttle = |cpu| {
            let counts: Vec<u64> = ["core", "package"]
                .iter()
                .filter_map(|k| sys_u64(cpu, &format!("thermal_throttle/{k}_throttle_count")))
                .collect();
            (!counts.is_empty()).then(|| counts.iter().sum())
        };
        Reading {
            at_ns: crate::measure::clock::now_ns(),
            procs_running: field(stat, "procs_running").unwrap_or(0),
            irqs: device_irqs(interrupts, cpus),
            freq_khz: (0..cpus)
                .map(|c| sys_u64(c, "cpufreq/scaling_cur_freq"))
                .collect(),
            throttles: (0..cpus).map(throttle).collect(),
            ticks,
            own_ns,
            canary_ns: 0.0,
            wake_ns: 0.0,
        }
    }
}

/// The `cpuN` lines of /proc/stat as (busy, steal, all) ticks per CPU:
/// busy is user + nice + system + irq + softirq, all adds idle, iowait and
/// steal (guest time is already inside user).
fn cpu_ticks(stat: &str) -> Vec<(u64, u64, u64)> {
    let mut out = Vec::new();
    for line in stat.lines() {
        let mut fields = line.split_whitespace();
        let Some(cpu) = fields.next().and_then(|f| f.strip_prefix("cpu")) else {
            continue;
        };
        let Ok(index) = cpu.parse::<usize>() else {
            continue;
        };
        let v: Vec<u64> = fields.map(|f| f.parse().unwrap_or(0)).collect();
        let at = |i: usize| v.get(i).copied().unwrap_or(0);
        if out.len() <= index {
            out.resize(index + 1, (0, 0, 0));
        }
        out[index] = (
            at(0) + at(1) + at(2) + at(5) + at(6),
            at(7),
            v.iter().take(8).sum(),
        );
    }
    out
}

/// A `name value` line of /proc/stat.
fn field(stat: &str, name: &str) -> Option<u64> {
    stat.lines().find_map(|line| {
        let mut f = line.split_whitespace();
        (f.next() == Some(name)).then(|| f.next()?.parse().ok())?
    })
}

/// Per CPU, the sum of the /proc/interrupts rows a case does not cause.
fn device_irqs(text: &str, cpus: usize) -> Vec<u64> {
    let mut sums = vec![0u64; cpus];
    for line in text.lines().skip(1) {
        let Some((label, rest)) = line.trim_start().split_once(':') else {
            continue;
        };
        if OWN_IRQ_ROWS.contains(&label) {
            continue;
        }
        let counts = rest.split_whitespace().map_while(|f| f.parse::<u64>().ok());
        for (sum, n) in sums.iter_mut().zip(counts) {
            *sum += n;
        }
    }
    sums
}

/// What the guard saw over a case: `cpus` are the CPUs the sides ran on,
/// `pinned` whether they were pinned (then more than one CPU per side is a
/// migration), `sides_cpus` each side's CPUs, `online` the CPUs online.
pub(crate) struct Seen<'a> {
    pub(crate) before: &'a Reading,
    pub(crate) after: &'a Reading,
    pub(crate) sides_cpus: &'a [Vec<usize>],
    pub(crate) pinned: bool,
    pub(crate) online: usize,
    /// Clock ticks per second (USER_HZ).
    pub(crate) hz: u64,
    /// The fastest canary readings this machine ran (`canary.rs`).
    pub(crate) fastest_canary: canary::Fastest,
}

/// The figures and the grade of one case.
pub(crate) fn judge(seen: &Seen) -> Noise {
    let (before, after) = (seen.before, seen.after);
    let mut cpus: Vec<usize> = seen.sides_cpus.iter().flatten().copied().collect();
    cpus.sort_unstable();
    cpus.dedup();
    let delta = |f: fn(&(u64, u64, u64)) -> u64| -> u64 {
        cpus.iter()
            .filter_map(|&c| Some(f(after.ticks.get(c)?).saturating_sub(f(before.ticks.get(c)?))))
            .sum()
    };
    let (busy, steal, all) = (delta(|t| t.0), delta(|t| t.1), delta(|t| t.2));
    let judged = all >= MIN_TICKS;
    let tick_ns = 1_000_000_000 / seen.hz.max(1);
    let own_ticks = after.own_ns.saturating_sub(before.own_ns) / tick_ns.max(1);
    let secs = after.at_ns.saturating_sub(before.at_ns) as f64 / 1e9;
    let mut noise = Noise {
        grade: Grade::Clean,
        causes: Vec::new(),
        steal_pct: judged.then(|| steal as f64 * 100.0 / all as f64),
        other_load_pct: judged.then(|| busy.saturating_sub(own_ticks) as f64 * 100.0 / all as f64),
        other_runnable: Some(
            [before.procs_running, after.procs_running]
                .map(|r| r.saturating_sub(1))
                .into_iter()
                .max()
                .unwrap_or(0),
        ),
        freq_change_pct: freq_change(before, after, &cpus),
        throttle_events: per_cpu_delta(&before.throttles, &after.throttles, &cpus),
        irq_per_s: (secs > 0.0)
            .then(|| busiest_irq_rate(before, after, &cpus, secs))
            .flatten(),
        migrated: seen.pinned && seen.sides_cpus.iter().any(|c| c.len() > 1),
        canary_ns: (after.canary_ns > 0.0).then(|| before.canary_ns.max(after.canary_ns)),
        host_slower_pct: seen
            .fastest_canary
            .syscall_ns
            .and_then(|f| canary::slower_pct(before.canary_ns, after.canary_ns, f)),
        wake_canary_ns: (after.wake_ns > 0.0).then(|| before.wake_ns.max(after.wake_ns)),
        host_wake_slower_pct: seen
            .fastest_canary
            .wake_ns
            .and_then(|f| canary::slower_pct(before.wake_ns, after.wake_ns, f)),
    };
    grade(&mut noise, seen.online);
    noise
}

fn per_cpu_delta(a: &[Option<u64>], b: &[Option<u64>], cpus: &[usize]) -> Option<u64> {
    let deltas: Vec<u64> = cpus
        .iter()
        .filter_map(|&c| Some(b.get(c).copied()??.saturating_sub(a.get(c).copied()??)))
        .collect();
    (!deltas.is_empty()).then(|| deltas.iter().sum())
}

fn freq_change(a: &Reading, b: &Reading, cpus: &[usize]) -> Option<f64> {
    cpus.iter()
        .filter_map(|&c| {
            let (x, y) = (a.freq_khz.get(c).copied()??, b.freq_khz.get(c).copied()??);
            (x > 0).then(|| (y as f64 - x as f64).abs() * 100.0 / x as f64)
        })
        .reduce(f64::max)
}

fn busiest_irq_rate(a: &Reading, b: &Reading, cpus: &[usize], secs: f64) -> Option<f64> {
    cpus.iter()
        .filter_map(|&c| Some(b.irqs.get(c)?.saturating_sub(*a.irqs.get(c)?) as f64 / secs))
        .reduce(f64::max)
}

/// Sets `noise.grade` and `causes` from its figures and the thresholds.
pub(crate) fn grade(noise: &mut Noise, online: usize) {
    let mut found: Vec<(Grade, String)> = Vec::new();
    if noise.migrated {
        found.push((Grade::Disturbed, "migrated".into()));
    }
    if noise.throttle_events.is_some_and(|t| t > 0) {
        found.push((Grade::Disturbed, "thermal throttling".into()));
    }
    let mut level = |value: Option<f64>, (noisy, disturbed): (f64, f64), what: &str, of: &str| {
        let Some(v) = value else { return };
        let text = format!("{what} {v:.0}%{of}");
        if v >= disturbed {
            found.push((Grade::Disturbed, text));
        } else if v >= noisy {
            found.push((Grade::Noisy, text));
        }
    };
    level(noise.steal_pct, STEAL_PCT, "steal", "");
    level(noise.other_load_pct, OTHER_LOAD_PCT, "other load", "");
    level(
        noise.freq_change_pct,
        FREQ_CHANGE_PCT,
        "frequency change",
        "",
    );
    let slower = " slower than its fastest";
    level(noise.host_slower_pct, HOST_SLOWER_PCT, "host", slower);
    level(
        noise.host_wake_slower_pct,
        HOST_WAKE_SLOWER_PCT,
        "host wake-ups",
        slower,
    );
    if let Some(rate) = noise.irq_per_s {
        let text = format!("{rate:.0} interrupts/s");
        match rate {
            r if r >= IRQ_PER_S.1 => found.push((Grade::Disturbed, text)),
            r if r >= IRQ_PER_S.0 => found.push((Grade::Noisy, text)),
            _ => {}
        }
    }
    if noise
        .other_runnable
        .is_some_and(|r| r as usize >= online.max(1))
    {
        let r = noise.other_runnable.unwrap_or(0);
        found.push((Grade::Noisy, format!("{r} other runnable tasks")));
    }
    noise.grade = found.iter().map(|f| f.0).max().unwrap_or(Grade::Clean);
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    noise.causes = found.into_iter().map(|f| f.1).collect();
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
