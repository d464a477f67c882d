//! What goes wrong between a client and an agent is a clear error or a
//! `failed` case with the reason, within a bounded time, and the run goes
//! on: a wrong token, another protocol version, a busy agent, a silent
//! client, a request past the agent's limits, the agent killed mid-case,
//! the client killed mid-case (the agent serves the next one). Bad options
//! are usage errors.

mod common;

use common::agent::{wait_exit, wait_until, Agent, Net, Raw, BOUND, VERSION};
use common::{alive, results, Sandbox};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Instant;

const SMALL: &[&str] = &[
    "pingpong", "--mech", "tcp", "--param", "count=50", "--repeat", "1",
];

fn reasons(run: &serde_json::Value) -> Vec<String> {
    results(run)
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "failed", "{r}");
            r["reason"].as_str().unwrap().to_string()
        })
        .collect()
}

fn assert_ok(run: &serde_json::Value) {
    for r in results(run) {
        assert_eq!(r["status"], "ok", "{} {}", r["case"], r["reason"]);
    }
}

/// A wrong token once stored a `failed` case per case: an agent that
/// refuses this client is an unusable peer, exit 2 in one line with
/// nothing measured, and the right token is served.
#[test]
fn a_wrong_token_is_refused_before_anything_runs_and_the_right_one_is_served() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &["--token", "s3cret"]);
    let with = |token: Option<&str>| {
        let mut client = agent.client(&sb, &agent.run_args(SMALL));
        client.env_remove("IOLAB_TOKEN").timeout(BOUND);
        if let Some(token) = token {
            client.env("IOLAB_TOKEN", token);
        }
        client.output().unwrap()
    };
    for token in [Some("guess"), None] {
        let out = with(token);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{token:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "error: agent at {}: refused: wrong token",
                agent.addr
            )),
            "{stderr}"
        );
        assert!(out.stdout.is_empty(), "{token:?} measured something");
    }
    let out = with(Some("s3cret"));
    assert_eq!(out.status.code(), Some(0));
    assert_ok(&common::json(&out.stdout));
    agent.stop(&sb);
}

#[test]
fn another_protocol_version_is_refused_by_name() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &[]);
    let mut raw = Raw::connect(&agent.addr);
    let reply = raw.hello(999, None).reply().unwrap();
    assert_eq!(reply["type"], "error");
    assert_eq!(
        reply["message"],
        "protocol version mismatch: the client speaks version 999, this agent 1 \
         (run the same iolab release on both hosts)"
    );
    assert_eq!(raw.reply(), None, "the agent closes after the error");
    serves_then_stops(agent, &sb);
}

/// A second client is told the agent is busy; a run that finds it busy
/// tries again (for up to 20 s, issue 52) and is served once the first
/// client has gone.
#[test]
fn a_busy_agent_says_so_and_serves_the_next_client() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &[]);
    let mut first = Raw::connect(&agent.addr);
    let welcome = first.hello(VERSION, None).reply().unwrap();
    assert_eq!(welcome["type"], "welcome");
    assert!(welcome["capabilities"]
        .as_array()
        .unwrap()
        .contains(&"pingpong/echoer".into()));
    let mut second = Raw::connect(&agent.addr);
    let busy = second.hello(VERSION, None).reply().unwrap();
    assert_eq!(
        busy["message"],
        "busy: this agent is serving another client; try again when it is done"
    );
    let waiting = agent
        .client_std(&sb, &agent.run_args(SMALL))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until(
        || agent.log().matches("refused, busy").count() >= 2,
        "the run to find the agent busy",
    );
    drop(first);
    let out = waiting.wait_with_output().unwrap();
    assert_ok(&common::run_output(&out));
    agent.stop(&sb);
}

#[test]
fn a_silent_client_is_dropped_with_the_reason() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &["--idle-timeout", "1"]);
    let mut raw = Raw::connect(&agent.addr);
    let reply = raw.reply().unwrap();
    assert_eq!(reply["message"], "the client said nothing for 1 s");
    assert_eq!(raw.reply(), None);
    agent.stop(&sb);
}

