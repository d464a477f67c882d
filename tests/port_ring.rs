//! port-ring with echo programs that misbehave: one that changes the data
//! fails its case with the first mismatch, one that does not exist is a
//! usage error before anything runs, one that stops answering fails its
//! case while the run goes on; no echo program or temp file is left. A ring
//! too big for RLIMIT_NOFILE is unsupported with the count it needs.

mod common;
use common::{results, Sandbox};

/// Processes still running whose command line is `argv`, the program
/// compared by file name (iolab starts it by the path it found on PATH).
fn leftover(argv: &[&str]) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let mut words = cmdline.split(|b| *b == 0).filter(|w| !w.is_empty());
            let program = words.next().and_then(|p| p.rsplit(|b| *b == b'/').next());
            program == Some(argv[0].as_bytes()) && words.eq(argv[1..].iter().map(|a| a.as_bytes()))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

fn ring(sb: &Sandbox, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "run",
        "port-ring",
        "-p",
        "relays=3",
        "-p",
        "rings=2",
        "--repeat",
        "1",
        "--json",
        "-",
        "--no-store",
    ];
    args.extend_from_slice(extra);
    sb.run_json(&args)
}

#[test]
fn a_clean_ring_verifies_every_echo_in_each_relay_mode() {
    let sb = Sandbox::new();
    let run = ring(
        &sb,
        &[
            "-p",
            "messages=300",
            "-p",
            "relay=threads,processes",
            "-p",
            "echo=/bin/cat,none",
        ],
    );
    let res = results(&run);
    assert_eq!(res.len(), 4);
    for r in res {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["ok"], true);
        assert_eq!(r["verified"]["messages"], 600, "K x Par echoes");
        for m in [
            "msgs_per_s",
            "us_per_msg",
            "setup_ms_per_port",
            "csw_per_s",
            "csw_per_s_iolab",
            "cpu_user_pct",
            "cpu_sys_pct",
        ] {
            assert!(r["metrics"][m]["value"].is_number(), "{m} in {r}");
        }
    }
    assert_eq!(
        res[0]["case"],
        "relays=3/messages=300/rings=2/echo=/bin/cat/threads"
    );
}

#[test]
fn an_echo_that_changes_the_data_fails_with_the_first_mismatch() {
    let sb = Sandbox::new();
    // tr buffers its output on a pipe: the ring stalls, iolab closes tr's
    // input, tr flushes, and the changed answer is seen.
    let run = ring(&sb, &["-p", "messages=10", "-p", "echo=tr 1 2"]);
    let r = &results(&run)[0];
    assert_eq!(r["status"], "failed");
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.contains("verification failed")
            && reason.contains(r#"wrote "10", the echo returned "20""#),
        "{reason}"
    );
    assert_eq!(r["verified"]["ok"], false);
    assert!(r["metrics"].as_object().unwrap().is_empty());
    assert!(leftover(&["tr", "1", "2"]).is_empty());
}

#[test]
fn an_echo_that_dies_fails_its_case_and_the_run_goes_on() {
    let sb = Sandbox::new();
    let run = ring(
        &sb,
        &[
            "-p",
            "messages=50",
            "-p",
            "relay=processes",
            "-p",
            "echo=head -n 3,/bin/cat",
        ],
    );
    let res = results(&run);
    assert_eq!(res.len(), 2);
    assert_eq!(res[0]["status"], "failed");
    let reason = res[0]["reason"].as_str().unwrap();
    assert!(reason.contains("echo program"), "{reason}");
    assert_eq!(res[1]["status"], "ok");
    assert_eq!(res[1]["verified"]["messages"], 100);
    assert!(leftover(&["head", "-n", "3"]).is_empty());
}

