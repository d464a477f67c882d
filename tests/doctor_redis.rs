//! `iolab doctor --pid` on a running redis-server, loaded by two
//! redis-benchmark clients at once, one on a unix socket and one on
//! loopback TCP: doctor must name each connection's client, give the
//! per-call figures of redis's reads and writes, show its epoll set, and
//! state what tracing cost. Everything the test starts is killed at the
//! end, on a failed assertion too.

mod common;

use common::net::free_port;
use common::{is_root, json, on_path, require, Sandbox};
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The processes the test started, killed and reaped when it ends, however
/// it ends.
struct Started(Vec<Child>);

impl Drop for Started {
    fn drop(&mut self) {
        for child in self.0.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Pids of the processes whose command line mentions any of `needles`
/// (redis-server rewrites its own to `redis-server 127.0.0.1:PORT`).
fn processes_mentioning(needles: &[String]) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| {
            let raw = std::fs::read(e.path().join("cmdline")).ok()?;
            let line = String::from_utf8_lossy(&raw).replace('\0', " ");
            needles
                .iter()
                .any(|n| line.contains(n.as_str()))
                .then(|| format!("{}: {line}", e.file_name().to_string_lossy()))
        })
        .collect()
}

/// Waits (10 s at most) until redis answers PONG on `socket`.
fn wait_for_pong(server: &mut Child, socket: &Path, log: &Path) {
    let start = Instant::now();
    loop {
        let ping = Command::new("redis-cli")
            .arg("-s")
            .arg(socket)
            .arg("ping")
            .stderr(Stdio::null())
            .output()
            .unwrap();
        if String::from_utf8_lossy(&ping.stdout).trim() == "PONG" {
            return;
        }
        let log = || std::fs::read_to_string(log).unwrap_or_default();
        if let Some(status) = server.try_wait().unwrap() {
            panic!("redis-server ended ({status}) before answering: {}", log());
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "redis-server gave no PONG within 10 s: {}",
            log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn call<'a>(channel: &'a Value, name: &str) -> Option<&'a Value> {
    channel["calls"]
        .as_array()?
        .iter()
        .find(|c| c["syscall"] == name)
}

/// The connection's read and write rows: both called, each moving bytes.
fn assert_reads_and_writes(channel: &Value) {
    for name in ["read", "write"] {
        let row = call(channel, name).unwrap_or_else(|| panic!("no {name}: {channel}"));
        assert!(row["per_s"].as_f64().unwrap() > 0.0, "{row}");
        assert!(row["median_bytes"].as_f64().unwrap() > 0.0, "{row}");
    }
}

fn fmt_calls(channel: &Value) -> String {
    channel["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {:.0}/s median {} B",
                c["syscall"].as_str().unwrap(),
                c["per_s"].as_f64().unwrap(),
                c["median_bytes"]
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn redis_under_two_benchmarks_shows_each_client_its_calls_and_its_epoll_set() {
    if !require(
        on_path("redis-server"),
        "redis-server (Debian's redis-server)",
    ) || !require(on_path("redis-benchmark"), "redis-benchmark (redis-tools)")
        || !require(on_path("redis-cli"), "redis-cli (redis-tools)")
        || !require(is_root(), "root, for the tracer's per-thread tracepoints")
    {
        return;
    }
    let sb = Sandbox::new();
    let socket = sb.dir.path().join("redis.sock");
    let log = sb.dir.path().join("redis.log");
    let port = free_port().to_string();
    let needles = [
        socket.to_string_lossy().into_owned(),
        format!("127.0.0.1:{port}"),
    ];
    {
        let server = Command::new("redis-server")
            .args(["--port", &port, "--bind", "127.0.0.1", "--unixsocket"])
            .arg(&socket)
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(sb.dir.path())
            .arg("--logfile")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut started = Started(vec![server]);
        wait_for_pong(&mut started.0[0], &socket, &log);
        let server_pid = started.0[0].id();

        let bench = |target: &[&str]| {
            Command::new("redis-benchmark")
                .args(target)
                .args(["-n", "200000", "-c", "10", "-t", "set,get", "-q"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        };
        let on_unix = bench(&["-s", socket.to_str().unwrap()]);
        let unix_pid = on_unix.id();
        started.0.push(on_unix);
        let on_tcp = bench(&["-h", "127.0.0.1", "-p", &port]);
        let tcp_pid = on_tcp.id();
        started.0.push(on_tcp);

        // The watch alone: no alternatives measured after it.
        let pid = server_pid.to_string();
        let args = [
            "doctor",
            "--quiet",
            "--json",
            "-",
            "--alternatives",
            "0",
            "--pid",
            &pid,
            "--for",
            "3s",
        ];
        let out = sb.command(&args).output().unwrap();
        let d = json(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(d["ending"], "time_up");
        assert_eq!(d["command"], "redis-server");
        assert!(
            started.0[0].try_wait().unwrap().is_none(),
            "doctor must leave redis-server running"
        );

        let channels: Vec<&Value> = d["channels"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["channel"]["pid"] == server_pid)
            .collect();
        let busy_with = |kind: &str, client: u32| -> Vec<&Value> {
            channels
                .iter()
                .copied()
                .filter(|c| c["channel"]["kind"] == kind && call(c, "read").is_some())
                .filter(|c| {
                    c["channel"]["peers"].as_array().is_some_and(|ps| {
                        ps.iter()
                            .any(|p| p["pid"] == client && p["comm"] == "redis-benchmark")
                    })
                })
                .collect()
        };

        let unix = busy_with("unix", unix_pid);
        assert!(
            !unix.is_empty(),
            "a unix connection to redis-benchmark: {channels:#?}"
        );
        for c in &unix {
            assert_eq!(c["channel"]["ty"], "stream", "{c}");
            assert_eq!(c["channel"]["listening"], false, "{c}");
            assert_eq!(c["channel"]["path"], needles[0].as_str(), "{c}");
            assert_reads_and_writes(c);
        }
        let tcp = busy_with("tcp", tcp_pid);
        assert!(
            !tcp.is_empty(),
            "a TCP connection to redis-benchmark: {channels:#?}"
        );
        for c in &tcp {
            assert_eq!(c["channel"]["loopback"], true, "{c}");
            assert_eq!(c["channel"]["state"], "ESTABLISHED", "{c}");
            assert_eq!(c["channel"]["local"], needles[1].as_str(), "{c}");
            assert_reads_and_writes(c);
        }

        // The event loop's epoll set holds the connections doctor found.
        let epoll = channels
            .iter()
            .find(|c| c["channel"]["kind"] == "epoll" && !c["calls"].as_array().unwrap().is_empty())
            .unwrap_or_else(|| panic!("redis's epoll channel, with its waits: {channels:#?}"));
        let watched = epoll["channel"]["watched"].as_array().unwrap();
        for c in unix.iter().chain(&tcp) {
            assert!(
                watched.contains(&c["channel"]["fd"]),
                "fd {} in the epoll set {watched:?}",
                c["channel"]["fd"]
            );
        }
        let waits = &epoll["calls"][0];
        assert!(
            waits["syscall"].as_str().unwrap().starts_with("epoll_"),
            "{waits}"
        );
        assert!(waits["per_s"].as_f64().unwrap() > 0.0, "{waits}");

        let tracer = &d["tracer"];
        assert!(tracer["unavailable"].is_null(), "{tracer}");
        assert!(tracer["windows"].as_u64().unwrap() >= 2, "{tracer}");
        let overhead = &tracer["overhead"];
        assert!(overhead.is_object(), "the tracer's cost: {tracer}");
        assert!(overhead["cost"].as_f64().is_some(), "{tracer}");

        eprintln!(
            "redis: {} unix connections, e.g. {}",
            unix.len(),
            fmt_calls(unix[0])
        );
        eprintln!(
            "redis: {} TCP connections, e.g. {}",
            tcp.len(),
            fmt_calls(tcp[0])
        );
        eprintln!(
            "redis: epoll set of {} fds, {}; tracer {} windows, overhead {overhead}",
            watched.len(),
            fmt_calls(epoll),
            tracer["windows"]
        );
        // `started` is dropped here: the benchmarks and the server killed.
    }
    let left = processes_mentioning(&needles);
    assert!(left.is_empty(), "left running: {left:?}");
    sb.assert_tmp_empty();
}
