//! `iolab run --peer` against an `iolab agent` as the far host: the agent
//! in its own network namespace joined by a veth pair (as root), or on
//! loopback (and the test says so). Every case must be verified, say that
//! it crossed hosts, carry both sides' CPU, and the run the peer's
//! environment; the agent must leave nothing behind.

mod common;

use common::agent::{Agent, Net};
use common::{results, Sandbox};

/// Every result ok, verified, named `...@peer...`, with both sides' CPU.
fn assert_crossed(run: &serde_json::Value, cases: usize, roles: [&str; 2]) {
    let res = results(run);
    assert_eq!(res.len(), cases, "{run:#}");
    for r in res {
        assert_eq!(r["status"], "ok", "{} {}", r["case"], r["reason"]);
        assert_eq!(r["verified"]["ok"], true, "{}", r["case"]);
        assert!(r["verified"]["bytes"].as_u64().unwrap() > 0);
        assert!(
            r["case"].as_str().unwrap().contains("@peer"),
            "{}",
            r["case"]
        );
        assert!(r["params"]["peer"].is_string());
        let sides = r["sides"].as_array().unwrap();
        let got: Vec<&str> = sides.iter().map(|s| s["role"].as_str().unwrap()).collect();
        assert_eq!(got, roles, "{}", r["case"]);
        for s in sides {
            assert!(s["cpu"]["voluntary_csw"].is_u64() && s["cpu"]["user_s"].is_f64());
            assert_eq!(s["cpus"].as_array().unwrap().len().min(1), 1);
        }
    }
    let peer = &run["environment"]["peer"];
    assert!(!peer["kernel"].as_str().unwrap_or("").is_empty(), "{peer}");
    assert!(peer["cpus"].as_u64().unwrap() >= 1);
}

/// Every finding and claim says the far side ran on the peer: mechanisms
/// as `tcp@peer`, never a loopback link, and no claim whose cases did not
/// run (a stream over a peer runs no FIFO on this host).
fn assert_says_peer(run: &serde_json::Value) {
    let verdicts = run["verdicts"].as_array().unwrap();
    for v in verdicts {
        let text = v["text"].as_str().unwrap();
        assert!(!text.contains("loopback"), "{text}");
    }
    for c in run["claims"].as_array().into_iter().flatten() {
        let figure = c["figure"].as_str().unwrap();
        assert!(!figure.contains("loopback"), "{c}");
        assert!(
            !figure.starts_with("no result"),
            "a claim whose cases did not run: {c}"
        );
    }
}

#[test]
fn pingpong_and_stream_over_tcp_and_udp_cross_the_agent_verified() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Veth(None), &[]);
    let pp = agent.run(
        &sb,
        &["pingpong", "--mech", "tcp,udp", "--param", "size=1,1000"]
            .into_iter()
            .chain(["--param", "count=300", "--repeat", "2", "--peer-cpu", "0"])
            .collect::<Vec<_>>(),
    );
    assert_crossed(&pp, 4, ["initiator", "echoer"]);
    assert!(pp["results"][0]["case"]
        .as_str()
        .unwrap()
        .starts_with("tcp@peer/"));
    assert_eq!(pp["results"][0]["params"]["peer_cpu"], 0);
    let st = agent.run(
        &sb,
        &["stream", "--mech", "tcp,udp", "--param", "size=4096"]
            .into_iter()
            .chain(["--param", "bytes=1M", "--repeat", "2", "--mode", "threads"])
            .collect::<Vec<_>>(),
    );
    assert_crossed(&st, 2, ["sender", "receiver"]);
    assert_says_peer(&st);
    let verdicts = st["verdicts"].as_array().unwrap();
    assert!(
        verdicts
            .iter()
            .any(|v| v["text"].as_str().unwrap().contains("tcp@peer")),
        "{verdicts:?}"
    );
    assert!(
        st["claims"].as_array().is_none_or(Vec::is_empty),
        "{}",
        st["claims"]
    );
    // 1 MiB of 4 KiB messages is below the 1024-message floor: a tenth of
    // that warms up, then two repetitions, all counted by the receiver.
    assert_eq!(st["results"][0]["verified"]["messages"], 102 + 2 * 1024);
    agent.stop(&sb);
}

#[test]
fn file_transfer_copiers_cross_a_rate_limited_link_to_the_agent() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Veth(Some("100mbit")), &[]);
    let run = agent.run(
        &sb,
        &[
            "file-transfer",
            "--param",
            "copier=read-write,sendfile,splice",
            "--param",
            "buf=65536",
            "--param",
            "file-size=512K",
            "--param",
            "tcp=plain",
            "--param",
            "cache=warm",
            "--repeat",
            "2",
        ],
    );
    assert_crossed(&run, 3, ["sender", "receiver"]);
    assert_says_peer(&run);
    for r in results(&run) {
        assert_eq!(r["params"]["link"], "peer");
        assert_eq!(r["verified"]["bytes"], 2 * 512 * 1024);
        let case = r["case"].as_str().unwrap();
        assert!(case.ends_with("/discard/@peer"), "{case}");
        assert!(r["metrics"]["sender_cpu_s"].is_object());
    }
    agent.stop(&sb);
}

#[test]
fn a_corrupted_echo_is_caught_across_hosts() {
    let sb = Sandbox::new();
    let agent = Agent::start(&sb, Net::Loopback, &[]);
    let run = agent.run(
        &sb,
        &[
            "pingpong",
            "--mech",
            "tcp",
            "--param",
            "count=100",
            "--repeat",
            "1",
            "--fault",
            "corrupt",
        ],
    );
    let r = &results(&run)[0];
    assert_eq!(r["status"], "failed");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("verification failed"),
        "{r}"
    );
    assert_eq!(r["verified"]["ok"], false);
    agent.stop(&sb);
}
