//! `file-transfer` and `devnull` through the binary: every copier and TCP
//! option verified over loopback, the emulated 100 Mbit link set up and
//! torn down (also on Ctrl-C), corrupted data failing the case, bad sizes
//! refused, and mmap-write into /dev/null flagged as not really moved.

mod common;
use common::{results, Sandbox};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn run_json(sb: &Sandbox, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run", "--no-store", "--repeat", "1", "--json", "-"];
    all.extend_from_slice(args);
    common::run_output(&sb.iolab(&all).output().unwrap())
}

/// An emulated link needs root (network namespaces) and iproute2's `ip`
/// and `tc`: without them the test is skipped, or fails when strict.
fn can_emulate_links() -> bool {
    common::require(
        common::is_root(),
        "needs root (link= creates network namespaces)",
    ) && common::require(
        common::on_path("ip") && common::on_path("tc"),
        "needs iproute2's ip and tc on PATH (link= sets up veth and tbf with them)",
    )
}

/// iolab's namespaces (`iolab-PID-N-s|r`) whose process is gone, and any
/// `iolab` link in the host's namespace.
fn leftovers(pid: Option<u32>) -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let mut left: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| name.starts_with("iolab-"))
        .filter(|name| {
            let owner: Option<u32> = name.split('-').nth(1).and_then(|p| p.parse().ok());
            match pid {
                Some(pid) => owner == Some(pid),
                None => {
                    owner.is_some_and(|p| !std::path::Path::new(&format!("/proc/{p}")).exists())
                }
            }
        })
        .map(str::to_string)
        .collect();
    let links = Command::new("ip").args(["-o", "link"]).output().unwrap();
    left.extend(
        String::from_utf8_lossy(&links.stdout)
            .lines()
            .filter(|l| l.contains("iolab"))
            .map(str::to_string),
    );
    left
}

#[test]
fn every_copier_and_tcp_option_arrives_verified_over_loopback() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "file-transfer",
            "--param",
            "file-size=256k",
            "--param",
            "buf=4096",
        ],
    );
    let rs = results(&run);
    assert_eq!(rs.len(), 5 * 3, "5 copiers x 3 tcp options");
    for r in rs.iter().filter(|r| !common::io_uring_unsupported(r)) {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["ok"], true, "{r}");
        assert_eq!(r["verified"]["bytes"], 256 * 1024, "{r}");
        for m in [
            "wall_s",
            "bytes_per_s",
            "sender_user_s",
            "sender_sys_s",
            "receiver_cpu_s",
            "syscalls",
        ] {
            assert!(r["metrics"][m]["value"].is_number(), "{m} missing in {r}");
        }
        assert!(r["params"]["filesystem"].is_string(), "{r}");
        assert_eq!(r["sides"].as_array().unwrap().len(), 2);
    }
    let sendfile = rs
        .iter()
        .find(|r| r["params"]["copier"] == "sendfile")
        .unwrap();
    assert_eq!(
        sendfile["metrics"]["syscalls"]["value"], 1.0,
        "one sendfile call"
    );
    assert!(
        sendfile["params"].get("buf").is_none(),
        "sendfile ignores buf"
    );
    assert!(run["verdicts"][0]["text"]
        .as_str()
        .unwrap()
        .contains("vs read-write buf=4096: "));
    sb.assert_tmp_empty();
}

#[test]
fn copy_file_range_to_a_socket_is_unsupported_with_the_reason() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "file-transfer",
            "--param",
            "file-size=64k",
            "--param",
            "copier=copy-file-range",
            "--param",
            "tcp=plain",
        ],
    );
    let r = &results(&run)[0];
    assert_eq!(r["status"], "unsupported");
    assert!(
        r["reason"].as_str().unwrap().contains("not to a socket"),
        "{r}"
    );
}

#[test]
fn emulated_link_is_verified_and_torn_down() {
    if !can_emulate_links() {
        return;
    }
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "file-transfer",
            "--param",
            "link=100mbit",
            "--param",
            "file-size=256k",
            "--param",
            "copier=read-write,sendfile,splice",
            "--param",
            "buf=4096",
            "--param",
            "tcp=plain",
        ],
    );
    assert_eq!(leftovers(None), Vec::<String>::new());
    sb.assert_tmp_empty();
    let rs = results(&run);
    let emulated = |r| !common::skip_unsupported(r, "needs an emulated link (veth, tbf)");
    if !rs.iter().all(emulated) {
        return;
    }
    assert_eq!(rs.len(), 3, "three copiers");
    for r in rs {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["bytes"], 256 * 1024, "{r}");
        assert_eq!(r["params"]["link"], "100mbit");
    }
}

