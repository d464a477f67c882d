//! The host's state through a run. A cloud VM's host changes speed for
//! minutes at a time: the hypervisor steals time, neighbours queue on the
//! same CPUs, and a wake-up across CPUs costs 10 us in one hour and 100 us
//! in the next. Every few seconds, between cases (never during one), the
//! runner takes a sample: steal since the last one (/proc/stat), the
//! other runnable tasks, and a wake-up round trip across two CPUs and on
//! one; the run keeps them all, and its header, report and the verdicts
//! that depend on the host say what state it was in.

use super::procstat::ProcStat;
use crate::model::{HostSample, HostState};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A sample at most this often.
const EVERY: Duration = Duration::from_secs(5);

/// Wake-up batches a sample times (100 round trips each): their median
/// stands, so one preemption does not move it.
const WAKE_BATCHES: u32 = 3;

/// The samples of the run in progress.
struct Sampler {
    started: Instant,
    last: Option<(Instant, ProcStat)>,
    samples: Vec<HostSample>,
}

static SAMPLER: Mutex<Option<Sampler>> = Mutex::new(None);

/// Starts a run's sampling afresh, with a first sample.
pub(crate) fn start() {
    let mut sampler = SAMPLER.lock().unwrap_or_else(|e| e.into_inner());
    let mut fresh = Sampler {
        started: Instant::now(),
        last: None,
        samples: Vec::new(),
    };
    fresh.sample();
    *sampler = Some(fresh);
}

/// Takes a sample if the last is `EVERY` old: called between cases.
pub(crate) fn between_cases() {
    let mut sampler = SAMPLER.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = sampler.as_mut() {
        if s.last.is_none_or(|(at, _)| at.elapsed() >= EVERY) {
            s.sample();
        }
    }
}

/// Ends the run's sampling with a last sample; its state.
pub(crate) fn finish() -> Option<HostState> {
    let mut sampler = SAMPLER.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sampler.take()?;
    s.sample();
    Some(HostState { samples: s.samples })
}

impl Sampler {
    fn sample(&mut self) {
        let Ok(stat) = ProcStat::read() else {
            return;
        };
        let steal_pct = self.last.map_or(0.0, |(_, before)| {
            let total = stat.total.saturating_sub(before.total).max(1) as f64;
            stat.steal.saturating_sub(before.steal) as f64 * 100.0 / total
        });
        let cpus = super::pin::allowed_cpus();
        let wake = |pair: [usize; 2]| {
            let mut each = super::canary::wake_batches(pair, WAKE_BATCHES)?;
            Some(crate::stats::estimators::median(&mut each)).filter(|ns| ns.is_finite())
        };
        let (first, second) = (cpus.first().copied(), cpus.get(1).copied());
        let now = Instant::now();
        self.samples.push(HostSample {
            at_s: now.duration_since(self.started).as_secs_f64(),
            steal_pct,
            others_runnable: stat.running.saturating_sub(1) as f64,
            cross_cpu_wake_ns: first.zip(second).and_then(|(a, b)| wake([a, b])),
            same_cpu_wake_ns: first.and_then(|a| wake([a, a])),
        });
        self.last = Some((now, stat));
    }
}

/// The host's state in a few figures: medians over the samples, with
/// the range of the wake-up round trip, and whether it was busy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary {
    pub(crate) samples: usize,
    pub(crate) over_s: f64,
    pub(crate) steal_pct: f64,
    pub(crate) others_runnable: f64,
    /// Median, lowest and highest.
    pub(crate) cross_cpu_wake_ns: Option<[f64; 3]>,
    pub(crate) same_cpu_wake_ns: Option<f64>,
    /// Why the host was busy, or empty when it was quiet.
    pub(crate) busy: Vec<String>,
}

/// Steal from this share on marks a busy host.
const BUSY_STEAL_PCT: f64 = 2.0;
/// Other runnable tasks from this many on.
const BUSY_OTHERS: f64 = 0.5;
/// A cross-CPU wake-up from this many same-CPU ones: on this project's
/// 2-vCPU VM a quiet host gives 2-4, a busy one 15-25.
const BUSY_WAKE_RATIO: f64 = 6.0;

