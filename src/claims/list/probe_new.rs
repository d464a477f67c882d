//! The claims of E2 and E6 settled by the probe checks port-setup-1ms,
//! spawn-vs-nofile, one-waiter-woken and read-evicts-cache.

use super::classic::E5200_WAKE;
use super::sel;
use crate::claims::kernel::Evidence;
use crate::claims::pick::Quantity;
use crate::claims::probed_new;
use crate::claims::relative::Reference;
use crate::claims::rules::Rule;
use crate::claims::Claim;
use crate::scenario::probe::port_setup::PORT_SETUP_NS;

/// E2's 1 ms per port, on the same machine as E2's other figures.
const E5200_PORT: Reference = Reference {
    original: 1e6,
    ..E5200_WAKE
};

pub(super) static PROBE_NEW: &[Claim] = &[
    Claim {
        id: "E2-port-setup-1ms",
        source: "E2",
        sentence: "starting an external port costs about 1 ms",
        original: "about 1 ms per port started (/bin/cat on two pipes)",
        scenario: "probe",
        rule: Rule::Relative {
            q: Quantity::Metric(&PORT_SETUP_NS),
            at: sel("port setup", "probe", &[("check", "port-setup-1ms")]),
            reference: E5200_PORT,
            // "About 1 ms": within a factor of 2 either side.
            lo: 0.5e6,
            hi: 2e6,
        },
        resolve: 0.2,
        kernel: Evidence::None,
    },
    Claim {
        id: "E2-spawn-vs-nofile",
        source: "E2",
        sentence: "the fds a child closes at spawn grow with ulimit -n",
        original:
            "a spawn that closes every descriptor up to RLIMIT_NOFILE slows as ulimit -n grows",
        scenario: "probe",
        rule: Rule::Observed {
            check: "spawn-vs-nofile",
            judge: probed_new::spawn_vs_nofile,
            form: "a ratio of two spawns of the same run (closing in a loop up to the hard \
                   RLIMIT_NOFILE over up to 1024): it reads the same on a faster or slower \
                   machine; holds from 1.5x, does not hold below 1.2x",
        },
        resolve: 0.2,
        kernel: Evidence::None,
    },
    Claim {
        id: "E6-one-waiter-woken",
        source: "E6",
        sentence: "many threads can wait on one event port and only one gets each event",
        original: "an event port hands each event to one of the threads waiting on it",
        scenario: "probe",
        rule: Rule::Observed {
            check: "one-waiter-woken",
            judge: probed_new::one_waiter,
            form: "a count of the threads woken per event, machine-independent: holds when \
                   one shared edge-triggered epoll fd wakes exactly one of 4 waiters in every \
                   round; the level-triggered and EPOLLEXCLUSIVE counts stand beside it",
        },
        resolve: 0.2,
        kernel: Evidence::None,
    },
    Claim {
        id: "E6-read-evicts-cache",
        source: "E6",
        sentence: "reading a file larger than the cache evicts other files",
        original: "streaming a file bigger than memory flushes the page cache of other files",
        scenario: "probe",
        rule: Rule::Observed {
            check: "read-evicts-cache",
            judge: probed_new::read_evicts,
            form: "a share of a file's pages kept in a memory cgroup's cache, \
                   machine-independent: holds when at most half of A (read twice) stays \
                   cached after B (four times the cgroup's limit) streamed through, does \
                   not hold when at least 90% stays",
        },
        resolve: 0.2,
        kernel: Evidence::None,
    },
];
