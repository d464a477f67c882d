//! E4, sendfile and TCP_CORK (seeds/002): is sendfile faster than
//! read+send on a 100 Mbit link, does it use less CPU, do buffer sizes
//! and TCP_CORK matter, and what do TCP_CORK, TCP_NODELAY, the MSS and
//! sendfile's offset do (the kernel's answers, `probe`).

mod sendfile;
mod tcp;

use super::{observed, similar, timed, ANSWERED, COUNTED};
use crate::claims::engine::change::KernelChange;
use crate::claims::engine::claim::{myth, Claim, StatedBy};
use crate::claims::engine::rule::Rule;
use crate::claims::engine::select::{near, sel, Select};
use crate::claims::engine::value::Quantity;
use crate::model::ClaimStatus;
use crate::scenario::file_transfer;

const MIB64: f64 = 64.0 * 1024.0 * 1024.0;

/// E4's file over the 100 Mbit link: the seeds' 9 MiB point (1 MiB quick),
/// the smallest of the original's three, which all took the link's time:
/// a round of 64 MiB takes 11 s over the link.
const MIB9: f64 = 9.0 * 1024.0 * 1024.0;

/// One file-transfer case over the 100 Mbit link, warm cache.
const fn link(label: &'static str, params: &'static [(&'static str, &'static str)]) -> Select {
    near(sel(label, "file-transfer", params), "file-size", MIB9)
}

pub(super) static CLAIMS: &[Claim] = &[
    Claim {
        id: "E4-sendfile-no-faster",
        source: "E4",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "sendfile is no faster than read+send on a 100 Mbit link",
        original: "9, 32 and 64 MB over 100 Mbit Ethernet: read+send, sendfile and sendfile+TCP_CORK about the same time for each (64 MB: 5.4 s)",
        scenario: "file-transfer",
        rule: Rule::NoFaster {
            q: Quantity::Metric(&file_transfer::WALL_S),
            a: link("sendfile", &[("copier", "sendfile"), ("tcp", "plain"), ("link", "100mbit"), ("cache", "warm")]),
            b: link("read+send", &[("copier", "read-write"), ("buf", "4096"), ("tcp", "plain"), ("link", "100mbit"), ("cache", "warm")]),
            tolerance: 0.05,
        },
        resolve: 0.05,
        kernel: None,
    },
    Claim {
        id: "E4-sendfile-less-cpu",
        source: "E4",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "sendfile uses less sender CPU than read+send",
        original: "not measured: the post guesses sendfile pays off with many concurrent transfers or little memory",
        scenario: "file-transfer",
        rule: Rule::Faster {
            q: Quantity::Metric(&file_transfer::SENDER_CPU_S),
            fast: near(sel("sendfile (loopback)", "file-transfer", &[("copier", "sendfile"), ("tcp", "plain"), ("link", "loopback"), ("cache", "warm")]), "file-size", MIB64),
            slow: near(sel("read+send (loopback)", "file-transfer", &[("copier", "read-write"), ("buf", "4096"), ("tcp", "plain"), ("link", "loopback"), ("cache", "warm")]), "file-size", MIB64),
            factor: 1.1,
            fails_below: 1.1,
        },
        resolve: 0.1,
        kernel: None,
    },
    similar(
        "E4-buffer-size-irrelevant",
        "E4",
        "read+send buffers of 1K, 4K and 8K make no difference",
        "64 MB over 100 Mbit Ethernet: the same 5.4 s with each buffer size",
        "file-transfer",
        (
            Quantity::Metric(&file_transfer::WALL_S),
            link("read+send 1K", &[("copier", "read-write"), ("buf", "1024"), ("tcp", "plain"), ("link", "100mbit"), ("cache", "warm")]),
            link("read+send 8K", &[("copier", "read-write"), ("buf", "8192"), ("tcp", "plain"), ("link", "100mbit"), ("cache", "warm")]),
        ),
        0.05,
        0.05,
    ),
    similar(
        "E4-cork-restores",
        "E4",
        "TCP_CORK makes sendfile as fast as without it",
        "64 MB over 100 Mbit Ethernet: sendfile and sendfile+TCP_CORK both about 5.4 s",
        "file-transfer",
        (
            Quantity::Metric(&file_transfer::WALL_S),
            link("sendfile+cork", &[("copier", "sendfile"), ("tcp", "cork"), ("link", "100mbit"), ("cache", "warm")]),
            link("sendfile", &[("copier", "sendfile"), ("tcp", "plain"), ("link", "100mbit"), ("cache", "warm")]),
        ),
        0.05,
        0.05,
    ),
    myth(observed(
        "E4-cork-nodelay-exclusive", "E4", "cork-nodelay-exclusive", tcp::cork_nodelay_exclusive,
        "setsockopt and getsockopt of both options, in either order: the kernel's answer, machine-independent",
        "TCP_CORK and TCP_NODELAY are mutually exclusive",
        "the appended article: TCP_CORK and TCP_NODELAY are mutually exclusive; the post itself: the man page has long allowed combining them",
    )),
    myth(timed(observed(
        "E4-nodelay-beats-cork", "E4", "nodelay-beats-cork", tcp::nodelay_beats_cork,
        "whether the peer can read a write at once (under 20 ms) or only after the cork's 200 ms timer (100 ms or more): a kernel timer, far from a loopback delivery on any machine",
        "with TCP_NODELAY set, packets go out at once whatever TCP_CORK says",
        "once TCP_NODELAY is set, packets are sent immediately whether TCP_CORK is set or not",
    ))),
    observed(
        "E4-cork-merges-header", "E4", "cork-merges-header", tcp::cork_merges_header,
        "data segments counted by the kernel (TCP_INFO) over an Ethernet-sized veth link against the fewest its MSS allows: machine-independent",
        "with cork a header and the file leave in shared segments; with NODELAY the header goes alone",
        "with TCP_NODELAY the header's packet goes out at once, alone; with TCP_CORK the header is filled up with the data and everything leaves in full packets",
    ),
    observed(
        "E4-mss-1448", "E4", "mss-1448", tcp::mss_1448,
        "the MSS the kernel chose (TCP_INFO) over a link with Ethernet's 1500-byte MTU: set by the link and TCP's options, machine-independent",
        "the payload per segment is at most 1448 bytes",
        "ethereal showed each TCP packet's payload at most 1448 bytes in every setup (100 Mbit LAN)",
    ),
    observed(
        "E4-sendfile-offset", "E4", "sendfile-offset", sendfile::sendfile_offset, ANSWERED,
        "the caller must advance the offset by the return value itself",
        "when calling sendfile in a loop, the next offset should be its return value plus this call's offset",
    ),
    observed(
        "E4-sendfile-whole-file", "E4", "sendfile-whole-file", sendfile::sendfile_whole_file, COUNTED,
        "one sendfile of the file's size sends the whole file",
        "sendfile(sockfd, fd, &offset, filestat.st_size): one call for files of 9-64 MB",
    ),
];

/// Since Linux 2.5.71 TCP_CORK can be combined with TCP_NODELAY (before
/// git: no commit to name).
pub(super) static CHANGES: &[KernelChange] = &[KernelChange {
    claim: "E4-cork-nodelay-exclusive",
    version: "2.5.71",
    became: ClaimStatus::DoesNotHold,
    subject: None,
    commit: None,
    source:
        "tcp(7), TCP_CORK: \"Since Linux 2.5.71, this option can be combined with TCP_NODELAY\"",
}];