pub(crate) fn summary(state: &HostState) -> Option<Summary> {
    let s = &state.samples;
    let last = s.last()?;
    let median = |f: &dyn Fn(&HostSample) -> Option<f64>| {
        let mut v: Vec<f64> = s.iter().filter_map(f).collect();
        (!v.is_empty()).then(|| crate::stats::estimators::median(&mut v))
    };
    let steal = median(&|x| (x.at_s > 0.0).then_some(x.steal_pct)).unwrap_or(0.0);
    let others = median(&|x| Some(x.others_runnable)).unwrap_or(0.0);
    let cross: Vec<f64> = s.iter().filter_map(|x| x.cross_cpu_wake_ns).collect();
    let cross_cpu_wake_ns = median(&|x| x.cross_cpu_wake_ns).map(|m| {
        let lo = cross.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = cross.iter().copied().fold(0.0, f64::max);
        [m, lo, hi]
    });
    let same_cpu_wake_ns = median(&|x| x.same_cpu_wake_ns);
    let mut busy = Vec::new();
    if steal >= BUSY_STEAL_PCT {
        busy.push(format!("steal {steal:.0}%"));
    }
    if others >= BUSY_OTHERS {
        busy.push(format!("{others:.1} other runnable tasks"));
    }
    if let (Some([cross, ..]), Some(same)) = (cross_cpu_wake_ns, same_cpu_wake_ns) {
        if same > 0.0 && cross / same >= BUSY_WAKE_RATIO {
            busy.push(format!(
                "cross-CPU wake-ups {:.0}x same-CPU ones",
                cross / same
            ));
        }
    }
    Some(Summary {
        samples: s.len(),
        over_s: last.at_s,
        steal_pct: steal,
        others_runnable: others,
        cross_cpu_wake_ns,
        same_cpu_wake_ns,
        busy,
    })
}

impl Summary {
    /// "busy" or "quiet".
    pub(crate) fn mode(&self) -> &'static str {
        match self.busy.is_empty() {
            true => "quiet",
            false => "busy",
        }
    }

    /// "busy (steal 8%): cross-CPU wake-up 85.2 us (62.0-117 us), same-CPU
    /// 5.10 us, steal 8.0%, 1.0 other runnable tasks; 14 samples over 412 s".
    pub(crate) fn text(&self) -> String {
        use crate::format::{human, human_range};
        let mode = match self.busy.is_empty() {
            true => "quiet".to_string(),
            false => format!("busy ({})", self.busy.join(", ")),
        };
        let mut parts = Vec::new();
        if let Some([m, lo, hi]) = self.cross_cpu_wake_ns {
            parts.push(format!(
                "cross-CPU wake-up {} ({})",
                human(m, "ns"),
                human_range(m, lo, hi, "ns")
            ));
        }
        if let Some(same) = self.same_cpu_wake_ns {
            parts.push(format!("same-CPU {}", human(same, "ns")));
        }
        parts.push(format!("steal {:.1}%", self.steal_pct));
        parts.push(format!("{:.1} other runnable tasks", self.others_runnable));
        format!(
            "{mode}: {}; {} samples over {:.0} s",
            parts.join(", "),
            self.samples,
            self.over_s
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples 5 s apart of (steal %, others runnable, cross-CPU wake-up,
    /// same-CPU wake-up).
    fn state(each: &[(f64, f64, f64, f64)]) -> HostState {
        let samples = each
            .iter()
            .enumerate()
            .map(|(i, &(steal, others, cross, same))| HostSample {
                at_s: 5.0 * i as f64,
                steal_pct: steal,
                others_runnable: others,
                cross_cpu_wake_ns: Some(cross),
                same_cpu_wake_ns: Some(same),
            });
        HostState {
            samples: samples.collect(),
        }
    }

    #[test]
    fn a_quiet_host_and_a_busy_one_say_why() {
        let quiet = state(&[
            (0.0, 0.0, 12e3, 5e3),
            (0.5, 0.0, 15e3, 5e3),
            (0.0, 0.0, 11e3, 4e3),
        ]);
        let s = summary(&quiet).unwrap();
        assert_eq!(s.mode(), "quiet");
        assert_eq!(s.cross_cpu_wake_ns, Some([12e3, 11e3, 15e3]));
        assert!(
            s.text()
                .starts_with("quiet: cross-CPU wake-up 12.0 us (11.0-15.0"),
            "{}",
            s.text()
        );
        assert!(s.text().ends_with("3 samples over 10 s"), "{}", s.text());
        let busy = state(&[
            (0.0, 1.0, 90e3, 5e3),
            (8.0, 1.0, 110e3, 5e3),
            (6.0, 0.0, 85e3, 5e3),
        ]);
        let s = summary(&busy).unwrap();
        assert_eq!(s.mode(), "busy");
        assert_eq!(
            s.busy,
            [
                "steal 7%",
                "1.0 other runnable tasks",
                "cross-CPU wake-ups 18x same-CPU ones"
            ]
        );
        assert_eq!(summary(&HostState::default()), None);
    }

    #[test]
    fn sampling_takes_a_sample_at_start_and_end_and_reads_this_host() {
        start();
        between_cases(); // within EVERY of the first: no sample
        let state = finish().unwrap();
        assert_eq!(state.samples.len(), 2);
        let s = &state.samples[1];
        assert!(s.steal_pct >= 0.0 && s.at_s >= 0.0, "{s:?}");
        assert!(s.same_cpu_wake_ns.is_some_and(|ns| ns > 0.0), "{s:?}");
        assert!(finish().is_none(), "sampling ended");
    }
}
