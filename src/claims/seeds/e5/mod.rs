//! E5, poll against epoll (seeds/003): does poll's time grow linearly with
//! idle connections while epoll's stays flat, which is faster with none,
//! how select, edge-triggered epoll and all-active loads compare, threads
//! against processes, and what FD_SETSIZE, epoll's memory, its notices,
//! epoll_ctl's cost and the descriptor limits are (`probe`).

mod epoll;
mod select;

use super::{observed, similar, timed, ANSWERED, COUNTED};
use crate::claims::engine::change::{MachineFact, ReadsMachine};
use crate::claims::engine::claim::{myth, Claim, StatedBy};
use crate::claims::engine::rule::Rule;
use crate::claims::engine::select::{near, sel};
use crate::claims::engine::value::Quantity;
use crate::scenario::{poll_scale, port_ring};

/// What the claims weighing a 5% difference between two pollers read: the
/// server's CPU time per request, the poller's own cost. The wall time
/// (the original's axis) also holds two cross-CPU wake-ups per request,
/// which move with the host's mode (10-17 us in one hour, 80-117 us in
/// another here) and swung the ratio of two pollers by as much as the 5%
/// weighed. The sweeps (growth of 10x and more) and the 20% band of
/// select against poll keep the original's `seconds`.
const SERVER_CPU: Quantity = Quantity::Metric(&poll_scale::SERVER_CPU_US_PER_REQ);