fn request(side: serde_json::Value) -> Vec<u8> {
    let run =
        serde_json::json!({"type": "run", "transport": "tcp", "timeout_ms": 1000, "side": side});
    format!("{run}\n").into_bytes()
}

#[test]
fn requests_past_the_limits_or_for_other_programs_are_refused() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &[]);
    let sched = serde_json::json!({"warmup": 0, "reps": 1, "count": 1});
    let cases = [
        (
            serde_json::json!({"side": "pingpong-echoer", "size": 1u64 << 40, "sched": sched, "corrupt": false}),
            "message size 1099511627776: expected 1 to 67108864 bytes",
        ),
        (
            serde_json::json!({"side": "stream-receiver", "size": 64, "sched": {"warmup": 0, "reps": 1u64 << 40, "count": 1u64 << 20}}),
            "messages: at most 17179869184",
        ),
        (
            // The product wraps round to 0 in 64 bits: still refused.
            serde_json::json!({"side": "stream-receiver", "size": 64, "sched": {"warmup": 0, "reps": 1u64 << 63, "count": 2}}),
            "messages: at most 17179869184",
        ),
        (
            // A million repetitions once took the agent to 1.2 GB.
            serde_json::json!({"side": "stream-receiver", "size": 64, "sched": {"warmup": 0, "reps": 1_000_000, "count": 1}}),
            "1000000 repetitions: at most 10000",
        ),
        (
            serde_json::json!({"side": "port-ring", "echo": "/bin/sh"}),
            "malformed request: unknown variant `port-ring`",
        ),
    ];
    for (side, expected) in cases {
        let mut raw = Raw::connect(&agent.addr);
        assert_eq!(raw.hello(VERSION, None).reply().unwrap()["type"], "welcome");
        let reply = raw.send(&request(side)).reply().unwrap();
        assert_eq!(reply["type"], "error");
        assert!(
            reply["message"].as_str().unwrap().contains(expected),
            "{reply}"
        );
        assert_eq!(raw.reply(), None);
    }
    assert!(common::children_of(agent.pid()).is_empty(), "no side ran");
    agent.stop(&sb);
}

/// A client that runs one long pingpong case, then a stream case.
fn long_client(agent: &Agent, sb: &Sandbox, json: &Path) -> Child {
    let args = [
        "run",
        "pingpong",
        "stream",
        "--mech",
        "tcp",
        "--param",
        "count=100000000",
        "--param",
        "size=64",
        "--param",
        "bytes=1M",
        "--repeat",
        "1",
        "--peer",
        &agent.addr,
        "--json",
        json.to_str().unwrap(),
        "--no-store",
        "--quiet",
    ];
    let mut cmd = agent.client_std(sb, &args);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    cmd.spawn().unwrap()
}

/// A loopback agent in the middle of `long_client`'s first case: the
/// agent, the run's JSON file, the client and the far side's pid.
fn mid_long_case(sb: &Sandbox) -> (Agent, PathBuf, Child, u32) {
    let agent = Agent::start(sb, Net::Loopback, &[]);
    let json = sb.dir.path().join("run.json");
    let client = long_client(&agent, sb, &json);
    let far = agent.await_far_side();
    (agent, json, client, far)
}

/// Once the agent has stopped the far side `far`, it serves the next
/// client, then stops leaving nothing behind.
fn serves_the_next(agent: Agent, sb: &Sandbox, far: u32) {
    wait_until(|| !alive(far), "the agent to stop the far side");
    serves_then_stops(agent, sb);
}

/// The agent serves a small run, then stops leaving nothing behind.
fn serves_then_stops(agent: Agent, sb: &Sandbox) {
    assert_ok(&agent.run(sb, SMALL));
    agent.stop(sb);
}

