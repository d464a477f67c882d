//! What the alternatives would cost here: for a busy channel that moved
//! bytes, the pattern read from what moved (`pattern`: round trips, or a
//! one-way stream or bulk transfer, with the message size that moved;
//! same CPU or across) run now in iolab's own micro-benchmark over the
//! program's mechanism and over the alternatives that keep its semantics,
//! as randomized interleaved rounds (`runner::rounds`, as `iolab ab`
//! does), each compared with the program's mechanism by its paired ratio,
//! said one way ("N x faster" or "N x slower"). A micro-benchmark does
//! not model the program: each option's gain on the program is bounded by
//! the channel's Amdahl ceiling (`ceiling`), and a placement option is
//! labelled as not tried on the program.

use super::ceiling::{self, Ceiling};
use super::channels::Kind;
use super::diagnosis::ChannelCost;
use super::pattern::Shape;
use super::syscalls::Direction;
use crate::cli::{ModeArg, RunArgs};
use crate::model::CaseResult;
use crate::runner::rounds::{self, Schedule, Watch};
use crate::stats::paired;
use std::fmt::Write;
use std::time::Duration;

/// Rounds at most; fewer when the time cap comes first.
const MAX_ROUNDS: usize = 30;
/// Rounds that run past the time cap, so each alternative has pairs.
const FLOOR_ROUNDS: usize = 3;

/// The observed pattern of one channel, in iolab's terms.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Pattern {
    /// `pingpong` (round trips) or `stream` (one way).
    pub(crate) scenario: &'static str,
    pub(crate) mechanism: &'static str,
    pub(crate) size: u64,
    pub(crate) placement: &'static str,
}

/// One measured option (a mechanism and placement).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Choice {
    /// As `iolab run` arguments, to measure it again.
    pub(crate) spec: String,
    pub(crate) label: String,
    pub(crate) programs: bool,
    pub(crate) median: f64,
    pub(crate) unit: String,
    /// This option over the program's mechanism, per round: median and
    /// its 99.5% interval.
    pub(crate) ratio: [f64; 3],
    /// The same said one way: above 1 faster, below 1 slower (median,
    /// low, high), whichever way the metric goes.
    pub(crate) faster: [f64; 3],
    /// The option keeps the mechanism and changes the placement: only a
    /// micro-benchmark, it was not tried on the program.
    pub(crate) placement_only: bool,
    /// The most the program could gain with it (Amdahl with the
    /// channel's ceiling and `faster`); None for a placement option.
    pub(crate) program_at_most: Option<f64>,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Alternatives {
    pub(crate) channel: String,
    pub(crate) pattern: Pattern,
    pub(crate) rounds: usize,
    pub(crate) seed: u64,
    /// Best first.
    pub(crate) options: Vec<Choice>,
    /// Options that could not be measured, with why.
    pub(crate) not_measured: Vec<String>,
    /// The channel's ceiling the options' gains are bounded by.
    pub(crate) ceiling: Option<Ceiling>,
    /// How long the rounds took (`--alternatives-time` bounds it).
    pub(crate) spent_s: f64,
}

/// The pattern of `c`, when it moved bytes and its kind has an iolab
/// mechanism.
pub(crate) fn pattern_of(c: &ChannelCost, all: &[ChannelCost]) -> Option<Pattern> {
    let mechanism = mechanism_of(&c.channel.kind)?;
    let size = c.moved.size?.max(1);
    let round_trips = match c.moved.shape {
        Shape::Nothing => return None,
        Shape::RequestResponse => true,
        Shape::Bulk => false,
        // One end of a pipe sees one way: the answer may come back on
        // another.
        Shape::OneWay => is_round_trip(c, all),
    };
    let placement = if c.wakeups.count > 0 && c.wakeups.cross_cpu_share < 0.5 {
        "same-cpu"
    } else {
        "cross-cpu"
    };
    Some(Pattern {
        scenario: if round_trips { "pingpong" } else { "stream" },
        mechanism,
        size,
        placement,
    })
}

