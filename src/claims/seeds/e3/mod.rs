//! E3, named FIFOs under contention (seeds/001): do FIFO calls stall when
//! a reader and a writer contend, and UDP and eventfd not; what CPU hogs
//! do to it; how a FIFO compares with a pipe and with UDP alone and
//! contended; how the sides sleep; whether notifying less removes the
//! cost; how big a pipe is. The stall test (`stall.rs`) decides both the
//! claims and the `contention` finding (`contention.rs`).

mod contention;
mod pipe_size;
mod reader_waits;
mod stall;

use super::{observed, similar};
use crate::claims::engine::claim::{Claim, Evidence, StatedBy};
use crate::claims::engine::conclusion::Findings;
use crate::claims::engine::rule::{CaseJudge, Rule};
use crate::claims::engine::select::{sel, Select};
use crate::claims::engine::value::Quantity;
use crate::scenario::contention::{READER, WRITER};
use crate::scenario::stream;

/// The `contention` finding: per mechanism, and which stall.
pub(super) const FINDINGS: Findings = Findings {
    scenario: "contention",
    find: contention::findings,
};

/// The stall test's cases of one mechanism: contended, then the reader
/// alone.
const FIFO: &[Select] = &[
    e3("fifo both", &[("mech", "fifo"), ("test", "both")]),
    e3(
        "fifo reader-only",
        &[("mech", "fifo"), ("test", "reader-only")],
    ),
];
const UDP: &[Select] = &[
    e3("udp both", &[("mech", "udp"), ("test", "both")]),
    e3(
        "udp reader-only",
        &[("mech", "udp"), ("test", "reader-only")],
    ),
];
const EVENTFD: &[Select] = &[
    e3("eventfd both", &[("mech", "eventfd"), ("test", "both")]),
    e3(
        "eventfd reader-only",
        &[("mech", "eventfd"), ("test", "reader-only")],
    ),
];

/// The stall test's form.
const STALL_FORM: &str = "the contended mean over the reader alone in the same run, an \
     absolute 1 ms for the slowest call (a stall of a scheduler time slice does not scale \
     with the CPU) and sleeps per call (a parked side sleeps, a preempted one does not)";

/// What the contended reader of `of` waits on, beside the verdict.
const fn reader_waits(of: &'static [Select]) -> Option<Evidence> {
    Some(Evidence {
        read: reader_waits::evidence,
        of,
    })
}

/// A claim the stall test decides over `of` with `judge`.
const fn stall(
    id: &'static str,
    of: &'static [Select],
    judge: CaseJudge,
    sentence: &'static str,
    original: &'static str,
) -> Claim {
    Claim {
        id,
        source: "E3",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence,
        original,
        scenario: "contention",
        rule: Rule::Judged {
            of,
            judge,
            form: STALL_FORM,
        },
        // The stall test's signs are 3x, 1 ms and 1 sleep in 10,000 calls:
        // a 20% effect decides.
        resolve: 0.2,
        kernel: reader_waits(of),
    }
}

/// One contention case: `mech` with the sides of `test`.
const fn e3(label: &'static str, params: &'static [(&'static str, &'static str)]) -> Select {
    sel(label, "contention", params)
}

/// `q` of the contended FIFO case within `lo..hi`.
const fn sleeps(q: Quantity, lo: f64, hi: f64) -> Rule {
    Rule::Within {
        q,
        at: e3("fifo both", &[("mech", "fifo"), ("test", "both")]),
        lo,
        hi,
        why: crate::claims::engine::form::PER_OPERATION,
    }
}

