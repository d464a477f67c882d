//! Malformed control messages, fuzzed with proptest against one running
//! agent: whatever a client sends before or after its hello, the agent
//! answers with one clear `error` line (or, for what happens to be valid,
//! the next step of the protocol) and closes; it never panics or hangs,
//! and afterwards still serves a real run and leaves nothing behind.

mod common;

use common::agent::{Agent, Net, Raw, VERSION};
use common::{results, Sandbox};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The beginnings of every error an agent gives for what a client sent.
const ERRORS: &[&str] = &[
    "malformed control message",
    "malformed request",
    "a control message longer than",
    "a request before the hello",
    "a second hello",
    "protocol version mismatch",
    "message size",
];

/// Sends `lines` (after a hello if `hello`); the agent's first answer to
/// the last of them, retried while the agent is still busy with the
/// previous connection.
fn answer(addr: &str, hello: bool, line: &[u8]) -> (serde_json::Value, Raw) {
    loop {
        let mut raw = Raw::connect(addr);
        if hello {
            let welcome = raw.hello(VERSION, None).reply().expect("a welcome");
            if welcome["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("busy"))
            {
                continue;
            }
            assert_eq!(welcome["type"], "welcome");
        }
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        let reply = raw
            .send(&bytes)
            .reply()
            .expect("an answer, not a silent close");
        if reply["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("busy"))
        {
            continue;
        }
        return (reply, raw);
    }
}

fn assert_clear_error(reply: &serde_json::Value, mut raw: Raw, sent: &[u8]) {
    let message = reply["message"].as_str().unwrap_or("");
    assert_eq!(
        reply["type"],
        "error",
        "{reply} for {:?}",
        String::from_utf8_lossy(sent)
    );
    assert!(
        ERRORS.iter().any(|e| message.starts_with(e)),
        "unclear error {message:?} for {:?}",
        String::from_utf8_lossy(sent)
    );
    assert_eq!(raw.reply(), None, "the agent closes after an error");
}

fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>().prop_filter("one line", |b| *b != b'\n'), 0..200),
        "[{}\\[\\]\":,a-z0-9 -]{0,80}".prop_map(String::into_bytes),
        (any::<u32>(), "[a-z]{0,8}", "[a-z-]{0,10}").prop_map(|(v, t, kind)| {
            serde_json::json!({"type": kind, "version": v, "token": t})
                .to_string()
                .into_bytes()
        }),
        (any::<u64>(), "[a-z-]{0,16}", any::<i64>()).prop_map(|(t, side, n)| {
            let side = serde_json::json!({"side": side, "size": n, "len": n});
            serde_json::json!({"type": "run", "transport": "tcp", "timeout_ms": t, "side": side})
                .to_string()
                .into_bytes()
        }),
    ]
}

#[test]
fn malformed_control_messages_get_a_clear_error_and_no_hang() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &[]);
    // `IOLAB_FUZZ_SECS=N` keeps it going for N seconds; `cargo test` runs
    // one round of 48 cases before and 48 after a hello.
    let secs: u64 = std::env::var("IOLAB_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let mut cases = 0u64;
    loop {
        let mut runner = TestRunner::new(Config {
            cases: 48,
            failure_persistence: None,
            ..Config::default()
        });
        for hello in [false, true] {
            runner
                .run(&garbage(), |line| {
                    let (reply, raw) = answer(&agent.addr, hello, &line);
                    match reply["type"].as_str() {
                        // A hello that happened to be well formed, of this version.
                        Some("welcome") if !hello => {}
                        _ => assert_clear_error(&reply, raw, &line),
                    }
                    Ok(())
                })
                .unwrap();
            cases += 48;
        }
        if std::time::Instant::now() >= deadline {
            break;
        }
    }
    if secs > 0 {
        eprintln!("control protocol fuzz: {cases} cases in {secs} s, no finding");
    }
    let long = vec![b'x'; 70 * 1024];
    let (reply, raw) = answer(&agent.addr, true, &long);
    assert_clear_error(&reply, raw, b"70 KiB of x");
    assert!(reply["message"].as_str().unwrap().contains("65536 bytes"));
    let run = agent.run(
        &sb,
        &[
            "pingpong", "--mech", "tcp", "--param", "count=50", "--repeat", "1",
        ],
    );
    assert_eq!(results(&run)[0]["status"], "ok");
    agent.stop(&sb);
}
