//! The environment fingerprint: what machine, kernel and limits a run was
//! measured on, read directly from /proc and /sys, plus checks that try the
//! facilities some cases need (perf, io_uring). Numbers from two runs only
//! compare when their fingerprints do; `iolab env` prints it on its own.

mod capabilities;
mod cpu;
mod system;

pub(crate) use capabilities::{io_uring, perf, sched_tracepoints, tick_ns, timer_ns};
pub(crate) use system::mem_available;

use crate::model::{Availability, Environment};
pub(crate) use crate::sys::kernel_text::read_text;

const GIB: f64 = (1u64 << 30) as f64;

/// Reads everything there is to know; never fails, unknown things stay
/// None or empty.
pub(crate) fn fingerprint() -> Environment {
    let cpuinfo = read_text(cpu::CPUINFO).unwrap_or_default();
    let mut env = Environment::default();
    system::fill(&mut env, &cpuinfo);
    cpu::fill(&mut env, &cpuinfo);
    env.perf = perf();
    env.io_uring = io_uring();
    env.sched_tracepoints = sched_tracepoints();
    env.timer_ns = Some(timer_ns());
    env.tick_timer = Some(crate::measure::ticks::tick_clock().describe().to_string());
    env.tick_ns = Some(tick_ns());
    env
}

/// Aligned `key  value` lines for `iolab env`.
pub(crate) fn render(env: &Environment) -> String {
    let rows = rows(env);
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let indent = " ".repeat(width + 2);
    let mut out = String::new();
    for (key, value) in rows {
        let value = value.replace('\n', &format!("\n{indent}"));
        out.push_str(&format!("{key:<width$}  {value}\n"));
    }
    out
}

/// The fingerprint as (name, text) pairs, in the order `render` prints them.
pub(crate) fn rows(env: &Environment) -> Vec<(&'static str, String)> {
    vec![
        ("kernel", kernel_text(env)),
        ("arch", or_unknown(&env.arch)),
        ("hostname", or_unknown(&env.hostname)),
        ("cpu", or_unknown(&env.cpu_model)),
        ("cpus", cpus_text(env)),
        ("smt", smt_text(env.smt)),
        (
            "governor",
            env.governor
                .clone()
                .unwrap_or_else(|| "none (no cpufreq)".into()),
        ),
        (
            "clocksource",
            env.clocksource.clone().unwrap_or_else(|| "unknown".into()),
        ),
        ("mitigations", mitigations_text(&env.mitigations)),
        ("hypervisor", hypervisor_text(env.hypervisor.as_deref())),
        ("memory", memory_text(env.memory_bytes)),
        (
            "nofile",
            format!(
                "{} soft / {} hard",
                limit_text(env.nofile_soft),
                limit_text(env.nofile_hard)
            ),
        ),
        ("root", if env.root { "yes" } else { "no" }.into()),
        ("perf", availability_text(&env.perf)),
        ("io_uring", availability_text(&env.io_uring)),
        (
            "scheduler",
            format!("tracepoints {}", availability_text(&env.sched_tracepoints)),
        ),
        ("timer", timer_text(env.timer_ns)),
        ("ticks", tick_text(env)),
    ]
}

fn or_unknown(s: &str) -> String {
    if s.is_empty() {
        "unknown".into()
    } else {
        s.to_string()
    }
}

fn kernel_text(env: &Environment) -> String {
    match (env.kernel.is_empty(), env.kernel_version.is_empty()) {
        (true, _) => "unknown".into(),
        (false, true) => env.kernel.clone(),
        (false, false) => format!("{} ({})", env.kernel, env.kernel_version),
    }
}

fn cpus_text(env: &Environment) -> String {
    if env.cpus_online.is_empty() {
        env.cpus.to_string()
    } else {
        format!("{} online ({})", env.cpus, env.cpus_online)
    }
}

