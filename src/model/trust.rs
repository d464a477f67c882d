//! How far to trust a result, as the schema holds it: the precision of its
//! headline (`--precision`) and the noise guard's grade. Part of `model`,
//! in its own file to keep that one short.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why the default goal runs no further batch in a suite or `--quick`.
pub(crate) const SUITE_STOP: &str = "a suite runs no further batch";
/// ... and in a run whose `--repeat` fixes the repetitions.
pub(crate) const REPEAT_STOP: &str = "--repeat fixes the repetitions";
/// Why a run with `--explain` or `--profile` takes one batch: their
/// figures cover the batch they watched.
pub(crate) const ONE_BATCH_STOP: &str = "one batch with --explain or --profile";
/// The stops every case of a run shares (`Precision::stopped_by`), said
/// once under a table.
pub(crate) const RUN_WIDE_STOPS: [&str; 3] = [SUITE_STOP, REPEAT_STOP, ONE_BATCH_STOP];

/// The bootstrap 95% interval of the headline's median after the
/// repetitions `--precision` asked for, and whether it is narrow enough.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Precision {
    /// The metric it is about (the headline).
    pub(crate) metric: String,
    /// The half-width asked for, in percent of the median.
    pub(crate) target_pct: f64,
    /// [low, high] of the 95% interval of the median.
    pub(crate) ci: [f64; 2],
    /// The interval's half-width, in percent of the median.
    pub(crate) half_width_pct: f64,
    pub(crate) reached: bool,
    /// Repetitions the median is over, and the batches they came in.
    pub(crate) reps: u64,
    pub(crate) batches: u64,
    /// Why no further batch ran when not reached, e.g. "repetition cap 20".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stopped_by: Option<String>,
}

/// The noise guard's grade of a result.
#[derive(
    Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord,
)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Grade {
    Clean,
    Noisy,
    Disturbed,
}

impl Grade {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Grade::Clean => "clean",
            Grade::Noisy => "noisy",
            Grade::Disturbed => "disturbed",
        }
    }
}

/// The noise guard's grades over the results a claim read: the worst of
/// them and every cause that set one, so a report can mark a figure
/// measured while the host was slow or busy.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct ClaimNoise {
    pub(crate) grade: Grade,
    /// Each distinct cause, e.g. "host wake-ups 132% slower than its fastest".
    pub(crate) causes: Vec<String>,
    /// How many of the results read were graded worse than clean, of how many.
    pub(crate) graded: usize,
    pub(crate) read: usize,
}

/// What went on around a case while it ran, read before and after it, and
/// the grade the thresholds give it (`measure::noise`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Noise {
    pub(crate) grade: Grade,
    /// Each finding that set the grade, e.g. "steal 8%".
    #[serde(default)]
    pub(crate) causes: Vec<String>,
    /// The sides' CPUs' time the hypervisor gave to others, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) steal_pct: Option<f64>,
    /// The sides' CPUs' busy time not spent by iolab, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) other_load_pct: Option<f64>,
    /// The most runnable tasks besides iolab's reader (`procs_running`) at
    /// the case's start or end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) other_runnable: Option<u64>,
    /// The largest change of a side CPU's frequency, in percent (cpufreq).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) freq_change_pct: Option<f64>,
    /// Thermal throttling events on the sides' CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) throttle_events: Option<u64>,
    /// Device interrupts per second on each of the sides' CPUs (the busiest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) irq_per_s: Option<f64>,
    /// A pinned side was seen on more than one CPU.
    #[serde(default)]
    pub(crate) migrated: bool,
    /// The host-speed canary's time per call around the case (the slower
    /// of before and after), in ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) canary_ns: Option<f64>,
    /// How much slower than the fastest canary this machine ran, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) host_slower_pct: Option<f64>,
    /// The wake-up canary's same-CPU thread round trip around the case (the
    /// slower of before and after), in ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) wake_canary_ns: Option<f64>,
    /// How much slower than the fastest wake-up canary this machine ran,
    /// in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) host_wake_slower_pct: Option<f64>,
}

impl Noise {
    /// A grade with its causes and no readings, for tests.
    #[cfg(test)]
    pub(crate) fn graded(grade: Grade, causes: &[&str]) -> Noise {
        Noise {
            grade,
            causes: causes.iter().map(|c| c.to_string()).collect(),
            steal_pct: None,
            other_load_pct: None,
            other_runnable: None,
            freq_change_pct: None,
            throttle_events: None,
            irq_per_s: None,
            migrated: false,
            canary_ns: None,
            wake_canary_ns: None,
            host_slower_pct: None,
            host_wake_slower_pct: None,
        }
    }

    /// `clean`, `noisy: steal 8%` or `disturbed: migrated, steal 12%`.
    pub(crate) fn label(&self) -> String {
        match self.causes.is_empty() {
            true => self.grade.as_str().to_string(),
            false => format!("{}: {}", self.grade.as_str(), self.causes.join(", ")),
        }
    }
}
