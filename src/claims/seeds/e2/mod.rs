//! E2, the Erlang port ring (seeds/000): what a round trip through an
//! external port program costs, in wake-up round trips of this machine,
//! whether the ring is bound by context switches, what starting a port
//! costs, and whether a spawn slows with `ulimit -n`. The original's
//! absolute figures are read relative to this machine (`Reference`).

mod spawn;

use crate::claims::engine::change::{MachineFact, ReadsMachine};
use crate::claims::engine::claim::{Claim, StatedBy};
use crate::claims::engine::form::PER_OPERATION;
use crate::claims::engine::relative::Reference;
use crate::claims::engine::rule::Rule;
use crate::claims::engine::select::{near, sel, Select};
use crate::claims::engine::value::Quantity;
use crate::scenario::probe::port_setup::PORT_SETUP_CPU_NS;
use crate::scenario::{limits, port_ring};

const CAT_RING: Select = near(
    sel(
        "/bin/cat ring",
        "port-ring",
        &[("relay", "threads"), ("echo", "/bin/cat")],
    ),
    "relays",
    10.0,
);

/// E2's machine: "Pentium(R) Dual-Core CPU E5200 @ 2.50GHz" (the post's
/// /proc/cpuinfo), Linux 2.6 of 2009. Its futex wake-up round trip across
/// the two cores is not in the post: about 5 us is lmbench's pipe latency
/// (two wake-ups) on Core 2 desktops of the time, 4-6 us.
const E5200_WAKE: Reference = Reference {
    at: sel("limits wake", "limits", &[("probe", "wake")]),
    metric: &limits::WAKE_RTT_NS,
    name: "wake-up round trip",
    then: 5000.0,
    hardware: "the post's 2.5 GHz Pentium E5200 under Linux 2.6 (an estimated 5 us per \
               wake-up round trip, lmbench's pipe latency on Core 2 desktops of the time)",
    original: 30.0,
    follows_the_host: true,
};

pub(super) static CLAIMS: &[Claim] = &[
    Claim {
        id: "E2-port-tens-of-us",
        source: "E2",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "a round trip through an external port program over pipes costs tens of microseconds, i.e. many wake-up round trips",
        original: "about 34,500 messages/s on 2 cores, about 30 us per message (10 relays x 8 rings, /bin/cat)",
        scenario: "port-ring",
        rule: Rule::Relative {
            q: Quantity::Metric(&port_ring::US_PER_MSG),
            at: CAT_RING,
            reference: E5200_WAKE,
            lo: 10.0,
            hi: 100.0,
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E2-ring-csw-bound",
        source: "E2",
        stated_by: StatedBy::Experiment,
        myth: false,
        sentence: "the port ring is bound by context switches",
        original: "about 60,000 context switches/s at 34,500 messages/s (dstat): about 1.7 per message",
        scenario: "port-ring",
        rule: Rule::Within {
            q: Quantity::Per(&port_ring::CSW_PER_S, &port_ring::MSGS_PER_S, " csw/msg"),
            at: CAT_RING,
            lo: 1.0,
            hi: f64::INFINITY,
            why: PER_OPERATION,
        },
        resolve: 0.1,
        kernel: None,
    },
    Claim {
        id: "E2-port-setup-1ms",
        source: "E2",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "starting an external port costs about 1 ms",
        original: "about 1 ms per port started (/bin/cat on two pipes)",
        scenario: "probe",
        rule: Rule::Within {
            q: Quantity::Metric(&PORT_SETUP_CPU_NS),
            at: sel("port setup", "probe", &[("check", "port-setup-1ms")]),
            // "About 1 ms": within a factor of 3 either side.
            lo: 1e6 / 3.0,
            hi: 3e6,
            why: "an absolute band on the CPU time a port's life consumes (iolab's side \
                  and the reaped port's, getrusage): a fork, an exec and the new process's \
                  page faults, work that follows the CPU's speed but neither the host's \
                  wake-up mode (a cross-CPU wake-up here took 10-17 us in one hour and \
                  80-117 us in another) nor a neighbour holding the CPU, which the port's \
                  wall time also counts; about 1 ms is taken as within a factor of 3 either \
                  side, for a CPU a few times the post's E5200 on a VM whose page faults cost \
                  more",
        },
        resolve: 0.2,
        kernel: None,
    },
    Claim {
        id: "E2-spawn-vs-nofile",
        source: "E2",
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence: "the fds a child closes at spawn grow with ulimit -n",
        original:
            "a spawn that closes every descriptor up to RLIMIT_NOFILE slows as ulimit -n grows",
        scenario: "probe",
        rule: Rule::Observed {
            check: "spawn-vs-nofile",
            judge: spawn::spawn_vs_nofile,
            form: "a ratio of two spawns of the same run (closing in a loop up to the hard \
                   RLIMIT_NOFILE over up to 1024): it reads the same on a faster or slower \
                   machine; holds from 1.5x, does not hold below 1.2x",
            timed: true,
        },
        resolve: 0.2,
        kernel: None,
    },
];

/// The spawn closes descriptors up to the run's open-file limit.
pub(super) static READS_MACHINE: &[ReadsMachine] = &[ReadsMachine {
    claim: "E2-spawn-vs-nofile",
    fact: MachineFact::OpenFiles,
}];
