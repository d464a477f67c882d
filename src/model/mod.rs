//! The serde types of a run and its results: the one schema shared by the
//! runner, the store, every report format and the JSON contract in the README.
//! Fields are only ever added, never renamed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod document;
mod trust;
pub use document::{Document, SCHEMA_VERSION};
pub(crate) use trust::{ClaimNoise, Grade, Noise, Precision};
pub(crate) use trust::{ONE_BATCH_STOP, REPEAT_STOP, RUN_WIDE_STOPS, SUITE_STOP};

pub const IOLAB_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One invocation of `iolab run`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Run {
    pub iolab_version: String,
    pub run_id: String,
    pub started_at: String,
    #[serde(default)]
    pub finished_at: Option<String>,
    #[serde(default)]
    pub label: Option<String>,
    /// The suites and scenarios named on the command line, e.g. "quick".
    #[serde(default)]
    pub suite: Option<String>,
    pub environment: Environment,
    pub results: Vec<CaseResult>,
    /// One line per scenario group, e.g. "eventfd is 1.08x faster than pipe (...)".
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// The classic claims this run's results can answer (`src/claims/`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<ClaimVerdict>,
}

/// One classic claim answered by a run: its verdict, the figure that
/// decided it and the original's figure beside it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ClaimVerdict {
    /// e.g. "E5-poll-linear".
    pub(crate) id: String,
    /// The experiment it comes from, "E1".."E6".
    pub(crate) source: String,
    /// The claim as the original stated it.
    pub(crate) claim: String,
    pub verdict: ClaimStatus,
    /// What decided it, or why it could not be decided.
    pub figure: String,
    /// The original's figure.
    pub(crate) original: String,
    /// The scenario whose results it read (the report links to its charts).
    pub(crate) scenario: String,
    /// What the kernel profiles of the compared cases show behind the
    /// claim (E1: the atime path with and without O_NOATIME; E3: what the
    /// contended reader waits on), or how to get them; absent for claims
    /// without such evidence. It never changes the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) kernel_evidence: Option<String>,
    /// How far the figure lies from the rule's boundary, in half-widths of
    /// its 95% interval; absent for a verdict from counts or from nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// The figure's interval reaches the boundary: `inconclusive: near the
    /// boundary`, never a verdict either way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub near_boundary: bool,
    /// The precision the figure's inputs got, e.g. "±6% (poll) and ±4%
    /// (epoll) after 5 repetitions".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) precision: Option<String>,
    /// For an inconclusive verdict, what would decide it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) to_decide: Option<String>,
    /// Which form the rule takes (relative to this machine, a ratio within
    /// the run, ...) and why.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) form: String,
    /// The figure the rule weighed and where its verdict changes (the
    /// report's claims chart); absent for a verdict from counts or answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) weighed: Option<Weighed>,
    /// The noise guard's grades over the results the claim read; absent
    /// when every one was clean (or none was graded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) noise: Option<ClaimNoise>,
    /// A claim of several statements ("each side runs at about 70% CPU"):
    /// each part's verdict and figure, in the rule's order; the claim's
    /// `figure` then counts them. Absent for a claim of one statement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) parts: Vec<ClaimPart>,
    /// For a claim whose figure follows the host's mode (one read in
    /// wake-up round trips): the host's state it was judged in, e.g.
    /// "judged with the host busy (steal 8%): cross-CPU wake-up 85 us".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) host: Option<String>,
    /// Why the claim got no verdict where it ran, e.g. "emulated CPU" for
    /// a timed claim in a guest without KVM; its verdict is then inconclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) not_judged: Option<String>,
}

/// One statement of a claim of several, with its own verdict.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ClaimPart {
    pub(crate) verdict: ClaimStatus,
    pub(crate) figure: String,
}

/// A claim's figure with its interval, and the bands of its rule: the
/// verdict below the first edge, between each pair and above the last.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Weighed {
    pub(crate) value: f64,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    /// Where the verdict changes, ascending, every one finite.
    pub(crate) edges: Vec<f64>,
    /// One more than `edges`.
    pub(crate) verdicts: Vec<ClaimStatus>,
}

impl ClaimVerdict {
    /// "holds", or "inconclusive: near the boundary".
    pub(crate) fn verdict_text(&self) -> String {
        if let Some(why) = &self.not_judged {
            return format!("not judged: {why}");
        }
        match self.near_boundary {
            true => format!("{}: near the boundary", self.verdict.as_str()),
            false => self.verdict.as_str().to_string(),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub enum ClaimStatus {
    #[serde(rename = "holds")]
    Holds,
    #[serde(rename = "does not hold")]
    DoesNotHold,
    #[serde(rename = "inconclusive")]
    Inconclusive,
}

impl ClaimStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ClaimStatus::Holds => "holds",
            ClaimStatus::DoesNotHold => "does not hold",
            ClaimStatus::Inconclusive => "inconclusive",
        }
    }