#[test]
fn a_missing_echo_program_is_a_usage_error_before_anything_runs() {
    let sb = Sandbox::new();
    let out = sb
        .iolab(&["run", "port-ring", "-p", "echo=no-such-echo-iolab --flag"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'no-such-echo-iolab --flag' for echo: program 'no-such-echo-iolab' was not found"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert!(!sb.db().exists());
    sb.assert_tmp_empty();
}

/// Rings of 3 relays, one ring and twenty, threads and processes; `echo`
/// distinct per test, so its leftovers are told apart.
fn big_and_small_rings(echo: &str) -> Vec<&str> {
    vec![
        "run",
        "port-ring",
        "-p",
        "relays=3",
        "-p",
        "rings=1,20",
        "-p",
        "messages=50",
        "-p",
        echo,
        "-p",
        "relay=threads,processes",
        "--repeat",
        "1",
        "--json",
        "-",
        "--no-store",
    ]
}

/// The number after `needs` in an unsupported reason.
fn needed(reason: &str) -> u64 {
    let after = reason.split("needs ").nth(1).expect("needs N");
    after.split(' ').next().unwrap().parse().expect("a count")
}

#[test]
fn a_ring_beyond_the_hard_descriptor_limit_is_unsupported_with_what_it_needs() {
    let sb = Sandbox::new();
    let run = sb.under_ulimit("-n 64", &big_and_small_rings("echo=cat -u"));
    let res = results(&run);
    assert_eq!(res.len(), 4);
    for r in res {
        let case = r["case"].as_str().unwrap();
        if case.contains("rings=1/") {
            assert_eq!(r["status"], "ok", "{r}");
            assert_eq!(r["verified"]["messages"], 50);
            continue;
        }
        assert_eq!(r["status"], "unsupported", "{r}");
        let reason = r["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("rings=20 needs ")
                && reason.contains(
                    "above the hard RLIMIT_NOFILE of 64; the largest rings that fits is "
                ),
            "{reason}"
        );
        // 3 relays per ring: their links and echo pipes, and their status
        // pipes (one end in processes mode, both in threads mode).
        let per_relay = if case.ends_with("processes") { 5 } else { 6 };
        assert!(needed(reason) > 20 * 3 * per_relay, "{reason}");
    }
    assert!(leftover(&["cat", "-u"]).is_empty());
}

#[test]
fn a_low_soft_descriptor_limit_is_raised_for_a_ring_that_needs_more() {
    let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile).maximum;
    if !common::require(
        hard.is_none_or(|h| h >= 1024),
        "a hard RLIMIT_NOFILE of at least 1024",
    ) {
        return;
    }
    let sb = Sandbox::new();
    let run = sb.under_ulimit("-S -n 64", &big_and_small_rings("echo=cat -u -u"));
    let res = results(&run);
    assert_eq!(res.len(), 4);
    for r in res {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["ok"], true);
    }
    assert_eq!(res[2]["verified"]["messages"], 1000, "K x Par echoes");
    assert!(leftover(&["cat", "-u", "-u"]).is_empty());
}

/// Under `ulimit -n 64` threads-mode rings were refused at 12 relays with
/// "the largest relays that fits is 11", yet 10 and 11 then failed with
/// EMFILE: the count a refusal names now runs.
#[test]
fn the_largest_ring_a_refusal_names_runs() {
    let sb = Sandbox::new();
    for relay in ["relay=threads", "relay=processes"] {
        let args = |relays: &str| -> Vec<String> {
            let fixed = [
                "run",
                "port-ring",
                "-p",
                "rings=1",
                "-p",
                "messages=50",
                "-p",
                relay,
            ];
            let more = ["--repeat", "1", "--json", "-", "--no-store", "-p"];
            let all = fixed.iter().chain(&more).map(|a| a.to_string());
            all.chain([format!("relays={relays}")]).collect()
        };
        let run_with = |relays: &str| {
            let owned = args(relays);
            let words: Vec<&str> = owned.iter().map(String::as_str).collect();
            sb.under_ulimit("-n 64", &words)
        };
        let run = run_with("30");
        let reason = results(&run)[0]["reason"].as_str().unwrap().to_string();
        let largest = reason
            .split("the largest relays that fits is ")
            .nth(1)
            .unwrap_or_else(|| panic!("{reason}"));
        let run = run_with(largest);
        let r = &results(&run)[0];
        assert_eq!(r["status"], "ok", "{relay} relays={largest}: {r}");
        assert_eq!(r["verified"]["messages"], 50, "{r}");
    }
}