/// Whether the channel carries round trips: calls both ways on it (a
/// socket), or, for a pipe or FIFO, a busy channel of the same process
/// the other way to the same peer.
fn is_round_trip(c: &ChannelCost, all: &[ChannelCost]) -> bool {
    let ways = |c: &ChannelCost| -> (bool, bool) {
        let has = |d: Direction| {
            c.calls
                .iter()
                .any(|row| row.direction == d && row.calls > 0)
        };
        (has(Direction::In), has(Direction::Out))
    };
    let (reads, writes) = ways(c);
    if reads && writes {
        return true;
    }
    all.iter().any(|other| {
        let (r, w) = ways(other);
        other.channel.pid == c.channel.pid
            && other.channel.inode != c.channel.inode
            && (r && writes || w && reads)
            && other.channel.peers.iter().any(|p| {
                c.channel
                    .peers
                    .iter()
                    .any(|q| q.pid == p.pid && p.pid != c.channel.pid)
            })
    })
}

fn mechanism_of(kind: &Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Pipe { .. } => "pipe",
        Kind::Fifo { .. } => "fifo",
        Kind::Unix { ty, .. } if ty == "stream" => "unix-stream",
        Kind::Unix { ty, .. } if ty == "seqpacket" => "unix-seqpacket",
        Kind::Unix { ty, .. } if ty == "dgram" => "unix-dgram",
        Kind::Tcp { loopback: true, .. } => "tcp",
        Kind::Udp { loopback: true, .. } => "udp",
        Kind::Eventfd { .. } => "eventfd",
        _ => return None,
    })
}

/// The options that keep the mechanism's semantics: a byte stream may move
/// to any reliable ordered transport, a message to one that keeps
/// boundaries, a notification to another notification; each with the
/// program's placement, and the program's mechanism on the other one.
fn options(p: &Pattern) -> Vec<(String, &'static str)> {
    let same_kind: &[&str] = match p.mechanism {
        "pipe" | "fifo" | "unix-stream" | "tcp" => &["pipe", "unix-stream", "tcp", "shm"],
        "unix-seqpacket" | "unix-dgram" | "udp" => &["unix-seqpacket", "unix-dgram", "shm", "mq"],
        _ => &["eventfd", "futex", "pipe"],
    };
    let other_place = match p.placement {
        "same-cpu" => "cross-cpu",
        _ => "same-cpu",
    };
    let mut list = vec![(p.mechanism.to_string(), p.placement)];
    for m in same_kind.iter().filter(|m| **m != p.mechanism) {
        list.push((m.to_string(), p.placement));
    }
    list.push((p.mechanism.to_string(), other_place));
    list
}

/// One option to measure: the run arguments of its one case.
struct Candidate {
    scenario: &'static str,
    mechanism: String,
    placement: &'static str,
    params: Vec<String>,
}

impl Candidate {
    fn of(p: &Pattern, mechanism: &str, placement: &'static str) -> Self {
        let size = if mechanism == "mq" {
            p.size.min(8192)
        } else {
            p.size
        };
        let mut params = vec![format!("size={size}")];
        params.push(match p.scenario {
            "pingpong" => format!("count={}", round_trips(size)),
            _ => "rep_time=20ms".into(),
        });
        if mechanism == "shm" {
            params.push("wake=futex".into());
        }
        Candidate {
            scenario: p.scenario,
            mechanism: mechanism.to_string(),
            placement,
            params,
        }
    }

    /// As `iolab ab` takes it, shown with the option's figures.
    fn text(&self) -> String {
        let mut text = format!(
            "{} --mech {} --placement {} --mode processes",
            self.scenario, self.mechanism, self.placement
        );
        for p in &self.params {
            let _ = write!(text, " -p {p}");
        }
        text
    }

