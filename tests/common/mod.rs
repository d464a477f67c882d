//! Shared by the integration tests: an `iolab` command confined to a fresh
//! directory (its own TMPDIR and data home), and checks that a run left
//! nothing behind.

#![allow(dead_code)]

pub mod agent;
pub mod mech;
pub mod net;
pub mod observed;

use assert_cmd::Command;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Sandbox { dir }
    }

    pub fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("data/iolab/results.db")
    }

    /// `iolab ARGS` with TMPDIR and XDG_DATA_HOME inside the sandbox.
    /// `iolab ARGS` as a std Command in this sandbox, for a test that needs
    /// its pid or gives it a stdout of its own.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"));
        cmd.args(args)
            .env("TMPDIR", self.tmp())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env_remove("CI");
        cmd
    }

    /// `iolab ARGS` started in the background, its output discarded.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        let mut cmd = self.command(args);
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        cmd.spawn().unwrap()
    }

    pub fn iolab(&self, args: &[&str]) -> Command {
        let mut cmd = Command::cargo_bin("iolab").unwrap();
        cmd.args(args)
            .env("TMPDIR", self.tmp())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env_remove("CI");
        cmd
    }

    /// What `iolab ARGS`, which must succeed, printed on stdout.
    pub fn stdout(&self, args: &[&str]) -> String {
        stdout(self.iolab(args))
    }

    /// Runs `iolab ARGS` (which must print JSON on stdout and exit with
    /// the status its results call for: `run_exit_status`), checks that
    /// nothing was left in TMPDIR, and returns the JSON.
    pub fn run_json(&self, args: &[&str]) -> serde_json::Value {
        let run = run_output(&self.iolab(args).output().unwrap());
        self.assert_tmp_empty();
        run
    }

    /// Nothing of a run's temp dirs or FIFOs remains.
    pub fn assert_tmp_empty(&self) {
        let left: Vec<_> = std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
    }
}

impl Sandbox {
    /// The command `iolab ARGS` under the shell's `ulimit LIMIT`, in the
    /// sandbox.
    pub fn ulimited(&self, limit: &str, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit {limit} && exec \"$0\" \"$@\""))
            .arg(assert_cmd::cargo::cargo_bin("iolab"))
            .args(args)
            .env("TMPDIR", self.tmp())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env_remove("CI");
        cmd
    }

    /// `iolab ARGS` under the shell's `ulimit LIMIT`; it must print JSON,
    /// exit as its results call for and leave nothing in TMPDIR.
    pub fn under_ulimit(&self, limit: &str, args: &[&str]) -> serde_json::Value {
        let out = self.ulimited(limit, args).output().unwrap();
        let run = run_output(&out);
        self.assert_tmp_empty();
        run
    }

    /// Runs `iolab ARGS`, which must fail with exit 2; returns its stderr.
    pub fn usage_error(&self, args: &[&str]) -> String {
        let out = self
            .iolab(args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl Sandbox {
    /// Runs `iolab ARGS` (JSON on stdout, at least a page of it) into a
    /// pipe of one page, which holds iolab once every case has ended and
    /// its JSON comes out; returns the JSON and iolab's child processes at
    /// that moment. Fails if no output comes within `limit` (a hang guard,
    /// not a timing claim), or if anything is left in TMPDIR.
    pub fn run_json_held(&self, args: &[&str], limit: Duration) -> (serde_json::Value, Vec<u32>) {
        use rustix::event::{poll, PollFd, PollFlags};
        let (rx, tx) = rustix::pipe::pipe().unwrap();
        let page = rustix::pipe::fcntl_setpipe_size(&tx, 4096).unwrap();
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
            .args(args)
            .env("TMPDIR", self.tmp())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env_remove("CI")
            .stdout(std::process::Stdio::from(tx))
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let timeout = rustix::time::Timespec::try_from(limit).unwrap();
        let mut fds = [PollFd::new(&rx, PollFlags::IN)];
        if poll(&mut fds, Some(&timeout)).unwrap() == 0 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("iolab {args:?} printed nothing within {limit:?}: a hang");
        }
        let children = children_of(child.id());
        let mut out = Vec::new();
        std::fs::File::from(rx).read_to_end(&mut out).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(
            status.code(),
            Some(run_exit_status(&json(&out))),
            "iolab {args:?}"
        );
        assert!(
            out.len() > page,
            "{} bytes of output fit the pipe of {page}: iolab was not held",
            out.len()
        );
        self.assert_tmp_empty();
        (json(&out), children)
    }

    /// Runs `iolab RUN --repeat 1 --fault FAULT --no-store --json -` held
    /// as `run_json_held` does (a minute at most), with a test-only fault
    /// that ends every case at once: asserts that no child process is left
    /// and that every case failed for `reason` with no metrics; returns the
    /// run's JSON.
    pub fn run_failing_at_once(
        &self,
        run: &[&str],
        fault: &str,
        reason: &str,
    ) -> serde_json::Value {
        let tail = [
            "--repeat",
            "1",
            "--fault",
            fault,
            "--no-store",
            "--json",
            "-",
        ];
        let args = [run, &tail[..]].concat();
        let (out, left) = self.run_json_held(&args, Duration::from_secs(60));
        assert_eq!(left, Vec::<u32>::new(), "processes left after the cases");
        for r in results(&out) {
            assert_eq!(r["status"], "failed", "{r}");
            assert_eq!(r["reason"], reason);
            assert!(r["metrics"].as_object().unwrap().is_empty());
        }
        out
    }
}

/// What a command, which must succeed, printed on stdout.
pub fn stdout(mut cmd: impl std::borrow::BorrowMut<Command>) -> String {
    let out = cmd.borrow_mut().assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// Child processes of `pid` (all its threads' children), from /proc.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut all = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return all;
    };
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        all.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    all
}

