//! E1, the pipe's access time (seeds/000): does O_NOATIME on a pipe's read
//! end make one-byte traffic faster, does a read move a pipe's atime, does
//! the writer still move its mtime? The `pipe-atime` scenario measures the
//! first (and restates it as its finding, judged by the claim's rule),
//! `probe` observes the other two.

mod atime_profile;
mod noatime;
mod timestamps;

use super::{observed, TIMESTAMP};
use crate::claims::engine::change::KernelChange;
use crate::claims::engine::claim::{Claim, Evidence, StatedBy};
use crate::claims::engine::restated::Restated;
use crate::claims::engine::rule::Rule;
use crate::claims::engine::select::{near, sel, Select};
use crate::model::ClaimStatus;

const NOATIME: Select = near(
    sel(
        "noatime",
        "pipe-atime",
        &[("variant", "noatime"), ("pipe", "anon")],
    ),
    "count",
    1e7,
);

const DEFAULT_ATIME: Select = near(
    sel(
        "default",
        "pipe-atime",
        &[("variant", "default"), ("pipe", "anon")],
    ),
    "count",
    1e7,
);

/// E1's rule: `noatime` is measurably faster than `default`, unless this
/// run saw that a read does not move the pipe's atime (`noatime.rs`). The
/// pipe-atime finding of each kind of pipe is judged by it too
/// (`engine/restated.rs`), so the finding and the claim never disagree.
const fn noatime_faster(of: &'static [Select]) -> Rule {
    Rule::Judged {
        of,
        judge: noatime::noatime_faster,
        form: noatime::FORM,
    }
}

/// The anonymous pipe's cases: O_NOATIME, then the default.
const ANON: &[Select] = &[NOATIME, DEFAULT_ATIME];

/// The same variants over a FIFO, for the finding only.
const NOATIME_FIFO: Select = near(
    sel(
        "noatime",
        "pipe-atime",
        &[("variant", "noatime"), ("pipe", "fifo")],
    ),
    "count",
    1e7,
);

const DEFAULT_ATIME_FIFO: Select = near(
    sel(
        "default",
        "pipe-atime",
        &[("variant", "default"), ("pipe", "fifo")],
    ),
    "count",
    1e7,
);

/// The FIFO's cases, likewise.
const FIFO: &[Select] = &[NOATIME_FIFO, DEFAULT_ATIME_FIFO];

/// The findings that restate a claim's comparison (`engine/restated.rs`).
pub(super) static RESTATED: &[Restated] = &[
    Restated {
        scenario: "pipe-atime",
        id: "noatime-faster",
        subject: "anon",
        rule: noatime_faster(ANON),
        says: [
            "noatime is measurably faster",
            "noatime is not faster",
            "no measurable difference",
        ],
        claim: Some("E1-noatime-faster"),
    },
    Restated {
        scenario: "pipe-atime",
        id: "noatime-faster",
        subject: "fifo",
        rule: noatime_faster(FIFO),
        says: [
            "noatime is measurably faster",
            "noatime is not faster",
            "no measurable difference",
        ],
        claim: None,
    },
];

pub(super) static CLAIMS: &[Claim] = &[
    Claim {
        id: "E1-noatime-faster",
        source: "E1",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "O_NOATIME on a pipe's read end makes one-byte pipe traffic measurably faster",
        original: "oprofile: touch_atime, current_fs_time, file_update_time near the top for 10M one-byte messages; with O_NOATIME touch_atime vanished",
        scenario: "pipe-atime",
        rule: noatime_faster(ANON),
        resolve: 0.02,
        kernel: Some(Evidence {
            read: atime_profile::evidence,
            of: &[DEFAULT_ATIME, NOATIME],
        }),
    },
    observed(
        "E1-pipe-read-atime", "E1", "pipe-read-atime", timestamps::pipe_read_atime, TIMESTAMP,
        "reading a pipe updates its access time, like any file",
        "everything in Unix is a file, so reading a pipe sets its last access time too: pipe_read calls file_accessed, touch_atime (Linux 2.6); oprofile of 10M one-byte messages shows touch_atime",
    ),
    observed(
        "E1-writer-mtime", "E1", "writer-mtime", timestamps::writer_mtime, TIMESTAMP,
        "the writer still pays for file_update_time with O_NOATIME set",
        "with O_NOATIME on the read end touch_atime vanished from oprofile, while file_update_time stayed (0.34% of samples before, 0.42% after)",
    ),
];

/// The kernel changes that turned E1's probe claims: Linux 6.15 stopped
/// updating an anonymous pipe's timestamps (FIFOs keep them).
pub(super) static CHANGES: &[KernelChange] = &[
    pipe_timestamps("E1-pipe-read-atime"),
    pipe_timestamps("E1-writer-mtime"),
];

const fn pipe_timestamps(claim: &'static str) -> KernelChange {
    KernelChange {
        claim,
        version: "6.15",
        became: ClaimStatus::DoesNotHold,
        subject: Some("pipe: don't update {a,c,m}time for anonymous pipes"),
        commit: Some("f017b0a4951fac8f150232661b2cc0b67e0c57f0"),
        source: "https://git.kernel.org/torvalds/c/f017b0a4951fac8f150232661b2cc0b67e0c57f0",
    }
}
