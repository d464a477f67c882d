//! `iolab doctor` on programs nobody here wrote, where the truth is known:
//! nginx serving a 64 MiB file to a curl loop (sendfile on and off: one
//! entry per connection, the transfer one-way, the file's reads shown,
//! placement advice only as measured), a socat relay whose polling
//! socketpair moves nothing (its failed calls counted, no alternatives),
//! a CPU-bound pipeline no transport would speed up, the alternatives of
//! 2 MiB messages within `--alternatives-time`, and the watch's overhead
//! against the program's own wall time with and without doctor.

mod common;

use common::net::free_port;
use common::{is_root, json, on_path, require, Sandbox};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// `iolab doctor --json FILE ARGS`: the diagnosis, the summary printed
/// and the exit status.
fn doctor(sb: &Sandbox, args: &[&str]) -> (Value, String, i32) {
    let file = sb.dir.path().join("diagnosis.json");
    let mut all = vec!["doctor", "--json", file.to_str().unwrap()];
    all.extend(args);
    let out = sb.command(&all).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let d = json(&std::fs::read(&file).unwrap_or_default());
    (d, text, out.status.code().unwrap_or(-1))
}

fn channels(d: &Value) -> &Vec<Value> {
    d["channels"].as_array().unwrap()
}

fn moved(c: &Value, way: &str) -> u64 {
    c["moved"][way].as_u64().unwrap()
}