/// True while `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

/// How many tracefs mounts this process sees.
pub fn tracefs_mounts() -> usize {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    mounts.lines().filter(|l| l.contains(" tracefs ")).count()
}

/// How long a tracefs mount may take to go before it counts as left.
const TRACEFS_SETTLE: Duration = Duration::from_secs(5);

/// Asserts that no tracefs mount was added to the `before` counted. Where
/// none is mounted, every iolab that reads the tracepoints mounts one for a
/// moment, and the other tests of the binary run theirs at once: a count
/// may catch their mount (at either end), so only a mount beyond `before`
/// still there after `TRACEFS_SETTLE` was left behind.
pub fn assert_no_tracefs_mount_added(before: usize) {
    let deadline = std::time::Instant::now() + TRACEFS_SETTLE;
    while tracefs_mounts() > before && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        tracefs_mounts() <= before,
        "a tracefs mount was left behind: {} where {before} were before",
        tracefs_mounts()
    );
}

/// The exit status `iolab run` owes a run without `--fail-on-unsupported`:
/// 1 when a case failed, else 0.
pub fn run_exit_status(run: &serde_json::Value) -> i32 {
    i32::from(results(run).iter().any(|r| r["status"] == "failed"))
}

/// The JSON an `iolab run` printed on stdout, once its exit status is
/// checked against its results (and stderr shown when not).
pub fn run_output(out: &std::process::Output) -> serde_json::Value {
    let run = json(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(run_exit_status(&run)),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    run
}

/// The JSON a run printed on stdout.
pub fn json(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(output)))
}

/// `iolab run` of pingpong over a pipe with both sides on one CPU, then
/// `more`: the real run most tests make.
pub fn pipe_pingpong<'a>(more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "pingpong",
        "--mech",
        "pipe",
        "--placement",
        "same-cpu",
    ];
    args.extend(more);
    args
}

/// The reason of a run's second case, unsupported, after its first ran:
/// a sweep's value past a limit after one within it.
pub fn reason_past_the_limit(run: &serde_json::Value) -> &str {
    let rs = results(run);
    assert_eq!(rs[0]["status"], "ok", "{}", rs[0]);
    assert_eq!(rs[1]["status"], "unsupported");
    rs[1]["reason"].as_str().unwrap()
}

pub fn results(run: &serde_json::Value) -> &Vec<serde_json::Value> {
    run["results"].as_array().expect("results is an array")
}

pub fn exists(path: &Path) -> bool {
    path.exists()
}

/// Every claim id in the first column of docs/claims.md's tables (a cell
/// may name several, e.g. "E2-port-tens-of-us, E2-ring-csw-bound").
pub fn claims_md_ids() -> Vec<String> {
    let mut ids = Vec::new();
    for line in CLAIMS_MD.lines().filter(|l| l.starts_with("| E")) {
        let cell = line.split('|').nth(1).unwrap_or_default();
        ids.extend(cell.split(',').map(|id| id.trim().to_string()));
    }
    ids
}

/// The project's list of every testable claim of the seeds.
pub const CLAIMS_MD: &str = include_str!("../../docs/claims.md");

/// Whether a test's requirement beyond Rust (chromium, root, perf, ...) is
/// met. When it is not, the test prints `skipped: <what>` and returns false
/// so the caller returns early, unless `IOLAB_STRICT_TESTS=1` (set by
/// `.ci/run`), which makes the missing requirement a failure.
pub fn require(available: bool, what: &str) -> bool {
    if available {
        return true;
    }
    if std::env::var("IOLAB_STRICT_TESTS").as_deref() == Ok("1") {
        panic!("missing requirement (IOLAB_STRICT_TESTS=1): {what}");
    }
    // Straight to stderr, past the test harness's capture of print!, so a
    // plain `cargo test` shows what was skipped and why.
    let _ = writeln!(std::io::stderr(), "skipped: {what}");
    false
}

/// True when the tests run as root.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The first of `programs` found as a file in a directory of PATH.
pub fn find_program(programs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| programs.iter().map(move |p| dir.join(p)))
        .find(|p| p.is_file())
}

/// Whether `program` is on PATH.
pub fn on_path(program: &str) -> bool {
    find_program(&[program]).is_some()
}

/// A result that came back `unsupported` because something beyond Rust is
/// missing (an io_uring, a kernel module, ...): `require` with its reason,
/// so it skips (true) unless IOLAB_STRICT_TESTS=1, where it fails.
pub fn skip_unsupported(result: &serde_json::Value, what: &str) -> bool {
    if result["status"] != "unsupported" {
        return false;
    }
    let why = result["reason"].as_str().unwrap_or("no reason given");
    !require(false, &format!("{what} ({}: {why})", result["case"]))
}

/// An `io-uring` case (poller or copier) that came back unsupported, i.e.
/// io_uring is disabled or blocked here: skipped via `skip_unsupported`.
pub fn io_uring_unsupported(result: &serde_json::Value) -> bool {
    let params = &result["params"];
    (params["poller"] == "io-uring" || params["copier"] == "io-uring")
        && skip_unsupported(result, "needs io_uring")
}