    fn args(&self) -> RunArgs {
        RunArgs {
            targets: vec![self.scenario.to_string()],
            mech: vec![self.mechanism.clone()],
            placement: vec![self.placement.to_string()],
            mode: ModeArg::Processes,
            params: self.params.clone(),
            ..RunArgs::defaults()
        }
    }
}

/// Round trips per batch: 2000 of small messages, fewer of large ones
/// (about 16 MiB each way), so a round of any size fits the time cap.
fn round_trips(size: u64) -> u64 {
    (16u64 << 20)
        .checked_div(size)
        .unwrap_or(2000)
        .clamp(10, 2000)
}

/// Measures the options of `p` in interleaved rounds for at most `cap`.
pub(crate) fn measure(
    channel: &str,
    p: &Pattern,
    ceiling: Option<&Ceiling>,
    cap: Duration,
    progress: &dyn Fn(usize, usize),
) -> anyhow::Result<Alternatives> {
    let started = std::time::Instant::now();
    let mut not_measured = Vec::new();
    let mut plan: Option<crate::plan::Plan> = None;
    let mut labels = Vec::new();
    for (mechanism, placement) in options(p) {
        let option = Candidate::of(p, &mechanism, placement);
        match crate::plan::one_case(&option.args()) {
            Ok(one) => {
                labels.push((option.text(), format!("{mechanism}, {placement}")));
                match plan.as_mut() {
                    Some(all) => all.cases.extend(one.cases),
                    None => plan = Some(one),
                }
            }
            Err(e) => not_measured.push(format!("{mechanism}, {placement}: {e}")),
        }
    }
    let plan = plan.ok_or_else(|| anyhow::anyhow!("no option of {channel} can run here"))?;
    let schedule = Schedule {
        sizing: None,
        seed: crate::plan::clock_seed(),
        min: MAX_ROUNDS,
        max: MAX_ROUNDS,
        time_cap: cap,
        interleaved: true,
        floor: FLOOR_ROUNDS,
    };
    let results = rounds::run(&plan, &schedule, &Never(progress))?;
    let mut found = rank(channel, p, schedule.seed, &labels, &results, not_measured);
    for o in &mut found.options {
        o.program_at_most = ceiling
            .filter(|_| !o.programs && !o.placement_only)
            .map(|c| ceiling::projected(c.share, o.faster[0]));
    }
    found.ceiling = ceiling.cloned();
    found.spent_s = started.elapsed().as_secs_f64();
    Ok(found)
}

/// Runs every round: the options are ranked, not decided.
struct Never<'a>(&'a dyn Fn(usize, usize));

impl Watch for Never<'_> {
    fn round_done(&self, done: usize, max: usize) {
        (self.0)(done, max);
    }

    fn decided(&self, _so_far: Vec<CaseResult>, _spent: f64) -> bool {
        false
    }
}

fn rank(
    channel: &str,
    p: &Pattern,
    seed: u64,
    labels: &[(String, String)],
    results: &[CaseResult],
    mut not_measured: Vec<String>,
) -> Alternatives {
    let values = |r: &CaseResult| r.rounds.as_ref().map(|r| r.values.clone());
    let programs = results.first().and_then(values).unwrap_or_default();
    let mut options = Vec::new();
    for (i, (r, (spec, label))) in results.iter().zip(labels).enumerate() {
        let ratio = values(r).and_then(|v| paired_or_range(&programs, &v));
        let ok = r.status == crate::model::Status::Ok;
        let Some(ratio) = ratio.filter(|_| ok) else {
            let why = r.reason.clone().unwrap_or_else(|| "no rounds".into());
            not_measured.push(format!("{label}: {why}"));
            continue;
        };
        let headline = r.headline_metric().map(|(_, m)| m);
        options.push(Choice {
            spec: spec.clone(),
            label: label.clone(),
            programs: i == 0,
            median: headline.map_or(f64::NAN, |m| m.value),
            unit: headline.map_or_else(String::new, |m| m.unit.clone()),
            faster: faster(ratio, p.scenario == "stream"),
            ratio,
            placement_only: i > 0 && spec.contains(&format!("--mech {} ", p.mechanism)),
            program_at_most: None,
        });
    }
    options.sort_by(|a, b| b.faster[0].total_cmp(&a.faster[0]));
    Alternatives {
        channel: channel.to_string(),
        pattern: p.clone(),
        rounds: programs.len(),
        seed,
        options,
        not_measured,
        ceiling: None,
        spent_s: 0.0,
    }
}