#[test]
fn ctrl_c_mid_transfer_removes_the_namespaces() {
    if !can_emulate_links() {
        return;
    }
    let sb = Sandbox::new();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "file-transfer",
            "--no-store",
            "--repeat",
            "1",
            "--param",
            "link=10mbit",
            "--param",
            "file-size=64M",
            "--param",
            "copier=sendfile",
            "--param",
            "tcp=plain",
        ])
        .env("TMPDIR", sb.tmp())
        .env("XDG_DATA_HOME", sb.dir.path().join("data"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(30);
    while leftovers(Some(pid)).len() < 2 {
        assert!(Instant::now() < deadline, "the namespaces never appeared");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert_eq!(leftovers(Some(pid)), Vec::<String>::new());
    sb.assert_tmp_empty();
}

#[test]
fn corrupted_data_fails_the_case() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "file-transfer",
            "--fault",
            "corrupt",
            "--param",
            "file-size=128k",
            "--param",
            "copier=read-write,sendfile",
            "--param",
            "buf=4096",
            "--param",
            "tcp=plain",
        ],
    );
    for r in results(&run) {
        assert_eq!(r["status"], "failed", "{r}");
        assert_eq!(r["verified"]["ok"], false, "{r}");
        assert!(
            r["reason"]
                .as_str()
                .unwrap()
                .contains("verification failed: the received bytes hash to"),
            "{r}"
        );
        assert!(r["metrics"].as_object().unwrap().is_empty());
    }
}

#[test]
fn a_size_that_is_not_a_size_is_refused() {
    let sb = Sandbox::new();
    for (scenario, arg, shown) in [
        (
            "file-transfer",
            "file-size=12Q",
            "invalid value '12Q' for file-size: expected a positive byte count",
        ),
        (
            "devnull",
            "file-size=-1",
            "invalid value '-1' for file-size",
        ),
        (
            "devnull",
            "copier=cat",
            "invalid value 'cat' for copier: expected one of read-write, mmap-write",
        ),
    ] {
        let out = sb
            .iolab(&["run", scenario, "--param", arg])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(shown), "{err}");
    }
    sb.assert_tmp_empty();
}

#[test]
fn devnull_flags_mmap_write_and_reports_pages_and_atime() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "devnull",
            "--param",
            "file-size=4M",
            "--param",
            "sink=dev-null",
            "--param",
            "copier=mmap-write,read-write",
            "--param",
            "cache=warm,cold",
        ],
    );
    let rs = results(&run);
    let find = |copier: &str, cache: &str| {
        rs.iter()
            .find(|r| r["params"]["copier"] == copier && r["params"]["cache"] == cache)
            .unwrap()
    };
    let mmap = find("mmap-write", "warm");
    assert_eq!(mmap["status"], "ok", "{mmap}");
    assert_eq!(mmap["flags"][0]["name"], "not_really_moved", "{mmap}");
    assert!(mmap["params"]["atime_mode"].is_string());
    assert!(mmap["metrics"]["atime_changed"]["value"].is_number());
    let (mmap_cold, rw_cold) = (find("mmap-write", "cold"), find("read-write", "cold"));
    if !common::skip_unsupported(
        mmap_cold,
        "cache=cold needs a TMPDIR whose pages can be dropped",
    ) {
        assert_eq!(
            mmap_cold["metrics"]["pages_resident_after"]["value"], 0.0,
            "never read"
        );
        assert_eq!(rw_cold["metrics"]["pages_resident_before"]["value"], 0.0);
        assert_eq!(
            rw_cold["metrics"]["pages_resident_after"]["value"], 1024.0,
            "4M read"
        );
        assert!(rw_cold["flags"].is_null(), "{rw_cold}");
    }
    let table = sb
        .iolab(&[
            "run",
            "--no-store",
            // The median of five: one copy of 4 MiB is over in a
            // millisecond, and a single preemption would hide the flag.
            "--repeat",
            "5",
            "devnull",
            "--param",
            "file-size=4M",
            "--param",
            "sink=dev-null",
            "--param",
            "copier=mmap-write",
            "--param",
            "cache=warm",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8_lossy(&table);
    assert!(table.contains("not really moved"), "{table}");
    assert!(table.contains("not_really_moved: "), "{table}");
    sb.assert_tmp_empty();
}

#[test]
fn devnull_pipe_and_file_sinks_verify_every_copier_that_can() {
    let sb = Sandbox::new();
    let run = run_json(
        &sb,
        &[
            "devnull",
            "--param",
            "file-size=1M",
            "--param",
            "sink=pipe,file",
            "--param",
            "cache=warm",
        ],
    );
    for r in results(&run)
        .iter()
        .filter(|r| !common::io_uring_unsupported(r))
    {
        let unsupported =
            r["params"]["copier"] == "copy-file-range" && r["params"]["sink"] == "pipe";
        let want = if unsupported { "unsupported" } else { "ok" };
        assert_eq!(r["status"], want, "{r}");
        if !unsupported {
            assert_eq!(r["verified"]["bytes"], 1 << 20, "{r}");
        }
    }
    sb.assert_tmp_empty();
}
