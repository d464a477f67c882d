//! Suites: named lists of scenario invocations, defined here and only here.
//! Each entry's parameters override the scenario's defaults; the user's
//! `--param` overrides both. Every new scenario adds itself to all three.

pub(crate) struct Suite {
    pub(crate) name: &'static str,
    pub(crate) about: &'static str,
    /// Each case a claim reads takes further batches of repetitions until
    /// its headline is as precise as the finest of those claims needs
    /// (`claims::required_precision`), within `--precision`'s caps.
    pub(crate) claims_precision: bool,
    pub(crate) entries: &'static [Entry],
}

pub(crate) struct Entry {
    pub(crate) scenario: &'static str,
    pub(crate) params: &'static [(&'static str, &'static str)],
    /// Repetitions for this entry unless `--repeat` says otherwise.
    pub(crate) repeat: Option<u64>,
    /// The mechanisms of this entry unless `--mech` says otherwise (None:
    /// the scenario's own set).
    pub(crate) mechs: Option<&'static [&'static str]>,
}

/// An entry with the scenario's own repetition default.
const fn entry(scenario: &'static str, params: &'static [(&'static str, &'static str)]) -> Entry {
    Entry {
        scenario,
        params,
        repeat: None,
        mechs: None,
    }
}

/// The quick suite's points of many pairs: a pipe, a socket of each
/// family and shared memory.
const QUICK_PAIRS_MECHS: &[&str] = &["pipe", "unix-stream", "tcp", "shm"];

/// The original E5 sweep of idle ("zombie") connections.
const E5_IDLE: &str = "0,10,20,40,80,160,320,640,1280,2560,5120,10240";