pub(super) static CLAIMS: &[Claim] = &[
    Claim {
        id: "E5-poll-linear",
        source: "E5",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "poll's time grows linearly with idle connections",
        original: "seconds for 40,000 requests grow linearly over 0-10,240 zombie connections (the post's graph)",
        scenario: "poll-scale",
        rule: Rule::Linear {
            q: Quantity::Metric(&poll_scale::SECONDS),
            at: sel("poll", "poll-scale", &[("poller", "poll"), ("transport", "tcp")]),
            x: "idle",
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E5-epoll-flat",
        source: "E5",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "epoll's time stays flat as idle connections grow",
        original: "epoll's line stays flat over 0-10,240 zombies",
        scenario: "poll-scale",
        rule: Rule::Flat {
            q: Quantity::Metric(&poll_scale::SECONDS),
            at: sel("epoll", "poll-scale", &[("poller", "epoll-lt"), ("transport", "tcp")]),
            x: "idle",
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E5-poll-faster-at-0",
        source: "E5",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "with no idle connections poll is slightly faster than epoll",
        original: "at 0 zombies poll slightly below epoll on the graph",
        scenario: "poll-scale",
        rule: Rule::Faster {
            q: SERVER_CPU,
            fast: sel("poll", "poll-scale", &[("poller", "poll"), ("transport", "tcp"), ("idle", "0")]),
            slow: sel("epoll", "poll-scale", &[("poller", "epoll-lt"), ("transport", "tcp"), ("idle", "0")]),
            factor: 1.05,
            fails_below: 1.05,
        },
        resolve: 0.05,
        kernel: None,
    },
    similar(
        "E5-select-equals-poll",
        "E5",
        "select and poll perform about the same",
        "the post: select and poll are the same mechanism and scale alike; no separate line on the graph",
        "poll-scale",
        (
            Quantity::Metric(&poll_scale::SECONDS),
            near(sel("select", "poll-scale", &[("poller", "select"), ("transport", "tcp")]), "idle", 640.0),
            near(sel("poll", "poll-scale", &[("poller", "poll"), ("transport", "tcp")]), "idle", 640.0),
        ),
        0.2,
        0.1,
    ),
    Claim {
        id: "E5-et-faster",
        source: "E5",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "edge-triggered is the fast mode",
        original: "the post: edge-triggered epoll is the fast mode; no figure",
        scenario: "poll-scale",
        rule: Rule::Faster {
            q: SERVER_CPU,
            fast: sel("epoll-et", "poll-scale", &[("poller", "epoll-et"), ("transport", "tcp"), ("idle", "0")]),
            slow: sel("epoll-lt", "poll-scale", &[("poller", "epoll-lt"), ("transport", "tcp"), ("idle", "0")]),
            factor: 1.05,
            fails_below: 1.05,
        },
        resolve: 0.05,
        kernel: None,
    },
    Claim {
        id: "E5-all-active-epoll-slower",
        source: "E5",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "with every connection active and heavy epoll_ctl use, epoll is slightly slower than poll",
        original: "the post: with all connections active epoll can be slightly slower than poll; no figure",
        scenario: "poll-scale",
        // 100 connections, all active, none idle; iolab's epoll registers
        // each once and does not re-arm with epoll_ctl per request.
        rule: Rule::Faster {
            q: SERVER_CPU,
            fast: sel("poll, 100 active", "poll-scale", &[("poller", "poll"), ("transport", "tcp"), ("idle", "0"), ("active", "100")]),
            slow: sel("epoll-lt, 100 active", "poll-scale", &[("poller", "epoll-lt"), ("transport", "tcp"), ("idle", "0"), ("active", "100")]),
            factor: 1.05,
            fails_below: 1.05,
        },
        resolve: 0.05,
        kernel: None,
    },
    Claim {
        id: "E5-threads-beat-processes",
        source: "E5",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "synchronising processes is far slower than synchronising threads",
        original: "the post: processes synchronise far slower than threads; no figure",
        scenario: "port-ring",
        // Relays passing messages over pipes in-process (no echo program),
        // as threads of one process or as forked processes.
        rule: Rule::Faster {
            q: Quantity::Metric(&port_ring::US_PER_MSG),
            fast: near(sel("thread relays", "port-ring", &[("relay", "threads"), ("echo", "none")]), "relays", 10.0),
            slow: near(sel("process relays", "port-ring", &[("relay", "processes"), ("echo", "none")]), "relays", 10.0),
            factor: 1.5,
            fails_below: 1.5,
        },
        resolve: 0.1,
        kernel: None,
    },
    observed(
        "E5-fd-setsize", "E5", "fd-setsize", select::fd_setsize,
        "a constant of the C library: machine-independent",
        "FD_SETSIZE is 2048 by default (the post also says 1024)",
        "the epoll section: FD_SETSIZE defaults to 2048; the select section: in Linux this value is 1024",
    ),
    myth(observed(
        "E5-select-needs-rebuild", "E5", "select-needs-rebuild", select::select_needs_rebuild, ANSWERED,
        "more than FD_SETSIZE descriptors in select needs a kernel rebuild",
        "to watch more descriptors, change the macro and recompile the kernel (at some loss of network efficiency), or use several processes",
    )),
    myth(observed(
        "E5-epoll-mmap", "E5", "epoll-mmap", epoll::epoll_mmap, ANSWERED,
        "epoll passes events through memory shared with user space by mmap",
        "epoll avoids copies by mapping the same memory in the kernel and in user space; whoever followed epoll since 2.5 remembers the manual mmap step",
    )),
    observed(
        "E5-et-one-notice", "E5", "et-one-notice", epoll::et_one_notice, COUNTED,
        "under ET no new notice comes until the descriptor was drained; ET needs non-blocking fds",
        "ET supports only non-blocking sockets; the kernel tells you once when a descriptor becomes ready and sends no more notices until something made it not ready (EWOULDBLOCK)",
    ),
    timed(observed(
        "E5-epoll-ctl-constant", "E5", "epoll-ctl-constant", epoll::epoll_ctl_constant,
        "the shape of one sweep within the run (ns per add at the largest registered count over the smallest, flat within 1.5x, not from 2x): it reads the same on a faster or slower machine",
        "adding a descriptor to epoll costs the same however many are registered",
        "each epoll_ctl handles one descriptor (ep_insert), so it can be seen as an O(1) operation",
    )),
    observed(
        "E5-fd-limit-memory", "E5", "fd-limit-memory", select::fd_limit_memory,
        "the kernel's limits against this machine's memory: a ratio per GiB, and which limit is lowest",
        "epoll's limit is the open-file maximum, about 100,000 per GB of memory",
        "epoll's limit is the maximum number of open files, far above 2048: about 100,000 on a machine with 1 GB of memory (cat /proc/sys/fs/file-max)",
    ),
];

/// fs.file-max is set from the memory at boot: a guest with less memory
/// than its host reads a different limit on the same kernel.
pub(super) static READS_MACHINE: &[ReadsMachine] = &[ReadsMachine {
    claim: "E5-fd-limit-memory",
    fact: MachineFact::Memory,
}];