    /// "1 holds", "3 hold", "2 do not hold", "1 inconclusive".
    pub(crate) fn counted(self, n: usize) -> String {
        let words = match (self, n) {
            (ClaimStatus::Holds, 1) | (ClaimStatus::DoesNotHold, 1) => self.as_str(),
            (ClaimStatus::Holds, _) => "hold",
            (ClaimStatus::DoesNotHold, _) => "do not hold",
            (ClaimStatus::Inconclusive, _) => "inconclusive",
        };
        format!("{n} {words}")
    }
}

/// A case's part in interleaved rounds: its headline in each round and
/// where it ran in each round's order (0: first).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Rounds {
    pub(crate) seed: u64,
    pub(crate) interleaved: bool,
    pub(crate) values: Vec<f64>,
    pub(crate) positions: Vec<usize>,
    /// Every metric's value in each round (its batch's), in round order.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) metrics: BTreeMap<String, Vec<f64>>,
    /// How each round's batch was sized by time, e.g. "count=812 a
    /// repetition, 3 repetitions a round (each sized to 10ms)"; absent
    /// where the batches kept their planned size.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) batch: String,
}

/// One finding of a scenario, stored with the run: its sentence, and
/// (in runs since findings became data) its id and the figures it cites.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Verdict {
    pub(crate) scenario: String,
    pub(crate) text: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) id: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) figures: Vec<Figure>,
}

impl Verdict {
    /// `finding` of `scenario`, as the run stores it.
    pub(crate) fn of(scenario: &str, finding: Finding) -> Verdict {
        Verdict {
            scenario: scenario.to_string(),
            text: finding.text,
            id: finding.id,
            figures: finding.figures,
        }
    }
}

/// What a run found, as data: a stable id within its scenario (e.g.
/// `fastest/same-cpu, 64 B`), the sentence, and the figures the sentence
/// cites, so every format renders the same finding alike.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Finding {
    pub(crate) id: String,
    pub(crate) text: String,
    pub(crate) figures: Vec<Figure>,
}

/// A figure a finding cites: its name, value and unit (`ratio`,
/// `ns`, `calls`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Figure {
    pub(crate) name: String,
    pub(crate) value: f64,
    pub(crate) unit: String,
}

/// In tests, a finding reads as its sentence:
/// `finding == "pipe is 1.10x faster ..."`.
#[cfg(test)]
impl PartialEq<&str> for Finding {
    fn eq(&self, sentence: &&str) -> bool {
        self.text == *sentence
    }
}

impl Finding {
    pub(crate) fn new(id: impl Into<String>, text: impl Into<String>) -> Finding {
        Finding {
            id: id.into(),
            text: text.into(),
            figures: Vec::new(),
        }
    }

    /// This finding citing one more figure (none that is not a number).
    pub(crate) fn with(mut self, name: &str, value: f64, unit: &str) -> Finding {
        if value.is_finite() {
            self.figures.push(Figure {
                name: name.to_string(),
                value,
                unit: unit.to_string(),
            });
        }
        self
    }
}