pub(crate) static ALL: &[Suite] = &[
    Suite {
        name: "quick",
        about: "every scenario at small size, about a minute on 2 cores (the default)",
        claims_precision: false,
        entries: &[
            entry("limits", &[("count", "100000")]),
            entry("pingpong", &[("count", "1000"), ("wake", "spin,futex")]),
            entry("stream", &[("rep_time", "10ms"), ("wake", "spin,futex")]),
            // One small point each of many pairs and of open-loop latency,
            // on a few mechanisms.
            Entry {
                repeat: Some(1),
                mechs: Some(QUICK_PAIRS_MECHS),
                ..entry("pingpong", &[("count", "500"), ("pairs", "4")])
            },
            Entry {
                repeat: Some(1),
                mechs: Some(QUICK_PAIRS_MECHS),
                ..entry(
                    "stream",
                    &[("size", "4096"), ("rep_time", "10ms"), ("pairs", "4")],
                )
            },
            Entry {
                repeat: Some(1),
                mechs: Some(&["pipe", "tcp"]),
                ..entry("pingpong", &[("count", "500"), ("rate", "10k")])
            },
            entry(
                "file-transfer",
                &[
                    ("file-size", "4M"),
                    ("copier", "read-write,mmap-write,sendfile,splice,io-uring"),
                    ("buf", "4096"),
                    ("tcp", "plain"),
                ],
            ),
            entry(
                "devnull",
                &[
                    ("file-size", "4M"),
                    ("sink", "dev-null,pipe"),
                    ("cache", "warm,cold"),
                ],
            ),
            entry("pipe-atime", &[("count", "50k")]),
            Entry {
                repeat: Some(3),
                ..entry(
                    "port-ring",
                    &[
                        ("relays", "5"),
                        ("messages", "5000"),
                        ("rings", "2"),
                        ("relay", "threads,processes"),
                    ],
                )
            },
            Entry {
                repeat: Some(1),
                ..entry("contention", &[("duration", "100ms")])
            },
            entry("poll-scale", &[("idle", "0,100"), ("requests", "1000")]),
            entry("event-bench", &[("fds", "100"), ("writes", "100")]),
            entry("fan-in", &[("senders", "4"), ("count", "50000")]),
            Entry {
                repeat: Some(3),
                ..entry("hackbench", &[("groups", "1"), ("loops", "20")])
            },
            entry("c2c", &[("count", "5000")]),
            Entry {
                repeat: Some(1),
                ..entry("probe", &[])
            },
        ],
    },
    Suite {
        name: "seeds",
        about: "each classic experiment at its original parameters (EXPERIMENTS.md)",
        claims_precision: true,
        // Repetitions follow each claim's smallest effect (`claims`:
        // `Claim::precision`) within about 12 minutes on 2 cores.
        entries: &[
            // The reference points of machine-relative claims (E2's wake-up
            // round trip), 15 times: a few seconds.
            Entry {
                repeat: Some(15),
                ..entry("limits", &[])
            },
            // The one-shot observations, once each: a few seconds; first,
            // so the claims a kernel's answer decides (E1-noatime-faster)
            // are decided before their cases' rounds begin.
            Entry {
                repeat: Some(1),
                ..entry("probe", &[])
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "9M,32M,64M"),
                        ("copier", "read-write,mmap-write,sendfile,splice,io-uring"),
                        ("buf", "4096"),
                        ("tcp", "plain,cork"),
                    ],
                )
            },
            Entry {
                repeat: Some(2),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "9M,32M"),
                        ("copier", "read-write,sendfile,splice"),
                        ("buf", "4096"),
                        ("tcp", "plain,cork"),
                        ("link", "100mbit"),
                    ],
                )
            },
            // The original's 64 MB over the link, once each: the classic
            // chart's panel beside its 5.4 s (the claims read 9 MiB).
            Entry {
                repeat: Some(1),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "64M"),
                        ("copier", "read-write,sendfile"),
                        ("buf", "4096"),
                        ("tcp", "plain"),
                        ("link", "100mbit"),
                    ],
                )
            },
            // E4-buffer-size-irrelevant and E4-cork-restores over the link,
            // 3 times each at 9 MiB: 15 transfers, about 12 s.
            Entry {
                repeat: Some(3),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "9M"),
                        ("copier", "read-write"),
                        ("buf", "1024,4096,8192"),
                        ("tcp", "plain"),
                        ("link", "100mbit"),
                    ],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "9M"),
                        ("copier", "sendfile"),
                        ("tcp", "plain,cork"),
                        ("link", "100mbit"),
                    ],
                )
            },
            // E3-notify-less: a FIFO write per message against an shm ring
            // that writes its FIFO only to wake a sleeping reader: 4 cases.
            Entry {
                repeat: Some(5),
                mechs: Some(&["fifo", "shm"]),
                ..entry(
                    "stream",
                    &[("size", "64"), ("wake", "fifo"), ("rep_time", "100ms")],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry("devnull", &[("file-size", "64M")])
            },
            // E1 weighs a few percent: the original's 10M messages as 31
            // repetitions of 500k, whose median is known to about 1%.
            Entry {
                repeat: Some(31),
                ..entry("pipe-atime", &[("count", "500k"), ("pipe", "anon")])
            },
            // The original's ring (10 relays x 8 rings, /bin/cat) with a
            // fifth of its 100,000 messages: the claims read per-message
            // figures, and a repetition of about 1.5 s lets E2's rounds
            // (with the wake-up round trip and the port setup) number 15
            // or more within their cap.
            Entry {
                repeat: Some(2),
                ..entry("port-ring", &[("messages", "20000")])
            },
            // E5-threads-beat-processes: relays over pipes, no echo program,
            // as threads and as processes; a few seconds.
            Entry {
                repeat: Some(5),
                ..entry(
                    "port-ring",
                    &[
                        ("echo", "none"),
                        ("relay", "threads,processes"),
                        ("relays", "10"),
                        ("messages", "20000"),
                        ("rings", "2"),
                    ],
                )
            },
            // The original's tests as repetitions of 50 ms each, so the
            // stall signs have a measured spread; the cases a claim
            // compares run as interleaved rounds of one repetition each.
            // Unpinned contention swings from round to round with where
            // the scheduler puts the sides: 50 ms rounds (about 0.1 s
            // each with their setup) give as narrow a paired interval as
            // 200 ms ones in under half the time, so the group's cap holds
            // about 50 rounds of its 6 cases.
            Entry {
                repeat: Some(3),
                ..entry("contention", &[("duration", "50ms")])
            },
            // E3-two-readers.
            Entry {
                repeat: Some(3),
                mechs: Some(&["fifo"]),
                ..entry("contention", &[("duration", "50ms"), ("test", "two-readers")])
            },
            // One repetition of 20,000 round trips per point keeps the
            // original's 12-point sweep over 5 pollers within 2 minutes.
            Entry {
                repeat: Some(1),
                ..entry("poll-scale", &[("idle", E5_IDLE), ("requests", "20000")])
            },
            // E5-poll-faster-at-0 and E5-et-faster weigh a 5% difference:
            // 15 repetitions of 10,000 requests, about 20 s.
            Entry {
                repeat: Some(15),
                ..entry(
                    "poll-scale",
                    &[
                        ("idle", "0"),
                        ("poller", "poll,epoll-lt,epoll-et"),
                        ("requests", "10000"),
                    ],
                )
            },
            // E5-all-active-epoll-slower: 100 connections, all active.
            Entry {
                repeat: Some(7),
                ..entry(
                    "poll-scale",
                    &[
                        ("idle", "0"),
                        ("active", "100"),
                        ("poller", "poll,epoll-lt"),
                        ("requests", "10000"),
                    ],
                )
            },
            // E5-select-equals-poll within select's FD_SETSIZE.
            Entry {
                repeat: Some(5),
                ..entry(
                    "poll-scale",
                    &[
                        ("idle", "640"),
                        ("poller", "select,poll"),
                        ("requests", "10000"),
                    ],
                )
            },
            // bench.c times 25 loops; 7,500 pairs is the original's point
            // (15,000 descriptors, within this machine's 20,000).
            Entry {
                repeat: Some(25),
                ..entry(
                    "event-bench",
                    &[("fds", "100,1000,5000,7500"), ("active", "1,100")],
                )
            },
            // E6-select-worse-than-poll: 500 pairs, 1,000 descriptors.
            Entry {
                repeat: Some(25),
                ..entry(
                    "event-bench",
                    &[("fds", "500"), ("active", "1"), ("poller", "select,poll")],
                )
            },
        ],
    },
    Suite {
        name: "seeds-quick",
        about: "the seeds suite at small sizes, every claim answered in about a minute (run seeds --quick)",
        claims_precision: true,
        entries: &[
            Entry {
                repeat: Some(9),
                ..entry("limits", &[("count", "100000")])
            },
            Entry {
                repeat: Some(1),
                ..entry("probe", &[])
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "32M"),
                        ("copier", "read-write,sendfile"),
                        ("buf", "4096"),
                        ("tcp", "plain"),
                    ],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "1M"),
                        ("copier", "read-write,sendfile"),
                        ("buf", "4096"),
                        ("tcp", "plain"),
                        ("link", "100mbit"),
                    ],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "1M"),
                        ("copier", "read-write"),
                        ("buf", "1024,8192"),
                        ("tcp", "plain"),
                        ("link", "100mbit"),
                    ],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "file-transfer",
                    &[
                        ("file-size", "1M"),
                        ("copier", "sendfile"),
                        ("tcp", "cork"),
                        ("link", "100mbit"),
                    ],
                )
            },
            Entry {
                repeat: Some(3),
                mechs: Some(&["fifo", "shm"]),
                ..entry(
                    "stream",
                    &[("size", "64"), ("wake", "fifo"), ("rep_time", "20ms")],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "devnull",
                    &[
                        ("file-size", "4M"),
                        ("copier", "mmap-write,read-write"),
                        ("sink", "dev-null"),
                        ("cache", "cold"),
                    ],
                )
            },
            Entry {
                repeat: Some(15),
                ..entry("pipe-atime", &[("count", "100k"), ("pipe", "anon")])
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "port-ring",
                    &[("relays", "5"), ("messages", "5000"), ("rings", "2")],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "port-ring",
                    &[
                        ("echo", "none"),
                        ("relay", "threads,processes"),
                        ("relays", "5"),
                        ("messages", "5000"),
                        ("rings", "2"),
                    ],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry("contention", &[("duration", "100ms")])
            },
            Entry {
                repeat: Some(3),
                mechs: Some(&["fifo"]),
                ..entry(
                    "contention",
                    &[("duration", "100ms"), ("test", "two-readers")],
                )
            },
            entry(
                "poll-scale",
                &[
                    ("idle", "0,100,200,400"),
                    ("poller", "select,poll,epoll-lt"),
                    ("requests", "2000"),
                ],
            ),
            Entry {
                repeat: Some(11),
                ..entry(
                    "poll-scale",
                    &[
                        ("idle", "0"),
                        ("poller", "poll,epoll-lt,epoll-et"),
                        ("requests", "2000"),
                    ],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "poll-scale",
                    &[
                        ("idle", "0"),
                        ("active", "100"),
                        ("poller", "poll,epoll-lt"),
                        ("requests", "2000"),
                    ],
                )
            },
            entry(
                "event-bench",
                &[("fds", "100,1000"), ("poller", "poll,epoll-lt"), ("writes", "100")],
            ),
            entry(
                "event-bench",
                &[("fds", "500"), ("active", "1"), ("poller", "select,poll"), ("writes", "100")],
            ),
        ],
    },
    Suite {
        name: "full",
        about: "every scenario with wide sweeps; tens of minutes",
        claims_precision: false,
        entries: &[
            entry("limits", &[("count", "1M")]),
            entry(
                "pingpong",
                &[("size", "1,64,4096,65536"), ("count", "20000")],
            ),
            entry(
                "stream",
                &[("size", "64,512,4096,65536,1M"), ("rep_time", "500ms")],
            ),
            Entry {
                repeat: Some(3),
                ..entry(
                    "pingpong",
                    &[("count", "5000"), ("pairs", "1,2,4,8,16,32")],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "stream",
                    &[("size", "4096"), ("rep_time", "250ms"), ("pairs", "1,2,4,8,16,32")],
                )
            },
            // Offered load from well below to past the knee of most mechanisms.
            Entry {
                repeat: Some(3),
                ..entry(
                    "pingpong",
                    &[("count", "5000"), ("rate", "10k,20k,50k,100k,200k,500k,max")],
                )
            },
            entry(
                "file-transfer",
                &[("cache", "warm,cold"), ("link", "loopback,100mbit")],
            ),
            entry("devnull", &[("buf", "4096,65536,1M")]),
            Entry {
                repeat: Some(3),
                ..entry("pipe-atime", &[("count", "10M")])
            },
            Entry {
                repeat: Some(2),
                ..entry(
                    "port-ring",
                    &[("relay", "threads,processes"), ("echo", "/bin/cat,none")],
                )
            },
            Entry {
                repeat: Some(3),
                ..entry("contention", &[("duration", "2s")])
            },
            Entry {
                repeat: Some(3),
                ..entry(
                    "poll-scale",
                    &[("idle", E5_IDLE), ("transport", "tcp,unix")],
                )
            },
            entry(
                "event-bench",
                &[
                    ("fds", "100,1000,2500,5000,7500,9000"),
                    ("active", "1,100"),
                    ("pair", "socketpair,pipe"),
                    ("dispatch", "nonblocking,blocking"),
                ],
            ),
            entry("fan-in", &[("senders", "1,4,16,64")]),
            // perf bench sched messaging's defaults: 10 groups, 100 loops.
            entry("hackbench", &[("groups", "10"), ("loops", "100")]),
            entry("c2c", &[("count", "100000")]),
            Entry {
                repeat: Some(1),
                ..entry("probe", &[])
            },
        ],
    },
];