fn smt_text(smt: Option<bool>) -> String {
    match smt {
        Some(true) => "active".into(),
        Some(false) => "inactive".into(),
        None => "unknown".into(),
    }
}

fn hypervisor_text(name: Option<&str>) -> String {
    match name {
        None => "none detected".into(),
        Some("unknown") => "present (cpu flag set, name not readable)".into(),
        Some(name) => name.to_string(),
    }
}

fn mitigations_text(list: &[String]) -> String {
    if list.is_empty() {
        "none reported".into()
    } else {
        list.join("\n")
    }
}

pub(crate) fn memory_text(bytes: u64) -> String {
    if bytes == 0 {
        "unknown".into()
    } else {
        format!("{:.1} GiB", bytes as f64 / GIB)
    }
}

fn limit_text(limit: u64) -> String {
    if limit == u64::MAX {
        "unlimited".into()
    } else {
        limit.to_string()
    }
}

fn availability_text(a: &Availability) -> String {
    let word = if a.available {
        "available"
    } else {
        "unavailable"
    };
    if a.detail.is_empty() {
        word.into()
    } else {
        format!("{word} ({})", a.detail)
    }
}

fn timer_text(ns: Option<f64>) -> String {
    match ns {
        Some(ns) => format!("{ns:.1} ns per CLOCK_MONOTONIC read"),
        None => "not measured".into(),
    }
}

fn tick_text(env: &Environment) -> String {
    match (&env.tick_timer, env.tick_ns) {
        (Some(clock), Some(ns)) => format!("{clock}, {ns:.1} ns per read"),
        (Some(clock), None) => clock.clone(),
        _ => "not measured".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&str; 18] = [
        "kernel",
        "arch",
        "hostname",
        "cpu",
        "cpus",
        "smt",
        "governor",
        "clocksource",
        "mitigations",
        "hypervisor",
        "memory",
        "nofile",
        "root",
        "perf",
        "io_uring",
        "scheduler",
        "timer",
        "ticks",
    ];

    #[test]
    fn fingerprint_of_this_machine() {
        let env = fingerprint();
        assert!(env.cpus >= 1);
        assert!(!env.kernel.is_empty());
        assert!(env.nofile_hard >= env.nofile_soft);
        assert!(env.timer_ns.is_some());
        assert!(env.tick_ns.is_some());
        assert!(env.tick_timer.as_deref().is_some_and(|t| !t.is_empty()));
    }

    #[test]
    fn render_has_every_key_at_line_start() {
        let text = render(&fingerprint());
        for key in KEYS {
            assert!(
                text.lines()
                    .any(|l| l.split_whitespace().next() == Some(key)),
                "missing {key} in\n{text}"
            );
        }
    }

    #[test]
    fn render_aligns_and_indents_continuations() {
        let env = Environment {
            kernel: "6.1.0".into(),
            cpus: 2,
            cpus_online: "0-1".into(),
            memory_bytes: 24_683_656 * 1024,
            nofile_soft: 1024,
            nofile_hard: u64::MAX,
            mitigations: vec!["a: x".into(), "b: y".into()],
            perf: Availability {
                available: true,
                detail: "ok".into(),
            },
            ..Environment::default()
        };
        let text = render(&env);
        assert!(text.contains("\nmemory       23.5 GiB\n"), "{text}");
        assert!(text.contains("\nnofile       1024 soft / unlimited hard\n"));
        assert!(text.contains("\ncpus         2 online (0-1)\n"));
        assert!(text.contains("\nmitigations  a: x\n             b: y\n"));
        assert!(text.contains("\nperf         available (ok)\n"));
        assert!(text.contains("\nio_uring     unavailable\n"));
        assert!(text.contains("\nscheduler    tracepoints unavailable\n"));
        assert_eq!(text.lines().count(), KEYS.len() + 1);
    }

    #[test]
    fn memory_in_gib() {
        assert_eq!(memory_text(0), "unknown");
        assert_eq!(memory_text(3 << 29), "1.5 GiB");
    }
}