/// A channel's totals: its calls (succeeded and failed) by system call,
/// the bytes each way and the time in them (two connections may move the
/// same bytes in the same calls inside a window, never in the same time).
fn totals(c: &Value) -> String {
    let calls: Vec<String> = c["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r["syscall"], r["calls"], r["failed"]))
        .collect();
    format!(
        "{} | {} in, {} out | {} ns/s",
        calls.join(", "),
        moved(c, "bytes_in"),
        moved(c, "bytes_out"),
        c["busy_ns_per_s"]
    )
}

// ---- nginx ----

/// An nginx of its own (one process, in the foreground) serving a 64 MiB
/// file from `dir` on `port`, with `sendfile` as given.
fn nginx_site(dir: &Path, port: u16, sendfile: &str) {
    std::fs::create_dir_all(dir.join("www")).unwrap();
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    let file = std::fs::File::create(dir.join("www/big")).unwrap();
    file.set_len(64 << 20).unwrap();
    let d = dir.display();
    let conf = format!(
        "daemon off; master_process off; worker_processes 1;\n\
         error_log {d}/error.log; pid {d}/nginx.pid;\n\
         events {{ worker_connections 64; }}\n\
         http {{ access_log off; sendfile {sendfile};\n\
           client_body_temp_path {d}/tmp/body; proxy_temp_path {d}/tmp/proxy;\n\
           fastcgi_temp_path {d}/tmp/fcgi; uwsgi_temp_path {d}/tmp/uwsgi; scgi_temp_path {d}/tmp/scgi;\n\
           server {{ listen 127.0.0.1:{port}; root {d}/www; }} }}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
}

/// The script that starts that nginx (on `nginx_cpu`, "" for any), waits
/// for it, has curl (on `curl_cpu`) fetch the file `n` times and for at
/// least `min_s` seconds, and stops nginx.
fn nginx_script(
    dir: &Path,
    port: u16,
    (n, min_s): (usize, u64),
    nginx_cpu: &str,
    curl_cpu: &str,
) -> String {
    let pin = |cpu: &str| match cpu {
        "" => String::new(),
        cpu => format!("taskset -c {cpu} "),
    };
    let d = dir.display();
    let url = format!("http://127.0.0.1:{port}/big");
    format!(
        "{}nginx -p {d} -c {d}/nginx.conf -e {d}/error.log & n=$!\n\
         i=0; until curl -s -o /dev/null {url}; do i=$((i+1)); [ $i -gt 200 ] && break; sleep 0.05; done\n\
         end=$(($(date +%s) + {min_s})); i=0\n\
         while [ $i -lt {n} ] || [ $(date +%s) -lt $end ]; do {}curl -s -o /dev/null {url}; i=$((i+1)); done\n\
         kill $n; wait $n\n",
        pin(nginx_cpu),
        pin(curl_cpu)
    )
}

/// The wall time of `n` downloads with nginx and curl pinned as given.
fn pinned_run(dir: &Path, port: u16, n: usize, nginx_cpu: &str, curl_cpu: &str) -> f64 {
    let script = nginx_script(dir, port, (n, 0), nginx_cpu, curl_cpu);
    let start = Instant::now();
    let status = Command::new("sh").arg("-c").arg(&script).status().unwrap();
    assert!(status.success(), "{script}");
    start.elapsed().as_secs_f64()
}

fn nginx_serves_a_download_loop(sendfile: &str) {
    if !require(on_path("nginx"), "nginx (Debian's nginx)")
        || !require(on_path("curl"), "curl")
        || !require(on_path("taskset"), "taskset (util-linux)")
        || !require(is_root(), "root, for the tracer's per-thread tracepoints")
    {
        return;
    }
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("nginx");
    let port = free_port();
    nginx_site(&dir, port, sendfile);
    // At least 6 s of downloads: 12 of the tracer's windows, enough to
    // catch two connections however fast the downloads run.
    let script = nginx_script(&dir, port, (25, 6), "", "");
    let args = [
        "--alternatives",
        "1",
        "--alternatives-time",
        "8s",
        "--try-placement",
        "3",
        "--",
        "sh",
        "-c",
        &script,
    ];
    let (d, text, status) = doctor(&sb, &args);
    assert_eq!(status, 0, "{text}");
    let nginx: Vec<&Value> = channels(&d)
        .iter()
        .filter(|c| c["process"] == "nginx")
        .collect();

    // One entry per connection: no two share their object, nor their totals.
    let busy: Vec<&Value> = nginx
        .iter()
        .copied()
        .filter(|c| moved(c, "bytes_out") > 0)
        .collect();
    assert!(busy.len() >= 2, "connections that moved bytes: {text}");
    for (i, a) in busy.iter().enumerate() {
        for b in &busy[i + 1..] {
            assert_ne!(
                a["channel"]["inode"], b["channel"]["inode"],
                "one object, two entries: {a} {b}"
            );
            assert_ne!(totals(a), totals(b), "the same totals twice:\n{a}\n{b}");
        }
    }
    // The transfer: one way, the requests small beside it.
    let sockets: Vec<&Value> = busy
        .iter()
        .copied()
        .filter(|c| c["channel"]["kind"] != "file")
        .collect();
    assert!(!sockets.is_empty(), "nginx's connections: {text}");
    for c in &sockets {
        let shape = c["moved"]["shape"].as_str().unwrap();
        assert!(
            ["bulk", "one_way"].contains(&shape),
            "a download is one way: {}",
            c["moved"]
        );
        assert!(
            moved(c, "bytes_out") >= 16 * moved(c, "bytes_in"),
            "{}",
            c["moved"]
        );
    }
    let with_request = sockets
        .iter()
        .find(|c| moved(c, "bytes_in") > 0)
        .map(|c| c["moved"]["shape"].clone());
    if let Some(shape) = with_request {
        assert_eq!(shape, "bulk", "a request seen with its response: {text}");
    }
    // The file's side: its reads with sendfile off.
    let file_reads: u64 = nginx
        .iter()
        .filter(|c| c["channel"]["kind"] == "file")
        .map(|c| moved(c, "bytes_in"))
        .sum();
    match sendfile {
        "off" => assert!(file_reads > 0, "the file's reads: {text}"),
        _ => assert!(busy.iter().any(|c| c["calls"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["syscall"] == "sendfile" && r["calls"].as_u64().unwrap() > 0))),
    }

    // Placement: measured on the program here, 5 interleaved pairs; what
    // doctor advises of it must agree, or it advises none.
    let n = 6;
    let mut same = Vec::new();
    let mut cross = Vec::new();
    for _ in 0..5 {
        same.push(pinned_run(&dir, port, n, "0", "0"));
        cross.push(pinned_run(&dir, port, n, "0", "1"));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (same_s, cross_s) = (median(&mut same), median(&mut cross));
    eprintln!(
        "nginx sendfile {sendfile}: {n} downloads of 64 MiB pinned to one CPU {same_s:.2} s, \
         across two {cross_s:.2} s (medians of 5 interleaved pairs)"
    );
    let faster = if same_s < cross_s {
        "same-cpu"
    } else {
        "cross-cpu"
    };
    for a in d["alternatives"].as_array().unwrap() {
        for o in a["options"].as_array().unwrap() {
            if o["placement_only"] == true {
                assert!(o["program_at_most"].is_null(), "{o}");
                let advised =
                    o["faster"][0].as_f64().unwrap() > 1.0 && !o["program_at_most"].is_null();
                let place = o["label"].as_str().unwrap().rsplit(", ").next().unwrap();
                assert!(
                    !advised || place == faster,
                    "advised {place}, measured {faster}"
                );
            }
        }
    }

    sb.assert_tmp_empty();
}

#[test]
fn nginx_with_sendfile_one_entry_per_connection_and_placement_only_as_measured() {
    nginx_serves_a_download_loop("on");
}

#[test]
fn nginx_without_sendfile_shows_the_files_reads() {
    nginx_serves_a_download_loop("off");
}

// ---- socat ----

const CLIENT: &str = r#"
import socket, sys, time
port = int(sys.argv[1])
for _ in range(200):
    try:
        s = socket.create_connection(("127.0.0.1", port)); break
    except OSError:
        time.sleep(0.05)
end = time.time() + 3
msg = b"x" * 100
while time.time() < end:
    s.sendall(msg)
    got = b""
    while len(got) < len(msg):
        got += s.recv(4096)
"#;

#[test]
fn a_socat_relay_shows_its_polling_socketpair_failing_and_the_hops_that_move_bytes() {
    if !require(on_path("socat"), "socat")
        || !require(on_path("python3"), "python3")
        || !require(is_root(), "root, for the tracer")
    {
        return;
    }
    let sb = Sandbox::new();
    let dir = sb.dir.path();
    std::fs::write(dir.join("client.py"), CLIENT).unwrap();
    let port = free_port();
    let d = dir.display();
    // An echo (socat EXEC:cat over a unix socket) behind a TCP relay.
    let script = format!(
        "socat UNIX-LISTEN:{d}/echo.sock,fork EXEC:cat & e=$!\n\
         while [ ! -S {d}/echo.sock ]; do sleep 0.02; done\n\
         socat TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:{d}/echo.sock & r=$!\n\
         python3 {d}/client.py {port}\n\
         kill $r $e; wait\n"
    );
    let args = [
        "--alternatives",
        "2",
        "--alternatives-time",
        "6s",
        "--",
        "sh",
        "-c",
        &script,
    ];
    let (d, text, status) = doctor(&sb, &args);
    assert_eq!(status, 0, "{text}");
    let all = channels(&d);
    let polled: Vec<&Value> = all
        .iter()
        .filter(|c| c["process"] == "socat" && c["moved"]["shape"] == "nothing")
        .filter(|c| c["moved"]["failed"].as_u64().unwrap() > 0)
        .collect();
    assert!(!polled.is_empty(), "socat's polled socketpair: {text}");
    for c in &polled {
        let row = &c["calls"][0];
        assert_eq!(row["calls"], 0, "{row}");
        assert_eq!(row["errors"][0][0], "EAGAIN", "{row}");
        let label = c["label"].as_str().unwrap();
        assert!(
            d["alternatives"]
                .as_array()
                .unwrap()
                .iter()
                .all(|a| !a["channel"].as_str().unwrap().ends_with(label)),
            "no alternatives for a channel that moved nothing: {}",
            d["alternatives"]
        );
    }
    assert!(text.contains("moved nothing while traced"), "{text}");
    // The hops that move bytes: the relay's TCP connection and its unix
    // connection to the echo, round trips of 100 B, each with its cost.
    let relay_pid = all
        .iter()
        .find(|c| c["process"] == "socat" && c["channel"]["kind"] == "tcp")
        .map(|c| c["channel"]["pid"].clone())
        .unwrap_or_else(|| panic!("the relay's TCP connection: {text}"));
    let hops: Vec<&Value> = all
        .iter()
        .filter(|c| c["channel"]["pid"] == relay_pid && moved(c, "bytes_in") > 0)
        .collect();
    let kinds: Vec<&str> = hops
        .iter()
        .map(|c| c["channel"]["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"tcp") && kinds.contains(&"unix"),
        "both hops: {kinds:?}"
    );
    for c in &hops {
        assert_eq!(c["moved"]["shape"], "request_response", "{}", c["moved"]);
        assert_eq!(c["moved"]["size"], 100, "{}", c["moved"]);
        for row in c["calls"].as_array().unwrap() {
            if row["calls"].as_u64().unwrap() > 0 {
                assert!(row["median_ns"].as_f64().unwrap() > 0.0, "{row}");
                assert!(row["per_s"].as_f64().unwrap() > 0.0, "{row}");
            }
        }
    }
    sb.assert_tmp_empty();
}

// ---- a CPU-bound pipeline ----

#[test]
fn a_cpu_bound_pipeline_is_not_limited_by_its_transport() {
    if !require(is_root(), "root, for the tracer") {
        return;
    }
    let sb = Sandbox::new();
    let args = ["--", "sh", "-c", "seq 1e7 | sort -n | uniq -c > /dev/null"];
    let (d, text, status) = doctor(&sb, &args);
    assert_eq!(status, 0, "{text}");
    let moving: Vec<&Value> = channels(&d)
        .iter()
        .filter(|c| c["moved"]["shape"] != "nothing")
        .collect();
    let pipes = moving
        .iter()
        .filter(|c| c["channel"]["kind"] == "pipe")
        .count();
    assert!(pipes >= 2, "seq -> sort -> uniq: {text}");
    for c in &moving {
        let at_most = c["ceiling"]["at_most"].as_f64().unwrap();
        assert!(at_most < 1.2, "{}: {}", c["label"], c["ceiling"]);
    }
    assert!(text.contains("No transport would help"), "{text}");
    assert!(
        d["alternatives"].as_array().unwrap().is_empty(),
        "nothing to gain, nothing measured: {}",
        d["alternatives"]
    );
    sb.assert_tmp_empty();
}

// ---- --alternatives-time ----

/// 2 MiB messages echoed over a socketpair, received into one buffer made
/// once: the program's time goes to its calls, so a transport could
/// help. (Joining the parts with `+=` spent over 90% of it in Python's own
/// copies, and doctor rightly measured no alternative.)
const BIG_MESSAGES: &str = r#"
import socket, os, time
N = 2 << 20
a, b = socket.socketpair()
buf = memoryview(bytearray(N))
if os.fork() == 0:
    a.close()
    while True:
        got = 0
        while got < N:
            n = b.recv_into(buf[got:])
            if n == 0:
                os._exit(0)
            got += n
        b.sendall(buf)
b.close()
msg = memoryview(b"y" * N)
end = time.time() + 3
while time.time() < end:
    a.sendall(msg)
    got = 0
    while got < N:
        got += a.recv_into(buf[got:])
a.close()
os.wait()
"#;

#[test]
fn alternatives_of_2_mib_messages_keep_to_the_time_asked() {
    if !require(on_path("python3"), "python3") || !require(is_root(), "root, for the tracer") {
        return;
    }
    let sb = Sandbox::new();
    let script = sb.dir.path().join("big.py");
    std::fs::write(&script, BIG_MESSAGES).unwrap();
    let started = Instant::now();
    let args = [
        "--alternatives",
        "1",
        "--alternatives-time",
        "20s",
        "--",
        "python3",
        script.to_str().unwrap(),
    ];
    let (d, text, status) = doctor(&sb, &args);
    assert_eq!(status, 0, "{text}");
    let all = d["alternatives"].as_array().unwrap();
    assert_eq!(all.len(), 1, "{text}");
    let a = &all[0];
    assert_eq!(a["pattern"]["scenario"], "pingpong", "{}", a["pattern"]);
    let size = a["pattern"]["size"].as_u64().unwrap();
    assert!(
        size >= 64 << 10,
        "messages of up to 2 MiB: {}",
        a["pattern"]
    );
    let spent = a["spent_s"].as_f64().unwrap();
    assert!(spent <= 25.0, "--alternatives-time 20s took {spent:.1} s");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the whole doctor run"
    );
    sb.assert_tmp_empty();
}

// ---- overhead ----

/// The pipeline, timing itself: its wall time in ns goes to `out`.
fn timed_pipeline(out: &Path) -> String {
    format!(
        "a=$(date +%s%N); dd if=/dev/zero bs=64 count=2000000 status=none | cat > /dev/null; \
         b=$(date +%s%N); echo $((b - a)) > {}",
        out.display()
    )
}

fn wall_s(out: &Path) -> f64 {
    let text = std::fs::read_to_string(out).unwrap();
    text.trim().parse::<f64>().unwrap() / 1e9
}

/// The overhead doctor reports is a share of the program's time, with what
/// it was made of; whether it is what the program pays is a timing claim,
/// measured side by side in `benches/doctor_overhead.rs`.
#[test]
fn the_overhead_doctor_reports_is_a_share_with_its_parts() {
    if !require(is_root(), "root, for the tracer") {
        return;
    }
    let sb = Sandbox::new();
    let out = sb.dir.path().join("wall_ns");
    let script = timed_pipeline(&out);
    let (d, text, status) = doctor(&sb, &["--alternatives", "0", "--", "sh", "-c", &script]);
    assert_eq!(status, 0, "{text}");
    assert!(wall_s(&out) > 0.0);
    let overhead = &d["tracer"]["overhead"];
    let cost = overhead["cost"]
        .as_f64()
        .unwrap_or_else(|| panic!("{overhead}"));
    assert!((0.0..1.0).contains(&cost), "{overhead}");
    let (tracer, own) = (
        overhead["tracer"].as_f64().unwrap(),
        overhead["doctor_cpu"].as_f64().unwrap(),
    );
    assert!((cost - (tracer + own)).abs() < 1e-9, "{overhead}");
    let said = format!(
        "the program ran about {:.1}% longer than unwatched",
        cost * 100.0
    );
    assert!(text.contains(&said), "{text}");
    sb.assert_tmp_empty();
}

// ---- how a watch ended ----

#[test]
fn an_early_exit_a_signal_and_a_zombie_are_said_as_they_are() {
    let sb = Sandbox::new();
    let (d, text, status) = doctor(&sb, &["--", "sh", "-c", "kill -TERM $$"]);
    assert_eq!((status, d["signal"].as_i64()), (143, Some(15)), "{text}");
    assert!(text.contains("until it was killed by SIGTERM"), "{text}");
    if is_root() {
        let (d, text, _) = doctor(&sb, &["--", "true"]);
        assert_eq!(d["tracer"]["windows"], 0, "{text}");
        assert!(
            text.contains("before the first traced window opened"),
            "{text}"
        );
    }
    // A child that has exited and is not reaped yet.
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id().to_string();
    let stat = format!("/proc/{pid}/stat");
    let zombie = || {
        let text = std::fs::read_to_string(&stat).unwrap_or_default();
        text.rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'))
    };
    let started = Instant::now();
    while !zombie() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(zombie(), "true exited and waits to be reaped");
    let out = sb.command(&["doctor", "--pid", &pid]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("zombie"), "{err}");
    child.wait().unwrap();
    sb.assert_tmp_empty();
}

#[test]
fn placement_is_advised_only_when_it_won_every_pair_on_the_program() {
    let sb = Sandbox::new();
    let pipeline = "dd if=/dev/zero bs=64 count=200000 status=none | cat > /dev/null";
    let args = [
        "--alternatives",
        "0",
        "--try-placement",
        "3",
        "--",
        "sh",
        "-c",
        pipeline,
    ];
    let (d, text, status) = doctor(&sb, &args);
    assert_eq!(status, 0, "{text}");
    let t = &d["placement"]["Ok"];
    let times = |key: &str| -> Vec<f64> {
        t[key]
            .as_array()
            .unwrap_or_else(|| panic!("{}", d["placement"]))
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (one, spread) = (times("one_cpu_s"), times("as_scheduled_s"));
    assert_eq!((one.len(), spread.len()), (3, 3));
    assert!(one.iter().chain(&spread).all(|s| *s > 0.0));
    let won = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x < y);
    let advised = match (won(&one, &spread), won(&spread, &one)) {
        (true, _) => Some("one-cpu"),
        (_, true) => Some("as-scheduled"),
        _ => None,
    };
    assert_eq!(t["advised"].as_str(), advised, "{}", d["placement"]);
    assert!(text.contains("Placement tried on the program"), "{text}");
    let bad = sb
        .command(&["doctor", "--try-placement", "2", "--pid", "1"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("needs `-- CMD`"));
    sb.assert_tmp_empty();
}