fn read_run(json: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

#[test]
fn the_agent_killed_mid_case_fails_it_in_bounded_time_and_the_run_goes_on() {
    let sb = Sandbox::new();
    let (mut agent, json, mut client, far) = mid_long_case(&sb);
    agent.child.kill().unwrap();
    let killed = Instant::now();
    let ended = wait_exit(&mut client, "the client to finish");
    assert_eq!(ended.code(), Some(1), "its cases failed: exit 1");
    assert!(killed.elapsed() < BOUND);
    wait_until(|| !alive(far), "the far side to die with its agent");
    let run = read_run(&json);
    let why = reasons(&run);
    assert_eq!(why.len(), 2, "pingpong's case and stream's: {why:?}");
    assert!(
        why[0].contains("echoer: the agent closed the control connection"),
        "{}",
        why[0]
    );
    assert!(why[1].starts_with("agent at 127.0.0.1:"), "{}", why[1]);
    sb.assert_tmp_empty();
}

#[test]
fn a_link_that_drops_mid_case_fails_it_in_bounded_time() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Veth(None), &[]);
    let json = sb.dir.path().join("run.json");
    let args = [
        "run",
        "pingpong",
        "--mech",
        "tcp",
        "--param",
        "count=100000000",
        "--repeat",
        "1",
        "--peer",
        &agent.addr,
        "--json",
        json.to_str().unwrap(),
        "--no-store",
        "--quiet",
    ];
    let mut client = agent
        .client_std(&sb, &args)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    agent.await_far_side();
    if !agent.drop_link() {
        let _ = client.kill();
        let _ = client.wait();
        return; // on loopback (said so): there is no link to drop
    }
    let ended = wait_exit(&mut client, "the client to finish");
    assert_eq!(ended.code(), Some(1), "its cases failed: exit 1");
    let run = read_run(&json);
    let why = &reasons(&run)[0];
    eprintln!("{why}");
    assert!(why.contains("initiator: "), "{why}");
    assert!(why.contains("echoer: "), "{why}");
    agent.stop(&sb);
}

#[test]
fn a_client_killed_mid_case_leaves_the_agent_serving_the_next() {
    let sb = Sandbox::new();
    let (agent, _json, mut client, far) = mid_long_case(&sb);
    client.kill().unwrap();
    client.wait().unwrap();
    serves_the_next(agent, &sb, far);
}

