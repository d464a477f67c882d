//! What a run could not clean up (SIGKILL) is swept by the next `iolab run`:
//! only iolab's own temp dirs and network namespaces whose process is gone,
//! only the current user's, each named on stderr. And a TMPDIR without room
//! for a test file makes the cases that need one `unsupported`, naming the
//! directory and the sizes, while the rest runs.

mod common;
use common::{results, Sandbox};
use rustix::process::{kill_process, Pid, Signal};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Every run sweeps the host's network namespaces as root, so the tests of
/// this file run one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A PID no process has: a child that has exited and been reaped.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// A short run that needs no file; returns its stderr.
fn quick_run(sb: &Sandbox) -> String {
    let out = sb
        .iolab(&[
            "run",
            "pingpong",
            "--mech",
            "pipe",
            "--mode",
            "threads",
            "--placement",
            "same-cpu",
            "--param",
            "count=300",
            "--repeat",
            "1",
            "--no-store",
        ])
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    String::from_utf8_lossy(&out).into_owned()
}

fn removed_line(what: &str, pid: u32) -> String {
    format!("removed stale {what}, left by iolab process {pid}, which is gone\n")
}

#[test]
fn a_run_removes_only_stale_iolab_dirs_and_names_them() {
    let _serial = serial();
    let sb = Sandbox::new();
    let dead = dead_pid();
    let stale = sb.tmp().join(format!("iolab-{dead}-abc"));
    std::fs::create_dir_all(stale.join("case-0")).unwrap();
    let fifo = stale.join("case-0/fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let kept = [
        format!("iolab-{}-live", std::process::id()),
        format!("other-{dead}-abc"),
        "iolab-Xy12zQ".to_string(),
    ];
    for name in &kept {
        std::fs::create_dir(sb.tmp().join(name)).unwrap();
    }
    let stderr = quick_run(&sb);
    let line = removed_line(&stale.display().to_string(), dead);
    assert_eq!(stderr.matches("removed stale").count(), 1, "{stderr}");
    assert!(stderr.contains(&line), "{stderr}");
    assert!(!stale.exists(), "the stale dir is still there");
    let mut left = names_in(&sb.tmp());
    left.sort();
    let mut expected = kept.to_vec();
    expected.sort();
    assert_eq!(left, expected, "the run's own dir is gone, the rest stays");
}

#[test]
fn a_stale_dir_of_another_user_stays() {
    if !common::require(common::is_root(), "needs root (chown to another user)") {
        return;
    }
    let _serial = serial();
    let sb = Sandbox::new();
    let dead = dead_pid();
    let foreign = sb.tmp().join(format!("iolab-{dead}-abc"));
    let own = sb.tmp().join(format!("iolab-{dead}-def"));
    for dir in [&foreign, &own] {
        std::fs::create_dir(dir).unwrap();
    }
    std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).unwrap();
    let stderr = quick_run(&sb);
    assert_eq!(stderr.matches("removed stale").count(), 1, "{stderr}");
    assert!(!own.exists(), "the sweep did not run");
    assert!(foreign.exists(), "another user's dir was removed");
}

fn names_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect()
}

/// `TMPDIR/iolab-<pid>-*/case-0/<fifo>` once the run has made it.
fn fifo_of(tmp: &Path, pid: u32) -> Option<PathBuf> {
    let prefix = format!("iolab-{pid}-");
    let dir = names_in(tmp).into_iter().find(|n| n.starts_with(&prefix))?;
    let case = tmp.join(dir).join("case-0");
    std::fs::read_dir(case)
        .ok()?
        .flatten()
        .find(|e| e.file_type().is_ok_and(|t| t.is_fifo()))
        .map(|e| e.path())
}

#[test]
fn a_sigkilled_run_is_swept_by_the_next_run() {
    let _serial = serial();
    let sb = Sandbox::new();
    let mut child = sb.spawn(&[
        "run",
        "pipe-atime",
        "--no-store",
        "--repeat=1",
        "--param=pipe=fifo",
        "--param=variant=default",
        "--param=count=1000M",
    ]);
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(20);
    let fifo = loop {
        if let Some(fifo) = fifo_of(&sb.tmp(), pid) {
            break fifo;
        }
        assert!(Instant::now() < deadline, "the run made no FIFO");
        std::thread::sleep(Duration::from_millis(20));
    };
    kill_process(Pid::from_raw(pid as i32).unwrap(), Signal::KILL).unwrap();
    child.wait().unwrap();
    assert!(fifo.exists(), "SIGKILL left nothing to sweep");
    let dir = fifo.parent().unwrap().parent().unwrap();
    let stderr = quick_run(&sb);
    let line = removed_line(&dir.display().to_string(), pid);
    assert!(stderr.contains(&line), "{stderr}");
    sb.assert_tmp_empty();
}

/// Deletes a network namespace when dropped, also when the test fails.
struct Netns(String);

impl Netns {
    fn add(name: String) -> Netns {
        let ok = Command::new("ip").args(["netns", "add", &name]).status();
        assert!(ok.unwrap().success(), "ip netns add {name}");
        Netns(name)
    }

    fn exists(&self) -> bool {
        Path::new("/var/run/netns").join(&self.0).exists()
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "del", &self.0])
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
fn a_stale_network_namespace_is_swept() {
    let has_ip = Command::new("ip").arg("-V").output().is_ok();
    if !common::require(common::is_root() && has_ip, "needs root and iproute2") {
        return;
    }
    let _serial = serial();
    let sb = Sandbox::new();
    let dead = dead_pid();
    let stale = Netns::add(format!("iolab-{dead}-x"));
    let live = Netns::add(format!("iolab-{}-y", std::process::id()));
    let stderr = quick_run(&sb);
    let line = removed_line(&format!("network namespace {}", stale.0), dead);
    assert!(stderr.contains(&line), "{stderr}");
    assert!(!stale.exists(), "the stale namespace is still there");
    assert!(live.exists(), "a live process's namespace was removed");
}

/// A tmpfs mounted on a directory, unmounted when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_tmpdir_makes_file_cases_unsupported_and_the_rest_runs() {
    if !common::require(common::is_root(), "needs root (mounts a 2 MiB tmpfs)") {
        return;
    }
    let _serial = serial();
    let sb = Sandbox::new();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(sb.tmp())
        .status()
        .is_ok_and(|s| s.success());
    if !common::require(mounted, "cannot mount a tmpfs") {
        return;
    }
    let _mount = Mounted(sb.tmp());
    let run = run_json(
        &sb,
        &[
            "devnull",
            "--param",
            "file-size=4M",
            "--param",
            "copier=read-write",
        ],
    );
    let rs = results(&run);
    assert!(!rs.is_empty());
    let tmp = format!("needs 4 MiB in {}/iolab-", sb.tmp().display());
    for r in rs {
        assert_eq!(r["status"], "unsupported", "{r}");
        let why = r["reason"].as_str().unwrap();
        assert!(why.starts_with(&tmp), "{why}");
        assert!(why.contains("/case-"), "{why}");
        assert!(why.ends_with(", 2 MiB free"), "{why}");
    }
    let run = run_json(
        &sb,
        &["pingpong", "--mech", "pipe,fifo", "--param", "count=300"],
    );
    let rs = results(&run);
    assert_eq!(rs.len(), 2 * 2, "2 mechanisms x 2 placements");
    for r in rs {
        assert_eq!(r["status"], "ok", "{r}");
    }
}

fn run_json(sb: &Sandbox, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["run", "--no-store", "--repeat", "1", "--json", "-"];
    all.extend_from_slice(args);
    sb.run_json(&all)
}
