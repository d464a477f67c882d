//! E6, /dev/null and event ports (seeds/004): does writing an mmap of a
//! file to /dev/null read it, does its atime change anyway, do event
//! mechanisms beat poll at many descriptors, is select worse than poll,
//! does one event wake one waiter, does a big read evict the cache.

mod cache;
mod devnull;
mod waiters;

use crate::claims::engine::claim::{Claim, StatedBy};
use crate::claims::engine::rule::Rule;
use crate::claims::engine::select::{near, sel, Select};
use crate::claims::engine::value::Quantity;
use crate::scenario::event_bench;

const MIB64: f64 = 64.0 * 1024.0 * 1024.0;

const DEVNULL_MMAP: Select = near(
    sel(
        "mmap-write to /dev/null",
        "devnull",
        &[
            ("copier", "mmap-write"),
            ("sink", "dev-null"),
            ("cache", "cold"),
        ],
    ),
    "file-size",
    MIB64,
);

/// What the event-bench claims weigh: the dispatching thread's CPU time per
/// loop. The loop never sleeps, so its wall time differs only by the time
/// it waited for a CPU a neighbour held, which beside one widened select's
/// interval over poll from 1.05-1.08x to 0.98-1.18x.
const LOOP_CPU: Quantity = Quantity::Metric(&event_bench::CPU_US_PER_LOOP);

pub(super) static CLAIMS: &[Claim] = &[
    Claim {
        id: "E6-devnull-not-read",
        source: "E6",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "writing an mmap of a file to /dev/null does not read the file",
        original: "Solaris cat file > /dev/null: an impossible 726 GB/s; the file was never read",
        scenario: "devnull",
        rule: Rule::Judged {
            of: &[DEVNULL_MMAP],
            judge: devnull::not_read,
            form: "a share of the file's pages: machine-independent",
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E6-devnull-atime",
        source: "E6",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "the access time still changes when the file is written to /dev/null unread",
        original: "atime was updated anyway, because cat reads one byte on purpose",
        scenario: "devnull",
        rule: Rule::Judged {
            of: &[DEVNULL_MMAP],
            judge: devnull::atime_changed,
            form: "a count of repetitions: machine-independent",
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E6-events-beat-poll",
        source: "E6",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "an event mechanism that scales with events beats poll by about 10x at 7,500 descriptors with few active",
        original: "libevent bench: event ports about 10x faster than poll at 7,500 descriptors (about 2x when most are active)",
        scenario: "event-bench",
        rule: Rule::Faster {
            q: LOOP_CPU,
            fast: near(sel("epoll", "event-bench", &[("poller", "epoll-lt"), ("dispatch", "nonblocking"), ("pair", "socketpair"), ("active", "1")]), "fds", 7500.0),
            slow: near(sel("poll", "event-bench", &[("poller", "poll"), ("dispatch", "nonblocking"), ("pair", "socketpair"), ("active", "1")]), "fds", 7500.0),
            factor: 5.0,
            fails_below: 5.0,
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E6-select-worse-than-poll",
        source: "E6",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "select is even worse than poll (it is built on poll)",
        original: "the post: select is implemented on top of poll in the kernel, so it is even worse; no figure",
        scenario: "event-bench",
        // 500 pairs: 1,000 descriptors, within select's FD_SETSIZE.
        rule: Rule::Faster {
            q: LOOP_CPU,
            fast: sel("poll at 1000 fds", "event-bench", &[("poller", "poll"), ("dispatch", "nonblocking"), ("pair", "socketpair"), ("fds", "500"), ("active", "1")]),
            slow: sel("select at 1000 fds", "event-bench", &[("poller", "select"), ("dispatch", "nonblocking"), ("pair", "socketpair"), ("fds", "500"), ("active", "1")]),
            factor: 1.1,
            fails_below: 1.1,
        },
        resolve: 0.1,
        kernel: None,
    },
    Claim {
        id: "E6-one-waiter-woken",
        source: "E6",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "many threads can wait on one event port and only one gets each event",
        original: "an event port hands each event to one of the threads waiting on it",
        scenario: "probe",
        rule: Rule::Observed {
            check: "one-waiter-woken",
            judge: waiters::one_waiter,
            form: "a count of the threads woken per event, machine-independent: holds when \
                   one shared edge-triggered epoll fd wakes exactly one of 4 waiters in every \
                   round; the level-triggered and EPOLLEXCLUSIVE counts stand beside it",
            timed: false,
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E6-read-evicts-cache",
        source: "E6",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "reading a file larger than the cache evicts other files",
        original: "streaming a file bigger than memory flushes the page cache of other files",
        scenario: "probe",
        rule: Rule::Observed {
            check: "read-evicts-cache",
            judge: cache::read_evicts,
            form: "a share of a file's pages kept in a memory cgroup's cache, \
                   machine-independent: holds when at most half of A (read twice) stays \
                   cached after B (four times the cgroup's limit) streamed through, does \
                   not hold when at least 90% stays",
            timed: false,
        },
        resolve: 0.2,
        kernel: None,
    },
];