/// The environment fingerprint, read from /proc and /sys.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Environment {
    pub kernel: String,
    #[serde(default)]
    pub kernel_version: String,
    #[serde(default)]
    pub arch: String,
    #[serde(default)]
    pub hostname: String,
    pub cpu_model: String,
    pub cpus: usize,
    #[serde(default)]
    pub cpus_online: String,
    #[serde(default)]
    pub smt: Option<bool>,
    #[serde(default)]
    pub governor: Option<String>,
    #[serde(default)]
    pub clocksource: Option<String>,
    #[serde(default)]
    pub mitigations: Vec<String>,
    #[serde(default)]
    pub hypervisor: Option<String>,
    #[serde(default)]
    pub memory_bytes: u64,
    #[serde(default)]
    pub nofile_soft: u64,
    #[serde(default)]
    pub nofile_hard: u64,
    #[serde(default)]
    pub root: bool,
    #[serde(default)]
    pub perf: Availability,
    #[serde(default)]
    pub io_uring: Availability,
    /// Whether sched_switch/sched_wakeup can be traced on every CPU.
    #[serde(default)]
    pub sched_tracepoints: Availability,
    /// Cost of one CLOCK_MONOTONIC read, measured once per run.
    #[serde(default)]
    pub timer_ns: Option<f64>,
    /// The clock that times each operation of fast loops (pingpong's round
    /// trips): the TSC where it is invariant, else CLOCK_MONOTONIC.
    #[serde(default)]
    pub tick_timer: Option<String>,
    /// Cost of one read of that clock.
    #[serde(default)]
    pub tick_ns: Option<f64>,
    /// The run's fastest host-speed canary time per call (`measure::canary`),
    /// of its calibration and the readings around its cases: the store
    /// keeps this machine's fastest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary_ns: Option<f64>,
    /// The run's fastest wake-up canary round trip (`measure::canary`),
    /// kept the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake_canary_ns: Option<f64>,
    /// The far host's environment, when the cases ran across hosts on an
    /// `iolab agent` (`run --peer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<Box<Environment>>,
    /// What the host was doing through the run, sampled between its cases
    /// (`measure::host`); absent for runs before it was sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostState>,
    /// The physical bounds the run held its figures to (`runner::plausible`),
    /// how often they were measured again before a case could fail, and
    /// the figure that came closest to them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<BoundsSeen>,
    /// How the run's kernel was booted, when it ran in a guest of this
    /// host (`run --kernel`); absent for a run on the host's own kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest: Option<Guest>,
}

/// A guest a run ran in: the kernel image booted through virtme-ng, how
/// its CPU ran, its CPUs and memory, and what was mirrored from the host.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Guest {
    /// The kernel image booted, e.g. "/boot/vmlinuz-6.1.0-56-amd64".
    pub image: String,
    /// "kvm" or "emulated" (QEMU's TCG: timings are QEMU's, not the kernel's).
    pub accel: String,
    /// QEMU's `-cpu` model under KVM, e.g. "host,-arch-capabilities".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_model: Option<String>,
    pub cpus: usize,
    pub memory_bytes: u64,
    /// "virtme-ng 1.42 on QEMU 7.2.x".
    pub via: String,
    /// What of the host the guest could not mirror, one line each (e.g.
    /// "memory: 4 GiB of the host's 24 GiB").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmirrored: Vec<String>,
}

/// The run's physical bounds as they ended: the loosest of every reading.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct BoundsSeen {
    /// The fastest cache-resident copy read, in bytes/s.
    pub(crate) memcpy_bytes_per_s: f64,
    /// The cheapest system call read, in ns.
    pub(crate) syscall_ns: f64,
    /// Times a figure past the bounds had them measured again.
    pub(crate) measured_again: u32,
    /// The ok figure nearest its bound: its case and figure/bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) closest: Option<Closest>,
}

/// A case's figure over the bound it was held to.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Closest {
    pub(crate) case: String,
    pub(crate) ratio: f64,
}

/// The host's state through a run: one sample every few seconds, taken
/// between cases so that sampling never overlaps a measurement.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HostState {
    pub(crate) samples: Vec<HostSample>,
}

/// One look at the host.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HostSample {
    /// Seconds since the run's first sample.
    pub(crate) at_s: f64,
    /// The hypervisor's steal since the previous sample, in percent of
    /// all CPUs' time (0 for the first).
    pub(crate) steal_pct: f64,
    /// Tasks runnable besides this run at that moment (`procs_running`).
    pub(crate) others_runnable: f64,
    /// A wake-up round trip between two threads on two CPUs (eventfd),
    /// the median of a few batches; absent with one CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cross_cpu_wake_ns: Option<f64>,
    /// The same between two threads on one CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) same_cpu_wake_ns: Option<f64>,
}

/// Whether a kernel facility can be used here, and why not.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Availability {
    pub(crate) available: bool,
    #[serde(default)]
    pub(crate) detail: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Ok,
    Failed,
    Unsupported,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Unsupported => "unsupported",
        }
    }
}