pub(super) static CLAIMS: &[Claim] = &[
    stall(
        "E3-fifo-stalls",
        FIFO,
        stall::stalls,
        "FIFO calls stall when a reader and a writer contend: max latency over 1 ms, mean several times the uncontended one",
        "alone about 0.4 us per call, max below 0.1 ms; together 4-6 us mean, frequent calls over 1 ms, max of several ms",
    ),
    stall(
        "E3-udp-no-stall",
        UDP,
        stall::no_stall,
        "UDP does not stall under the same contention",
        "UDP showed no such stalls",
    ),
    stall(
        "E3-eventfd-no-stall",
        EVENTFD,
        stall::no_stall,
        "eventfd does not stall under the same contention (the better notifier)",
        "not measured: the post recommends eventfd (since 2.6.22) instead of the FIFO",
    ),
    Claim {
        id: "E3-hogs-lower-mean",
        source: "E3",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "CPU hogs lower the contended mean latency of FIFO calls",
        original: "with 3 CPU-burning processes on 4 cores the average sometimes fell",
        scenario: "contention",
        rule: Rule::Faster {
            q: Quantity::Metric(&READER.mean_ns),
            fast: sel("fifo both+hogs", "contention", &[("mech", "fifo"), ("test", "both+hogs")]),
            slow: sel("fifo both", "contention", &[("mech", "fifo"), ("test", "both")]),
            factor: 1.1,
            fails_below: 1.1,
        },
        resolve: 0.1,
        kernel: None,
    },
    similar(
        "E3-fifo-is-pipe",
        "E3",
        "a FIFO and a pipe have almost the same implementation and cost",
        "the post: a named FIFO is a pipe with a name in the filesystem; no separate figure",
        "contention",
        (
            Quantity::Metric(&WRITER.mean_ns),
            e3("fifo writer-only", &[("mech", "fifo"), ("test", "writer-only")]),
            e3("pipe writer-only", &[("mech", "pipe"), ("test", "writer-only")]),
        ),
        0.15,
        0.1,
    ),
    Claim {
        id: "E3-fifo-10x-udp",
        source: "E3",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "uncontended, a one-byte FIFO write is about 10x faster than a UDP send",
        original: "alone about 0.4 us per FIFO call against about 4 us per UDP send (2.6 kernel)",
        scenario: "contention",
        rule: Rule::Faster {
            q: Quantity::Metric(&WRITER.mean_ns),
            fast: e3("fifo writer-only", &[("mech", "fifo"), ("test", "writer-only")]),
            slow: e3("udp writer-only", &[("mech", "udp"), ("test", "writer-only")]),
            factor: 5.0,
            fails_below: 5.0,
        },
        resolve: 0.2,
        kernel: None,
    },
    similar(
        "E3-contended-fifo-as-udp",
        "E3",
        "contended, a FIFO write costs about as much as a UDP send",
        "together 4-6 us mean per FIFO call, about a UDP send's cost",
        "contention",
        (
            Quantity::Metric(&WRITER.mean_ns),
            // The writer's mean: the table's mean_ns is the reader's.
            e3("fifo both, writer", &[("mech", "fifo"), ("test", "both")]),
            e3("udp both, writer", &[("mech", "udp"), ("test", "both")]),
        ),
        0.5,
        0.2,
    ),
    similar(
        "E3-two-readers",
        "E3",
        "two readers (or two writers) on one FIFO stall the same way as a reader and a writer",
        "the post: two readers or two writers on one FIFO stall as well; no figure",
        "contention",
        // Two readers only: a second writer would need the writer's
        // descriptor, which the mechanisms do not share.
        (
            Quantity::Metric(&READER.mean_ns),
            e3("fifo two-readers", &[("mech", "fifo"), ("test", "two-readers")]),
            e3("fifo both", &[("mech", "fifo"), ("test", "both")]),
        ),
        0.5,
        0.2,
    ),
    Claim {
        id: "E3-fifo-sides-sleep",
        source: "E3",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "contended FIFO sides are suspended on the pipe lock: each runs at about 70% CPU",
        original: "top: reader and writer at about 70% CPU each while contending",
        scenario: "contention",
        // Each side's CPU share, and whether its calls block at all: at
        // 70% CPU and stalls of up to milliseconds, at least one call in
        // 10,000 sleeps.
        rule: Rule::Each {
            rules: &[
                sleeps(Quantity::Metric(&READER.cpu_util), 0.4, 0.9),
                sleeps(Quantity::Metric(&WRITER.cpu_util), 0.4, 0.9),
                sleeps(stall::parks(&READER), stall::PARKS_PER_CALL, f64::INFINITY),
                sleeps(stall::parks(&WRITER), stall::PARKS_PER_CALL, f64::INFINITY),
            ],
        },
        resolve: 0.1,
        kernel: reader_waits(FIFO),
    },
    Claim {
        id: "E3-notify-less",
        source: "E3",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "notifying less often (only when the ring goes from empty to non-empty) removes most of the cost",
        original: "the post's fix: write the FIFO only on the empty-to-non-empty transition; no figure",
        scenario: "stream",
        // Throughput, so the claim's faster side is the `slow` of the rule
        // (the ratio is shm's messages per second over the FIFO's): a
        // shared-memory ring that writes its FIFO only to wake a reader
        // that went to sleep on an empty ring, against a FIFO write per
        // message. Both sides on one CPU: across two vCPUs here the ring's
        // gain swung from 1.04x to 3.04x between two runs, as the reader
        // happened to drain it (one wake-up per message) or not.
        rule: Rule::Faster {
            q: Quantity::Metric(&stream::MSGS_PER_S),
            fast: sel("FIFO write per message", "stream", &[("mech", "fifo"), ("placement", "same-cpu"), ("size", "64")]),
            slow: sel("shm ring, FIFO wake-up only when empty", "stream", &[("mech", "shm"), ("wake", "fifo"), ("placement", "same-cpu"), ("size", "64")]),
            factor: 2.0,
            fails_below: 2.0,
        },
        resolve: 0.2,
        kernel: None,
    },
    observed(
        "E3-pipe-16-pages", "E3", "pipe-16-pages", pipe_size::pipe_16_pages,
        "the bytes a pipe takes before EAGAIN and F_GETPIPE_SZ, in pages of this system: machine-independent",
        "a pipe buffer is 16 pages",
        "pipe_inode_info manages at most 16 buffers, each one page",
    ),
];
