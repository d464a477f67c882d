//! A timestamp cheap enough to take around every operation of a loop whose
//! operations last tens of nanoseconds. CLOCK_MONOTONIC through the vDSO
//! costs about 30 ns here and waits for every earlier load; the CPU's
//! time-stamp counter costs a few and does not. The TSC is used only where
//! it is invariant (the CPU reports constant_tsc and nonstop_tsc) and the
//! kernel keeps time with it (clocksource tsc); its ticks become
//! nanoseconds through a ratio calibrated once per process against
//! CLOCK_MONOTONIC. Anywhere else a tick is a CLOCK_MONOTONIC nanosecond.

use super::clock::now_ns;
use crate::sys::tsc;
use std::sync::atomic::{compiler_fence, Ordering};
use std::sync::OnceLock;

/// How long the calibration watches both clocks: the ratio's error is the
/// two clocks' read jitter (tens of ns) over this, a few parts per million.
const CALIBRATION_NS: u64 = 10_000_000;

pub struct TickClock {
    /// Nanoseconds per tick as a 32.32 fixed-point number; None when the
    /// ticks are CLOCK_MONOTONIC nanoseconds already.
    tsc_scale: Option<u64>,
    /// What the ticks are, for the environment fingerprint.
    description: String,
}

/// The process's tick clock, calibrated on first use (call it before
/// forking, so that children inherit the calibration).
pub fn tick_clock() -> &'static TickClock {
    static CLOCK: OnceLock<TickClock> = OnceLock::new();
    CLOCK.get_or_init(TickClock::choose)
}

impl TickClock {
    fn choose() -> TickClock {
        match tsc_refusal().map_or_else(calibrate, Err) {
            Ok(ns_per_tick) => TickClock {
                tsc_scale: Some((ns_per_tick * (1u64 << 32) as f64) as u64),
                description: format!(
                    "TSC at {:.1} MHz (invariant, calibrated against CLOCK_MONOTONIC)",
                    1e3 / ns_per_tick
                ),
            },
            Err(why) => TickClock {
                tsc_scale: None,
                description: format!("CLOCK_MONOTONIC (TSC not used: {why})"),
            },
        }
    }

    /// The current tick; only differences, through `ns`, mean anything.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        compiler_fence(Ordering::SeqCst);
        let tick = match self.tsc_scale {
            Some(_) => tsc::read().unwrap_or(0),
            None => now_ns(),
        };
        compiler_fence(Ordering::SeqCst);
        tick
    }

    /// Nanoseconds in `ticks` ticks.
    #[inline(always)]
    pub fn ns(&self, ticks: u64) -> u64 {
        match self.tsc_scale {
            Some(scale) => ((ticks as u128 * scale as u128) >> 32) as u64,
            None => ticks,
        }
    }

    pub fn describe(&self) -> &str {
        &self.description
    }

    #[cfg(test)]
    fn is_tsc(&self) -> bool {
        self.tsc_scale.is_some()
    }
}

/// Why the TSC cannot stand in for CLOCK_MONOTONIC here, if it cannot.
fn tsc_refusal() -> Option<String> {
    if tsc::read().is_none() {
        return Some("this architecture has none iolab reads".into());
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    let missing: Vec<&str> = ["constant_tsc", "nonstop_tsc"]
        .into_iter()
        .filter(|f| !flags.contains(f))
        .collect();
    if !missing.is_empty() {
        return Some(format!("the CPU lacks {}", missing.join(" and ")));
    }
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
    (source != "tsc").then(|| format!("the kernel's clocksource is {source:?}, not tsc"))
}

/// Nanoseconds per TSC tick, from both clocks read CALIBRATION_NS apart.
fn calibrate() -> Result<f64, String> {
    let (tick0, ns0) = paired_reading();
    while now_ns() - ns0 < CALIBRATION_NS {
        std::hint::spin_loop();
    }
    let (tick1, ns1) = paired_reading();
    let ns_per_tick = (ns1 - ns0) as f64 / tick1.saturating_sub(tick0).max(1) as f64;
    if (0.01..=100.0).contains(&ns_per_tick) {
        Ok(ns_per_tick)
    } else {
        Err(format!(
            "calibration gave an implausible {ns_per_tick} ns per tick"
        ))
    }
}

/// A CLOCK_MONOTONIC reading and the TSC at the same moment (the middle of
/// two TSC reads around it).
fn paired_reading() -> (u64, u64) {
    let before = tsc::read().unwrap_or(0);
    let ns = now_ns();
    let after = tsc::read().unwrap_or(0);
    (before + (after - before) / 2, ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_convert_to_the_monotonic_clock() {
        let clock = tick_clock();
        let (t0, m0) = (clock.now(), now_ns());
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (t1, m1) = (clock.now(), now_ns());
        let (ticks_ns, mono_ns) = (clock.ns(t1 - t0) as f64, (m1 - m0) as f64);
        assert!(
            (ticks_ns / mono_ns - 1.0).abs() < 0.01,
            "{ticks_ns} ns by ticks vs {mono_ns} ns by CLOCK_MONOTONIC ({})",
            clock.describe()
        );
    }

    #[test]
    fn the_description_says_which_clock() {
        let text = tick_clock().describe();
        assert_eq!(text.starts_with("TSC at "), tick_clock().is_tsc(), "{text}");
        assert!(text.contains("CLOCK_MONOTONIC"), "{text}");
    }
}