/// What one case produced.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CaseResult {
    pub scenario: String,
    pub(crate) case: String,
    pub params: BTreeMap<String, serde_json::Value>,
    pub(crate) status: Status,
    pub(crate) reason: Option<String>,
    pub(crate) verified: Option<Verified>,
    pub metrics: BTreeMap<String, Metric>,
    /// The metric the table leads with; one of `metrics`.
    #[serde(default)]
    pub headline: Option<String>,
    pub latency: Option<LatencySummary>,
    pub(crate) cpu: Option<CpuUsage>,
    /// Where each side ran and what it cost.
    #[serde(default)]
    pub(crate) sides: Vec<Side>,
    /// The headline as a multiple of the matching `limits` reference point
    /// measured in the same run, e.g. 3.2x wake_rtt_ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) limit_ratio: Option<LimitRatio>,
    /// HdrHistogram V2 serialization of the latency histogram; kept in the
    /// store, not in the JSON contract.
    #[serde(skip)]
    pub histogram: Option<Vec<u8>>,
    /// Values over time (e.g. per-thread throughput each second), drawn as
    /// a time chart by the HTML report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<Series>,
    /// Warnings about the figures themselves, e.g. `not_really_moved` for
    /// a rate above this machine's memory bandwidth.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) flags: Vec<Flag>,
    /// Where the CPU went while the case ran (`iolab run --profile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) profile: Option<Profile>,
    /// Where each operation's time went (`iolab run --explain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) explain: Option<Explain>,
    /// How closely the headline's median is known (`--precision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) precision: Option<Precision>,
    /// What could have disturbed the case, and its grade (the noise guard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) noise: Option<Noise>,
    /// A value for every pair of CPUs (`c2c`), drawn as a heatmap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<Matrix>,
    /// Each pair of sides of a case that ran several at once (`pairs=N`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) pairs: Vec<PairFigures>,
    /// One-shot observations (`probe`): each call made, what the kernel
    /// answered and the figure read from it, in the order they were made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) observations: Vec<Observation>,
    /// Interleaved rounds (`iolab ab`): the headline of each round's batch
    /// of this case, in round order, and the seed that drew the rounds'
    /// orders, so anyone can recompute the paired figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rounds: Option<Rounds>,
    /// Its metrics' values in this host's newest earlier runs on this
    /// kernel (`Store::fill_past`), read for the claims, which judge their
    /// figures over these runs and this one; not part of the JSON.
    #[serde(skip)]
    pub(crate) past: Vec<Earlier>,
}

/// A case's metric values in one earlier run of the same host and kernel,
/// and the figures of its observations (a probe's), in their order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Earlier {
    pub(crate) run_id: String,
    pub(crate) metrics: BTreeMap<String, f64>,
    pub(crate) observed: Vec<(String, f64)>,
}

/// One pair of sides among several run at once: what it carried and how
/// fast (median over repetitions).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct PairFigures {
    /// 0 to pairs - 1; the sides' roles carry the same number.
    pub(crate) pair: u64,
    /// Messages the pair verified (both sides).
    pub(crate) messages: u64,
    pub(crate) ops_per_s: f64,
    pub(crate) bytes_per_s: f64,
}

/// A square table over CPUs: `values[i][j]` is the figure between
/// `cpus[i]` and `cpus[j]`, null where nothing was measured (the diagonal).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Matrix {
    pub cpus: Vec<usize>,
    pub unit: String,
    pub values: Vec<Vec<Option<f64>>>,
    /// How the CPUs were chosen (all, or a sample of how many).
    pub note: String,
}

/// One call a `probe` check made and what the kernel answered: evidence a
/// reader can check against the claim it bears on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Observation {
    /// Names the observation within its check, e.g. `fill_until_eagain`.
    pub(crate) name: String,
    /// The call made, with its arguments, e.g. `fcntl(pipe, F_GETPIPE_SZ)`.
    pub(crate) call: String,
    /// What the kernel answered, in words.
    pub(crate) answer: String,
    /// The errno name when the call failed, e.g. `ENODEV`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// The figure read from the answer, in `unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) figure: Option<f64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) unit: String,
}

/// A warning attached to a result: its name and why it was raised.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Flag {
    pub(crate) name: String,
    pub(crate) reason: String,
}

impl CaseResult {
    pub fn new(scenario: &str, case: &str, params: BTreeMap<String, serde_json::Value>) -> Self {
        CaseResult {
            scenario: scenario.to_string(),
            case: case.to_string(),
            params,
            status: Status::Ok,
            reason: None,
            verified: None,
            metrics: BTreeMap::new(),
            headline: None,
            latency: None,
            cpu: None,
            sides: Vec::new(),
            limit_ratio: None,
            histogram: None,
            series: Vec::new(),
            flags: Vec::new(),
            profile: None,
            explain: None,
            matrix: None,
            pairs: Vec::new(),
            precision: None,
            noise: None,
            observations: Vec::new(),
            rounds: None,
            past: Vec::new(),
        }
    }

    pub(crate) fn headline_metric(&self) -> Option<(&str, &Metric)> {
        let name = self.headline.as_deref()?;
        self.metrics.get(name).map(|m| (name, m))
    }

