//! The shm ring's round trip against the cache-line bounce it is held to
//! (issue 5: within 1.2x), measured in one process with the two
//! interleaved round by round, so that the host moving this VM's vCPUs
//! (which changes the cache-line RTT from ~30 to ~75 ns here) moves both.
//! Each round prints the bounce; the floor under any ring, two bare
//! sequence-numbered slot rings written inline in this file; and the shm
//! mechanism's pingpong through its `Endpoint`, bare (send, receive, check
//! the echoed byte) and timed as the `pingpong` scenario does (a tick-clock
//! read and a histogram record per round trip, after the send).
//!
//! `cargo bench --bench shm_rtt [-- ROUNDS [TRIPS]]`

use iolab::measure::histogram::Latencies;
use iolab::measure::pin::{choose, pin_current, Placement};
use iolab::measure::stats::median;
use iolab::measure::ticks::tick_clock;
use iolab::mechanism::{find, BoxEndpoint, Values};
use iolab::scenario::{cacheline_rtt, Value};
use iolab::sys::shared::SharedRegion;
use std::sync::atomic::Ordering;
use std::time::Instant;

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
    let mut ratios = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let line = cacheline_rtt(trips, cpus);
        let bare = shm_rtt(trips, cpus, false);
        let timed = shm_rtt(trips, cpus, true);
        let floor = bare_ring_rtt(trips, cpus);
        println!(
            "round {round}: cache line {line:5.1} ns, bare ring {floor:5.1} ns ({:.2}x), shm {bare:5.1} ns ({:.2}x), shm timed {timed:5.1} ns ({:.2}x)",
            floor / line,
            bare / line,
            timed / line
        );
        ratios.0.push(floor / line);
        ratios.1.push(bare / line);
        ratios.2.push(timed / line);
    }
    println!(
        "median ratio to the cache line: bare ring {:.2}x, shm {:.2}x, shm timed {:.2}x",
        median(&mut ratios.0),
        median(&mut ratios.1),
        median(&mut ratios.2)
    );
}

/// Mean ns per round trip of a 1-byte shm (wake=spin) pingpong.
fn shm_rtt(trips: u64, cpus: [Option<usize>; 2], timed: bool) -> f64 {
    let values: Values = [
        ("wake", Value::Text("spin".into())),
        ("size", Value::Int(1)),
    ]
    .into_iter()
    .collect();
    let dir = std::env::temp_dir();
    let (mut a, mut b) = find("shm").unwrap().connect(&dir, &values).unwrap();
    std::thread::scope(|s| {
        s.spawn(move || {
            pin_current(cpus[1]).unwrap();
            echo(&mut b, trips);
        });
        s.spawn(move || {
            pin_current(cpus[0]).unwrap();
            let start = Instant::now();
            initiate(&mut a, trips, timed);
            start.elapsed().as_nanos() as f64 / trips as f64
        })
        .join()
        .unwrap()
    })
}

fn initiate(ep: &mut BoxEndpoint, trips: u64, timed: bool) {
    let (clock, mut hist) = (tick_clock(), Latencies::new());
    let mut echo = [0u8; 1];
    let mut last = clock.now();
    for i in 0..trips {
        ep.send(&[i as u8]).unwrap();
        if timed {
            let sent = clock.now();
            hist.record(clock.ns(sent - last));
            last = sent;
        }
        ep.recv(&mut echo).unwrap();
        assert_eq!(echo[0], i as u8);
    }
}

fn echo(ep: &mut BoxEndpoint, trips: u64) {
    let mut msg = [0u8; 1];
    for _ in 0..trips {
        ep.recv(&mut msg).unwrap();
        ep.send(&msg).unwrap();
    }
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
    std::thread::scope(|s| {
        s.spawn(move || {
            pin_current(cpus[1]).unwrap();
            for i in 0..trips {
                let byte = take(region, 0, i);
                put(region, 1, i, byte);
            }
        });
        s.spawn(move || {
            pin_current(cpus[0]).unwrap();
            let start = Instant::now();
            for i in 0..trips {
                put(region, 0, i, i as u8);
                assert_eq!(take(region, 1, i), i as u8);
            }
            start.elapsed().as_nanos() as f64 / trips as f64
        })
        .join()
        .unwrap()
    })
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
