//! The shm ring's round trip against the cache-line bounce it is held to
//! (issue 5: within 1.2x), measured in one process with all figures
//! interleaved round by round, so that the host moving this VM's vCPUs
//! (which changes the cache-line RTT from ~30 to ~75 ns here) moves them
//! all. Each round prints the bounce (one word, both sides write it); the
//! floor under any request/reply exchange (two words in one line, each
//! written by one side); the floor under any ring (two bare
//! sequence-numbered slot rings written inline in this file); and the shm
//! mechanism's pingpong timed as the `pingpong` scenario does (a tick-clock
//! read and a histogram record per round trip, after the send), once
//! through `dyn Endpoint` and once through `run_typed`, as pingpong runs it.
//!
//! `cargo bench --bench shm_rtt [-- ROUNDS [TRIPS]]`

use iolab::measure::pin::{choose, Placement};
use iolab::measure::ticks::tick_clock;
use iolab::mechanism::{find, run_typed, Endpoint, EndpointLoop, Values};
use iolab::scenario::{bounce, cacheline_rtt, Value};
use iolab::stats::estimators::median;
use iolab::stats::histogram::Latencies;
use iolab::sys::shared::SharedRegion;
use std::sync::atomic::Ordering;

type RoundTrip = fn(u64, [Option<usize>; 2]) -> f64;

/// What each round measures besides the cache line, in order.
const FIGURES: [(&str, RoundTrip); 4] = [
    ("two words", two_words_rtt),
    ("bare ring", bare_ring_rtt),
    ("shm dyn", |trips, cpus| shm_rtt(trips, cpus, false)),
    ("shm typed", |trips, cpus| shm_rtt(trips, cpus, true)),
];

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = args.first().copied().unwrap_or(10) as usize;
    let trips = args.get(1).copied().unwrap_or(200_000);
    let cpus = choose(Placement::CrossCpu).expect("needs two CPUs");
    println!(
        "cpus {cpus:?}, {trips} round trips per figure, {}",
        tick_clock().describe()
    );
    let mut ratios = vec![Vec::new(); FIGURES.len()];
    for round in 0..rounds {
        let line = cacheline_rtt(trips, cpus);
        let mut shown = format!("round {round}: cache line {line:5.1} ns");
        for ((name, rtt), ratios) in FIGURES.iter().zip(&mut ratios) {
            let ns = rtt(trips, cpus);
            shown += &format!(", {name} {ns:5.1} ns ({:.2}x)", ns / line);
            ratios.push(ns / line);
        }
        println!("{shown}");
    }
    let medians: Vec<String> = FIGURES
        .iter()
        .zip(&mut ratios)
        .map(|((name, _), ratios)| format!("{name} {:.2}x", median(ratios)))
        .collect();
    println!("median ratio to the cache line: {}", medians.join(", "));
}

/// Mean ns per round trip of a 1-byte shm (wake=spin) pingpong, with the
/// loops compiled for the shm endpoint (`typed`) or calling through dyn.
fn shm_rtt(trips: u64, cpus: [Option<usize>; 2], typed: bool) -> f64 {
    let values: Values = [
        ("wake", Value::Text("spin".into())),
        ("size", Value::Int(1)),
    ]
    .into_iter()
    .collect();
    let dir = std::env::temp_dir();
    let (mut a, mut b) = find("shm").unwrap().connect(&dir, &values).unwrap();
    bounce(
        trips,
        cpus,
        || match typed {
            true => run_typed(a.as_mut(), Initiate { trips }),
            false => Initiate { trips }.run(a.as_mut()),
        },
        || match typed {
            true => run_typed(b.as_mut(), Echo { trips }),
            false => Echo { trips }.run(b.as_mut()),
        },
    )
}

/// Sends, times the round trip as pingpong does, checks the echoed byte.
struct Initiate {
    trips: u64,
}

impl EndpointLoop for Initiate {
    type Out = ();
    fn run<E: Endpoint + ?Sized>(self, ep: &mut E) {
        let (clock, mut hist) = (tick_clock(), Latencies::new());
        let mut echo = [0u8; 1];
        let mut last = clock.now();
        for i in 0..self.trips {
            ep.send(&[i as u8]).unwrap();
            let sent = clock.now();
            hist.record(clock.ns(sent - last));
            last = sent;
            ep.recv(&mut echo).unwrap();
            assert_eq!(echo[0], i as u8);
        }
    }
}

struct Echo {
    trips: u64,
}

impl EndpointLoop for Echo {
    type Out = ();
    fn run<E: Endpoint + ?Sized>(self, ep: &mut E) {
        let mut msg = [0u8; 1];
        for _ in 0..self.trips {
            ep.recv(&mut msg).unwrap();
            ep.send(&msg).unwrap();
        }
    }
}

/// Mean ns per round trip of two words in one cache line, each written by
/// one side: A stores its word and spins on B's, B answers. The least any
/// exchange with a request and a separate reply can cost.
fn two_words_rtt(trips: u64, cpus: [Option<usize>; 2]) -> f64 {
    let region = SharedRegion::new(128).unwrap();
    let (request, reply) = (region.atomic_u64(0), region.atomic_u64(8));
    let spin_until = |word: &std::sync::atomic::AtomicU64, value: u64| {
        while word.load(Ordering::Acquire) != value {
            std::hint::spin_loop();
        }
    };
    bounce(
        trips,
        cpus,
        || {
            for i in 1..=trips {
                request.store(i, Ordering::Release);
                spin_until(reply, i);
            }
        },
        || {
            for i in 1..=trips {
                spin_until(request, i);
                reply.store(i, Ordering::Release);
            }
        },
    )
}

/// Slots of the bare rings: a sequence word, then the message byte.
const SLOTS: usize = 1024;
const STRIDE: usize = 128;

/// Mean ns per round trip over two minimal rings in one shared mapping:
/// each side stores the byte and then the slot's sequence number, and
/// spins on the other ring's next sequence number. No length, no tail, no
/// abstraction: what a ring costs on this machine before any design.
fn bare_ring_rtt(trips: u64, cpus: [Option<usize>; 2]) -> f64 {
    let region = SharedRegion::new(2 * SLOTS * STRIDE).unwrap();
    let region = &region;
    bounce(
        trips,
        cpus,
        || {
            for i in 0..trips {
                put(region, 0, i, i as u8);
                assert_eq!(take(region, 1, i), i as u8);
            }
        },
        || {
            for i in 0..trips {
                let byte = take(region, 0, i);
                put(region, 1, i, byte);
            }
        },
    )
}

fn slot(ring: usize, i: u64) -> usize {
    (ring * SLOTS + (i as usize & (SLOTS - 1))) * STRIDE
}

fn put(region: &SharedRegion, ring: usize, i: u64, byte: u8) {
    let at = slot(ring, i);
    region.write(at + 8, &[byte]);
    region.atomic_u64(at).store(i + 1, Ordering::Release);
}

fn take(region: &SharedRegion, ring: usize, i: u64) -> u8 {
    let at = slot(ring, i);
    while region.atomic_u64(at).load(Ordering::Acquire) != i + 1 {
        std::hint::spin_loop();
    }
    let mut byte = [0u8];
    region.read(at + 8, &mut byte);
    byte[0]
}
