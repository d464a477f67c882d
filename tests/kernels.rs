//! `iolab run probe --quick --kernel K`: the probe suite in guests of
//! Debian's 6.1 and 6.1-rt kernels through virtme-ng (emulated CPUs, to
//! keep CI within minutes), stored per kernel and shown as one matrix of
//! claim x kernel on the terminal and in headless Chromium; and Ctrl-C
//! during a guest (issue 53). Without vng, QEMU, a static busybox or the
//! kernel images, each test skips with the reason (fails under
//! IOLAB_STRICT_TESTS=1).

#[path = "common/browser.rs"]
mod browser;
mod common;

use common::{json, require, Sandbox};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Debian's 6.1 images: (generic, PREEMPT_RT).
fn images() -> Option<(PathBuf, PathBuf)> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/boot")
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("vmlinuz-6.1.")
        })
        .collect();
    found.sort();
    let rt = found
        .iter()
        .find(|p| p.to_string_lossy().ends_with("-rt-amd64"))?
        .clone();
    let plain = found
        .iter()
        .find(|p| p.to_string_lossy().ends_with("-amd64") && !p.to_string_lossy().contains("-rt-"))?
        .clone();
    Some((plain, rt))
}

/// The two images, when everything to boot them is here.
fn guests_or_skip() -> Option<(PathBuf, PathBuf)> {
    let tools = common::on_path("vng") && common::on_path("qemu-system-x86_64");
    let busybox = Path::new("/bin/busybox").exists();
    let why = "needs virtme-ng (pip install virtme-ng), QEMU (apt-get install qemu-system-x86), \
               busybox-static and Debian's 6.1 kernels (apt-get install linux-image-amd64 linux-image-rt-amd64)";
    let found = images().filter(|_| tools && busybox);
    require(
        found.is_some() && common::is_root(),
        &format!("{why}, as root"),
    )
    .then_some(())?;
    found
}

fn claim<'a>(run: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    run["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

