//! `contention` (E3): two processes on one channel, both non-blocking, one
//! byte per call, each timing every call. Alone, a call should cost a few
//! hundred nanoseconds; the original found that a FIFO's reader and writer
//! running together stall each other for milliseconds on the pipe mutex,
//! while UDP did not. Tests: `reader-only`, `writer-only`, `both`,
//! `both+hogs` (plus processes that burn the other CPUs), and on request
//! `two-readers` (a second reader calls on the reader's descriptor; no
//! writer), which the original said stall the same way.

mod caller;
mod explained;
mod hogs;
mod result;

use super::classic::{ClassicChart, ClassicKind, Figure, Mark, Original, Ratio};
use super::common::explain;
use super::common::two_sided::run_sides;
use super::{CaseCtx, CaseSpec, MetricSpec, ParamKind, ParamSpec, Scenario, Unsupported};
use crate::measure::pin::Placement;
use crate::model::CaseResult;
use caller::{CallReport, Payload, Timing};
pub(crate) use result::{RoleMetrics, READER, WRITER};

pub(crate) struct Contention;

const TESTS: &[&str] = &[
    "reader-only",
    "writer-only",
    "both",
    "both+hogs",
    "two-readers",
];

pub(crate) const TEST: ParamSpec = ParamSpec {
    name: "test",
    kind: ParamKind::Choice(TESTS),
    default: "reader-only,writer-only,both,both+hogs",
    about: "which sides run: one alone, both, both with CPU hogs, or two readers and no writer",
    in_name: true,
};

/// How long a case runs per repetition, which the progress bar weighs.
pub(crate) const DURATION: ParamSpec = ParamSpec {
    name: "duration",
    kind: ParamKind::Duration,
    default: "1s",
    about: "how long each side calls (the original ran for minutes; seeds: 10s)",
    in_name: false,
};

const INTERVAL: ParamSpec = ParamSpec {
    name: "interval",
    kind: ParamKind::Duration,
    default: "100ms",
    about: "length of one point of the time series",
    in_name: false,
};

pub(crate) const SLOW: ParamSpec = ParamSpec {
    name: "slow",
    kind: ParamKind::Duration,
    default: "1ms",
    about: "a call taking longer than this counts as slow",
    in_name: false,
};

const HOGS: ParamSpec = ParamSpec {
    name: "hogs",
    kind: ParamKind::Workers,
    default: "auto",
    about: "CPU-burning processes in both+hogs (auto: the CPUs minus one)",
    in_name: false,
};

const PARAMS: &[ParamSpec] = &[TEST, DURATION, INTERVAL, SLOW, HOGS];

/// Each side's slowdown with both running, over the same side alone.
const CLASSIC: &[ClassicChart] = &[ClassicChart {
    title: "E3: slowdown of each side's mean call time with both sides running, over alone",
    kind: ClassicKind::Bars {
        x: "side, test",
        y: "mean call time, together over alone (x)",
        unit: "x",
        figures: &[
            slowdown("reader, both", &READER.mean_ns, "both", "reader-only"),
            slowdown("writer, both", &WRITER.mean_ns, "both", "writer-only"),
            slowdown(
                "reader, both+hogs",
                &READER.mean_ns,
                "both+hogs",
                "reader-only",
            ),
            slowdown(
                "writer, both+hogs",
                &WRITER.mean_ns,
                "both+hogs",
                "writer-only",
            ),
        ],
        split: &[],
        largest: None,
    },
    only: &[],
    original: Some(Original {
        label: "original (FIFO, 2.6 kernel): alone about 0.4 us per call, together 4-6 us: \
                about 10-15x slower",
        mark: Mark::Y(10.0, 15.0),
        only: &[],
    }),
    full: "a slowdown needs each side alone and both together: run all four tests \
           (`iolab run contention`, or `iolab run seeds`)",
}];

const fn slowdown(
    label: &'static str,
    metric: &'static MetricSpec,
    of: &'static str,
    over: &'static str,
) -> Figure {
    Figure {
        label,
        metric,
        ratio: Some(Ratio {
            param: TEST.name,
            of,
            over,
        }),
    }
}

impl Scenario for Contention {
    fn name(&self) -> &'static str {
        "contention"
    }
    fn about(&self) -> &'static str {
        "non-blocking one-byte calls by a reader and a writer, alone and together: stalls"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn classic_charts(&self) -> &'static [ClassicChart] {
        CLASSIC
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        result::METRICS
    }
    fn uses_mechanisms(&self) -> bool {
        true
    }
    fn default_mechs(&self) -> Option<&'static [&'static str]> {
        Some(&["fifo", "pipe", "eventfd", "udp", "unix-dgram"])
    }
    fn default_placements(&self) -> Option<&'static [Placement]> {
        Some(&[Placement::Unpinned])
    }

    fn run(&self, case: &CaseSpec, ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let test = case.text(&TEST);
        let timing = Timing {
            duration_ns: case.int(&DURATION),
            interval_ns: case.int(&INTERVAL),
            slow_ns: case.int(&SLOW),
            overlap: test.starts_with("both"),
        };
        let caps = case.mech.expect("contention runs over mechanisms").caps();
        let payload = match (caps.counter, caps.reliable) {
            (true, _) => Payload::Counter,
            (false, true) => Payload::Sequence,
            (false, false) => Payload::Unordered,
        };
        let hog_count = if test == "both+hogs" {
            case.int(&HOGS)
        } else {
            0
        };
        let _hogs = hogs::Hogs::start(hog_count)?;
        let two = test == "two-readers";
        if two {
            ctx.in_subdir("probe", |ctx| read_through_a_descriptor(case, ctx))?;
        }
        let (write, read) = (test != "reader-only" && !two, test != "writer-only");
        let mut reps: Vec<[CallReport; 2]> = Vec::new();
        let tracing = explain::Tracing::for_case(ctx);
        for rep in 0..case.repeat {
            // Each repetition connects anew: its own directory, so a FIFO
            // of the one before does not stand in the way.
            let reports = ctx.in_subdir(&format!("rep-{rep}"), |ctx| {
                run_sides(
                    case,
                    ctx,
                    move |ep| match write {
                        true => caller::writer(ep, payload, timing),
                        false => caller::idle(ep, timing),
                    },
                    move |ep| match (read, two) {
                        (true, false) => caller::reader(ep, payload, timing),
                        (true, true) => caller::two_readers(ep, payload, timing),
                        (false, _) => caller::idle(ep, timing),
                    },
                )
            })?;
            match result::settle(out, reports, payload) {
                Some(rep) => reps.push(rep),
                None => return Ok(()),
            }
        }
        let trace = tracing.map(explain::Tracing::finish);
        result::fill(out, &reps, payload, hog_count);
        if let Some(trace) = trace {
            out.explain = explained::of_reps(&reps, &trace);
        }
        Ok(())
    }
}

/// `two-readers` needs the reader's descriptor to share: a mechanism read
/// otherwise (a counter word, a ring in memory) makes the case unsupported.
fn read_through_a_descriptor(case: &CaseSpec, ctx: &CaseCtx) -> anyhow::Result<()> {
    let mech = case.mech.expect("contention runs over mechanisms");
    let (_, reader) = mech.connect(ctx.dir, &case.values)?;
    match reader.readable_fd() {
        Some(_) => Ok(()),
        None => Err(Unsupported(format!(
            "two-readers: {} is not read through a descriptor a second reader could share",
            mech.name()
        ))
        .into()),
    }
}