/// The paired ratio of `b` to `a` per round: its median with its 99.5%
/// interval, or, with fewer rounds than that interval needs
/// (`looks::FIRST_LOOK`), with the lowest and highest round.
fn paired_or_range(a: &[f64], b: &[f64]) -> Option<[f64; 3]> {
    if let Some(r) = paired::ratio(a, b) {
        return Some([r.median, r.lo, r.hi]);
    }
    let mut per_round = paired::per_round(a, b);
    if per_round.is_empty() {
        return None;
    }
    let lo = per_round.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = per_round.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some([crate::stats::estimators::median(&mut per_round), lo, hi])
}

/// A ratio of values said as "times faster": the ratio itself where more
/// is better (throughput), its inverse where less is (time per round
/// trip), with the interval's ends swapped to match.
fn faster(ratio: [f64; 3], higher_is_better: bool) -> [f64; 3] {
    match higher_is_better {
        true => ratio,
        false => [1.0 / ratio[0], 1.0 / ratio[2], 1.0 / ratio[1]],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_stream_keeps_to_reliable_ordered_transports_and_tries_the_other_placement() {
        let p = Pattern {
            scenario: "pingpong",
            mechanism: "pipe",
            size: 64,
            placement: "cross-cpu",
        };
        let list = options(&p);
        assert_eq!(list[0], ("pipe".to_string(), "cross-cpu"));
        assert!(list.iter().all(|(m, _)| m != "udp" && m != "unix-dgram"));
        assert!(list.contains(&("shm".to_string(), "cross-cpu")));
        assert_eq!(list.last().unwrap(), &("pipe".to_string(), "same-cpu"));
        assert_eq!(
            Candidate::of(&p, "shm", "cross-cpu").text(),
            "pingpong --mech shm --placement cross-cpu --mode processes -p size=64 -p count=2000 -p wake=futex"
        );
    }

    #[test]
    fn every_options_spec_plans_as_one_case() {
        for mechanism in ["pipe", "unix-seqpacket", "eventfd"] {
            for scenario in ["pingpong", "stream"] {
                let p = Pattern {
                    scenario,
                    mechanism,
                    size: 100,
                    placement: "same-cpu",
                };
                for (m, place) in options(&p) {
                    let option = Candidate::of(&p, &m, place);
                    match crate::plan::one_case(&option.args()) {
                        Ok(plan) => assert_eq!(plan.cases.len(), 1, "{}", option.text()),
                        Err(e) => assert!(e.contains("cannot run here"), "{}: {e}", option.text()),
                    }
                    // What the JSON shows plans as the same case.
                    assert_eq!(
                        plan_of_text(&option.text()).map(|p| p.cases[0].name()).ok(),
                        crate::plan::one_case(&option.args())
                            .map(|p| p.cases[0].name())
                            .ok()
                    );
                }
            }
        }
    }

    fn plan_of_text(text: &str) -> Result<crate::plan::Plan, String> {
        use clap::Parser;
        let words = ["iolab", "run"].into_iter().chain(text.split_whitespace());
        match crate::cli::Cli::try_parse_from(words).map(|cli| cli.command) {
            Ok(crate::cli::Command::Run(args)) => crate::plan::one_case(&args),
            other => Err(format!("{text} is not a run: {other:?}")),
        }
    }
}
