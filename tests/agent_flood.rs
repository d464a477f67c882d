//! A sustained flood cannot lock the agent out (issue 52). Issue 36's
//! agent held a one-shot flood, but 300 strangers that reconnect whenever
//! dropped kept every one of 114 tries of a client with the token out for
//! a minute (`busy: too many connections are still to say hello`), and
//! its log grew a line per refused connection (20.9 MB). Here 500 such
//! strangers from the client's own address and 50 from ten others flood
//! it for 60 s: a client with the token is served within 10 s each of 10
//! times, the log stays under 100 lines over the flood, and the agent's
//! memory stays bounded.

mod common;

use common::agent::{Agent, Net};
use common::{results, Sandbox};
use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const FLOOD: Duration = Duration::from_secs(60);
const TRIES: usize = 10;
/// How long a try may take, its case included.
const GETS_IN: Duration = Duration::from_secs(10);
/// The agent's resident memory stays under this during the flood.
const RSS_BOUND_KB: u64 = 64 * 1024;

/// A connection to `agent` from `source`.
fn connect_from(source: Ipv4Addr, agent: SocketAddr) -> std::io::Result<TcpStream> {
    use rustix::net::{bind, connect, socket, AddressFamily, SocketType};
    let fd = socket(AddressFamily::INET, SocketType::STREAM, None)?;
    bind(&fd, &SocketAddrV4::new(source, 0))?;
    connect(&fd, &agent)?;
    Ok(TcpStream::from(fd))
}

/// A stranger from `source`: connects, says nothing, and the moment the
/// agent drops it connects again, until `stop`; counts its connections.
fn stranger(source: Ipv4Addr, agent: SocketAddr, stop: Arc<AtomicBool>, made: Arc<AtomicU64>) {
    let mut sink = [0u8; 512];
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut conn) = connect_from(source, agent) else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        made.fetch_add(1, Ordering::Relaxed);
        let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
        loop {
            match conn.read(&mut sink) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
    }
}

/// The agent's resident memory in KiB, from /proc.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// How many connections the agent's count lines say it refused.
fn refused_in(log: &str) -> u64 {
    log.lines()
        .filter_map(|l| l.split("refused ").nth(1))
        .filter_map(|rest| rest.split(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[test]
fn a_sustained_flood_of_strangers_cannot_lock_a_client_out() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &["--token", "s3cret"]);
    let addr: SocketAddr = agent.addr.parse().unwrap();
    let lines_before = agent.log().lines().count();
    let stop = Arc::new(AtomicBool::new(false));
    let made = Arc::new(AtomicU64::new(0));
    let sources: Vec<Ipv4Addr> = std::iter::repeat_n(Ipv4Addr::new(127, 0, 0, 1), 500)
        .chain((0..50).map(|i| Ipv4Addr::new(127, 0, 0, 2 + i % 10)))
        .collect();
    let flood: Vec<_> = sources
        .into_iter()
        .map(|source| {
            let (stop, made) = (stop.clone(), made.clone());
            std::thread::Builder::new()
                .stack_size(64 << 10)
                .spawn(move || stranger(source, addr, stop, made))
                .unwrap()
        })
        .collect();
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(2));
    let small = [
        "pingpong", "--mech", "tcp", "--param", "count=50", "--repeat", "1", "--token", "s3cret",
    ];
    let args = agent.run_args(&small);
    let mut rss_max = 0;
    for i in 0..TRIES {
        let out = agent.client(&sb, &args).timeout(GETS_IN).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "try {i}: not served within {GETS_IN:?}: {stderr}"
        );
        let run = common::json(&out.stdout);
        assert_eq!(
            results(&run)[0]["status"],
            "ok",
            "try {i}: {}",
            results(&run)[0]
        );
        rss_max = rss_max.max(rss_kb(agent.pid()));
        let next = started + FLOOD.mul_f64((i + 1) as f64 / (TRIES + 1) as f64);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    std::thread::sleep((started + FLOOD).saturating_duration_since(Instant::now()));
    rss_max = rss_max.max(rss_kb(agent.pid()));
    stop.store(true, Ordering::Relaxed);
    for stranger in flood {
        stranger.join().unwrap();
    }
    let log = agent.log();
    let flood_log: Vec<&str> = log.lines().skip(lines_before).collect();
    let connections = made.load(Ordering::Relaxed);
    eprintln!(
        "{connections} strangers' connections over {FLOOD:?}, {} refused as the log counts them, {} log lines, agent RSS at most {rss_max} KiB",
        refused_in(&log),
        flood_log.len()
    );
    assert!(
        connections > 5_000,
        "the flood was one: {connections} connections"
    );
    assert!(
        refused_in(&log) > 5_000,
        "the log counts the refusals:\n{log}"
    );
    assert!(
        flood_log.len() < 100,
        "{} lines:\n{}",
        flood_log.len(),
        flood_log.join("\n")
    );
    assert!(rss_max < RSS_BOUND_KB, "agent RSS {rss_max} KiB");
    agent.stop(&sb);
}