pub(crate) fn find(name: &str) -> Option<&'static Suite> {
    ALL.iter().find(|s| s.name == name)
}

/// `--quick` for a suite: its `NAME-quick` variant when one is defined
/// (seeds-quick), else the quick suite's entries for the suite's scenarios.
pub(crate) fn quick_variant(suite: &'static Suite) -> Vec<&'static Entry> {
    if let Some(small) = find(&format!("{}-quick", suite.name)) {
        return small.entries.iter().collect();
    }
    let mut out: Vec<&'static Entry> = Vec::new();
    for entry in suite.entries {
        if !out.iter().any(|e| e.scenario == entry.scenario) {
            out.extend(quick_entries(entry.scenario));
        }
    }
    out
}

/// `--quick` for one scenario: the quick suite's entries for it.
pub(crate) fn quick_entries(scenario: &str) -> Vec<&'static Entry> {
    find("quick")
        .map(|q| {
            q.entries
                .iter()
                .filter(|e| e.scenario == scenario)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_names_a_scenario_and_its_parameters() {
        let mut wrong = Vec::new();
        for suite in ALL {
            for (i, entry) in suite.entries.iter().enumerate() {
                let at = format!("suite {}, entry {i} ({})", suite.name, entry.scenario);
                let Some(scenario) = crate::scenario::find(entry.scenario) else {
                    wrong.push(format!("{at}: no such scenario"));
                    continue;
                };
                for (key, value) in entry.params {
                    if let Err(why) = crate::scenario::entry_params::check(scenario, key, value) {
                        wrong.push(format!("{at}: {key}={value}: {why}"));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn suite_names_do_not_shadow_scenarios() {
        for suite in ALL {
            assert!(crate::scenario::find(suite.name).is_none());
        }
    }
}