#[test]
fn ctrl_c_stops_a_remote_case_and_the_agent_stops_its_side() {
    let sb = Sandbox::new();
    let (agent, json, mut client, far) = mid_long_case(&sb);
    let pid = rustix::process::Pid::from_raw(client.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    assert_eq!(
        wait_exit(&mut client, "the client to stop").code(),
        Some(130)
    );
    assert!(!json.exists(), "an interrupted run writes nothing");
    serves_the_next(agent, &sb, far);
}

#[test]
fn once_serves_one_client_then_exits() {
    let sb = Sandbox::new();
    let mut agent = Agent::start(&sb, Net::Loopback, &["--once"]);
    let both: Vec<&str> = SMALL.iter().copied().chain(["--mech", "tcp,udp"]).collect();
    let run = agent.run(&sb, &both);
    assert_eq!(results(&run).len(), 2);
    assert_ok(&run);
    assert!(wait_exit(&mut agent.child, "the agent to exit").success());
}

#[test]
fn bad_agent_and_peer_options_are_usage_errors() {
    let sb = Sandbox::new();
    let cases: &[(&[&str], &str)] = &[
        (&["agent", "--data-ports", "5210-5201"], "invalid --data-ports '5210-5201': expected a port or a range A-B"),
        (&["agent", "--listen", "no such host:x"], "invalid --listen 'no such host:x'"),
        (&["agent", "--idle-timeout", "0"], "invalid --idle-timeout '0': expected whole seconds, 1 to 3600"),
        (&["run", "pingpong", "--mech", "pipe", "--peer", "h"], "--peer cannot carry the mechanism 'pipe' across hosts: expected udp, tcp"),
        (&["run", "limits", "--peer", "h"], "--peer cannot run 'limits' across hosts: expected the scenarios pingpong, stream, file-transfer"),
        (&["run", "pingpong", "--peer-cpu", "1"], "--peer-cpu '1' needs --peer HOST[:PORT]"),
        (&["run", "pingpong", "--peer", "h", "--peer-cpu", "x"], "invalid --peer-cpu 'x'"),
        (&["run", "pingpong", "--peer", "h:0"], "invalid --peer 'h:0': expected HOST or HOST:PORT"),
        (&["run", "pingpong", "--peer", "h", "--explain"], "--explain cannot be used with --peer"),
        (&["run", "file-transfer", "--param", "link=100mbit", "--peer", "h"], "link=100mbit cannot be used with --peer: expected link=loopback"),
        (&["run", "file-transfer", "--param", "sink=file", "--peer", "h"], "sink=file cannot be used with --peer"),
    ];
    for (args, expected) in cases {
        let err = sb.usage_error(args);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    assert!(!sb.db().exists());
}

#[test]
fn sigterm_stops_an_agent_that_waits_on_a_connected_client() {
    let sb = Sandbox::new();
    let mut agent = Agent::start(&sb, Net::Loopback, &["--idle-timeout", "3600"]);
    let mut raw = Raw::connect(&agent.addr);
    assert_eq!(raw.hello(VERSION, None).reply().unwrap()["type"], "welcome");
    let pid = rustix::process::Pid::from_raw(agent.pid() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    assert_eq!(
        wait_exit(&mut agent.child, "the agent to exit").code(),
        Some(143)
    );
    // The session may have said why it ends before the process did.
    if let Some(reply) = raw.reply() {
        assert_eq!(reply["message"], "the agent was stopped");
        assert_eq!(raw.reply(), None);
    }
    sb.assert_tmp_empty();
}

#[test]
fn help_of_agent() {
    let sb = Sandbox::new();
    let out = sb
        .iolab(&["agent", "--help"])
        .env("COLUMNS", "100")
        .assert()
        .success();
    insta::assert_snapshot!(String::from_utf8_lossy(&out.get_output().stdout));
}

/// The agent's resident memory in KiB, from /proc.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The agent's resident memory stays under this while strangers wait.
const RSS_BOUND_KB: u64 = 64 * 1024;

/// 200 connections that say nothing and one that trickles a byte a second
/// take no session: a client with the token is served while they wait,
/// and the agent's memory stays bounded.
#[test]
fn strangers_that_say_nothing_or_trickle_cannot_lock_the_agent_out() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &["--token", "s3cret"]);
    let silent: Vec<Raw> = (0..200).map(|_| Raw::connect(&agent.addr)).collect();
    let mut trickler = Raw::connect(&agent.addr);
    let trickle = std::thread::spawn(move || {
        for byte in b"{\"type\":\"hello\"".iter().take(8) {
            trickler.send(&[*byte]);
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        trickler.reply()
    });
    let with_token: Vec<&str> = SMALL.iter().copied().chain(["--token", "s3cret"]).collect();
    let run = agent.run(&sb, &with_token);
    assert_ok(&run);
    let rss = rss_kb(agent.pid());
    assert!(rss < RSS_BOUND_KB, "agent RSS {rss} KiB with 201 strangers");
    let refused = trickle.join().unwrap().expect("an answer to the trickler");
    let said = refused["message"].as_str().unwrap();
    assert!(said.contains("did not arrive whole within 5 s"), "{said}");
    drop(silent);
    agent.stop(&sb);
}

/// `--once` is spent only by a client that authenticated: bare connects,
/// garbage and wrong tokens before it leave it serving the real client.
#[test]
fn once_survives_bad_connections_and_serves_the_real_client() {
    let sb = Sandbox::new();
    let mut agent = Agent::start(&sb, Net::Loopback, &["--once", "--token", "s3cret"]);
    for i in 0..10 {
        let mut bad = Raw::connect(&agent.addr);
        match i % 3 {
            0 => drop(bad),
            1 => assert!(bad.send(b"garbage\n").reply().is_some()),
            _ => {
                let refused = bad.hello(VERSION, Some("wrong")).reply().unwrap();
                assert!(refused["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("wrong token"));
            }
        }
    }
    let with_token: Vec<&str> = SMALL.iter().copied().chain(["--token", "s3cret"]).collect();
    assert_ok(&agent.run(&sb, &with_token));
    assert!(wait_exit(&mut agent.child, "the agent to exit").success());
}