    pub(crate) fn param_str(&self, key: &str) -> Option<String> {
        self.params.get(key).map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }
}

/// One named line of values over time within a case.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Series {
    pub name: String,
    /// The unit of the values (y), e.g. "bytes/s".
    pub unit: String,
    /// [seconds since the case started, value].
    pub points: Vec<[f64; 2]>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Verified {
    pub(crate) ok: bool,
    pub(crate) messages: u64,
    pub(crate) bytes: u64,
}

/// A metric's headline value is the median over repetitions; `min`, `max`
/// and `reps` carry the spread.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Metric {
    pub value: f64,
    pub(crate) unit: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) reps: Vec<f64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum LatencyKind {
    RoundTrip,
    OneWay,
    PerCall,
}

impl LatencyKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LatencyKind::RoundTrip => "round-trip",
            LatencyKind::OneWay => "one-way",
            LatencyKind::PerCall => "per-call",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct LatencySummary {
    pub(crate) kind: LatencyKind,
    pub(crate) unit: String,
    pub(crate) count: u64,
    pub(crate) mean: f64,
    pub(crate) p50: u64,
    pub(crate) p90: u64,
    pub(crate) p99: u64,
    pub(crate) p99_9: u64,
    pub(crate) max: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct CpuUsage {
    pub(crate) user_s: f64,
    pub(crate) sys_s: f64,
    pub(crate) voluntary_csw: u64,
    pub(crate) involuntary_csw: u64,
}

/// One side of a case: its role, the CPUs it was seen on, and its cost.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Side {
    pub(crate) role: String,
    pub(crate) cpus: Vec<usize>,
    pub(crate) cpu: CpuUsage,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct LimitRatio {
    /// The `limits` metric compared against, e.g. "wake_rtt_ns".
    pub(crate) limit: String,
    /// headline / limit: for a time, how many reference costs one operation
    /// takes; for a rate, the fraction of the reference rate reached.
    pub(crate) ratio: f64,
}

/// Where one operation's time went: measured components per operation,
/// the components that could not be measured and why, and what is left.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Explain {
    /// Operations the figures are divided by (those of the timed repetitions).
    pub(crate) ops: u64,
    /// The measured time of one operation, in ns (the headline's).
    pub(crate) op_ns: f64,
    pub(crate) components: Vec<Component>,
    pub(crate) missing: Vec<Missing>,
    /// `op_ns` minus the time components of the side that measured it.
    pub(crate) unattributed: Component,
    /// What limits the figures, e.g. scheduler records the tracer lost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<String>,
    /// Time off CPU by the kernel call chain each side switched out with,
    /// folded ("side;[kernel];...;leaf ns", `--explain --profile`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) offcpu_folded: Vec<String>,
    /// The share of the timed repetitions the scheduler tracer recorded
    /// (its windows); the scheduler figures are scaled from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) traced_share: Option<f64>,
}

/// One measured component, per operation.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Component {
    pub(crate) name: String,
    /// The side it was measured on; none when it covers both sides' CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) side: Option<String>,
    pub(crate) unit: String,
    pub(crate) value: f64,
    /// Where the figure comes from.
    #[serde(default)]
    pub(crate) source: String,
    /// The intervals it adds up, for the scheduler's components.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) intervals: Option<LatencySummary>,
}

/// A component that was not measured, and why.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Missing {
    pub(crate) name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) side: Option<String>,
    pub(crate) reason: String,
}

/// A CPU profile of one case: sampled while it ran, over iolab's threads
/// and every process it started.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Profile {
    /// How the samples were taken, e.g. "perf_event_open cpu-clock 4999 Hz".
    pub(crate) method: String,
    /// Samples taken (0 when profiling was not possible).
    pub(crate) samples: u64,
    /// Kernel functions by share of all samples (self time, leaf frame).
    #[serde(default)]
    pub(crate) top_kernel: Vec<Symbol>,
    /// User-space functions (iolab's own) or programs by share of all samples.
    #[serde(default)]
    pub(crate) top_user: Vec<Symbol>,
    /// Share of samples whose kernel call chain passes through the
    /// access/modify-time update path (see docs/measuring.md for the functions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) atime_share: Option<f64>,
    /// Why there is no profile, or what limits it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
    /// The sampled stacks folded, "root;...;leaf count" per line, root
    /// first (the process, then its kernel or user frames); the most
    /// sampled stacks only (see docs/measuring.md), most sampled first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) folded: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub(crate) struct Symbol {
    pub(crate) name: String,
    /// Fraction of all samples, 0..1.
    pub(crate) share: f64,
}