#[test]
fn the_probe_suite_under_6_1_and_6_1_rt_marks_the_pipe_timestamps_change() {
    let Some((plain, rt)) = guests_or_skip() else {
        return;
    };
    let sb = Sandbox::new();
    let (plain, rt) = (plain.to_str().unwrap(), rt.to_str().unwrap());
    let out = sb
        .iolab(&[
            "run",
            "probe",
            "--quick",
            "--kernel",
            plain,
            "--kernel",
            rt,
            "--guest-accel",
            "emulated",
        ])
        .timeout(Duration::from_secs(900))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    sb.assert_tmp_empty();
    // Three runs stored, each with its kernel; the guests say how they ran.
    let mut runs = Vec::new();
    for selector in ["latest~2", "latest~1", "latest"] {
        runs.push(json(
            &sb.iolab(&["show", selector, "--json", "-"])
                .output()
                .unwrap()
                .stdout,
        ));
    }
    let host = &runs[0];
    assert!(host["environment"]["guest"].is_null());
    assert!(!host["environment"]["kernel"]
        .as_str()
        .unwrap()
        .starts_with("6.1."));
    for (guest, image) in runs[1..].iter().zip([plain, rt]) {
        let env = &guest["environment"];
        assert_eq!(env["guest"]["image"], image);
        assert_eq!(env["guest"]["accel"], "emulated");
        assert!(
            env["kernel"].as_str().unwrap().starts_with("6.1.0-"),
            "{env}"
        );
        assert_eq!(claim(guest, "E1-pipe-read-atime")["verdict"], "holds");
        // Under emulation no timed claim has a verdict.
        for timed in [
            "E2-spawn-vs-nofile",
            "E5-epoll-ctl-constant",
            "E4-nodelay-beats-cork",
        ] {
            let c = claim(guest, timed);
            assert_eq!(
                (c["verdict"].as_str(), c["not_judged"].as_str()),
                (Some("inconclusive"), Some("emulated CPU")),
                "{timed}"
            );
        }
    }
    assert_eq!(
        claim(host, "E1-pipe-read-atime")["verdict"],
        "does not hold"
    );
    // The matrix: within 100 columns, only the E1 claims turned with the
    // kernel, named by 6.15's commit; E5-fd-limit-memory not a kernel change.
    let matrix = &text[text
        .find("== Claims across 3 kernels ==")
        .expect("the matrix")..];
    for line in matrix.lines() {
        assert!(line.chars().count() <= 100, "{line:?}");
    }
    let row = |id: &str| {
        matrix
            .lines()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("{id}: {text}"))
            .to_string()
    };
    assert!(
        row("E1-pipe-read-atime").ends_with("does not hold*"),
        "{text}"
    );
    assert!(row("E1-writer-mtime").ends_with("does not hold*"), "{text}");
    assert!(!row("E5-fd-limit-memory").contains('*'), "{text}");
    let marked: Vec<String> = matrix
        .lines()
        .filter(|l| l.starts_with("* E"))
        .map(|l| l[2..].split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(marked, ["E1-pipe-read-atime", "E1-writer-mtime"], "{text}");
    let words = matrix.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("Linux 6.15: pipe: don't update {a,c,m}time for anonymous pipes"),
        "{matrix}"
    );

    // The same matrix from the store, and as a page in Chromium.
    let ids: Vec<String> = runs
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_string())
        .collect();
    let html = sb.dir.path().join("kernels.html");
    let mut args = vec!["claims", "--across"];
    args.extend(ids.iter().map(String::as_str));
    args.extend(["--kernels", "--html", html.to_str().unwrap()]);
    let again = sb.stdout(&args);
    assert!(
        again.contains("2 of 19 claims turned with the kernel"),
        "{again}"
    );
    let Some(chromium) = browser::browser_or_skip() else {
        return;
    };
    let dom = browser::dump_dom(&chromium, &html, sb.dir.path());
    assert_eq!(
        dom.matches("<th class=\"kernel\">").count(),
        3,
        "a column per kernel"
    );
    assert_eq!(
        dom.matches("class=\"claim-row\"").count(),
        19,
        "a row per claim"
    );
    assert_eq!(
        dom.matches("turned turned-kernel\"").count(),
        2,
        "two cells turned with the kernel"
    );
    for id in ["E1-pipe-read-atime", "E1-writer-mtime"] {
        let row = &dom[dom.find(&format!("id=\"claim-{id}\"")).unwrap()..];
        let row = &row[..row.find("</tr>").unwrap()];
        assert!(row.contains("turned-kernel"), "{row}");
    }
    let png = sb.dir.path().join("kernels.png");
    browser::screenshot(&chromium, &html, &png, sb.dir.path(), (1600, 1000));
    browser::assert_not_blank(&png, (1600, 1000));
}

/// The pids of every process whose command is `name` and whose ancestors include `pid`.
fn descendants_named(pid: u32, name: &str) -> Vec<u32> {
    let parent = |p: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        stat[stat.rfind(')')? + 2..]
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let comm = |p: u32| std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| comm(*p).trim() == name)
        .filter(|p| {
            let mut at = *p;
            for _ in 0..16 {
                match parent(at) {
                    Some(up) if up == pid => return true,
                    Some(up) if up > 1 => at = up,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

#[test]
fn ctrl_c_during_a_guest_stops_its_qemu_and_leaves_nothing() {
    let Some((plain, _)) = guests_or_skip() else {
        return;
    };
    let sb = Sandbox::new();
    let mut child = sb.spawn(&[
        "run",
        "probe",
        "--quick",
        "--no-store",
        "--kernel",
        plain.to_str().unwrap(),
        "--guest-accel",
        "emulated",
    ]);
    let deadline = Instant::now() + Duration::from_secs(300);
    let qemu = loop {
        let found = descendants_named(child.id(), "qemu-system-x86");
        if let Some(q) = found.first() {
            break *q;
        }
        assert!(Instant::now() < deadline, "no QEMU started");
        assert!(
            child.try_wait().unwrap().is_none(),
            "iolab ended before its guest started"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // Let the guest boot a little, then Ctrl-C.
    std::thread::sleep(Duration::from_secs(5));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!common::alive(qemu), "QEMU {qemu} outlived the run");
    sb.assert_tmp_empty();
}
