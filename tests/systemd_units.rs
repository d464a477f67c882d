//! `contrib/systemd/`: the fleet host's service and timer are what
//! `systemd-analyze verify` accepts without a word, rate 4.0 or lower in
//! `systemd-analyze security`, run the quick suite at low priority with
//! the fleet store and its password on no command line, start at a time
//! of their own that stays the same night to night, and lay out the
//! textfile where Debian's node_exporter, running as its own user, reads
//! it. What is missing (systemd-analyze, node_exporter, the prometheus
//! user) skips its test, saying why (`require`).

mod common;

use common::net::{free_port, http_get};
use common::{find_program, is_root, require};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const UNITS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/contrib/systemd");

/// Where the service expects iolab (`cargo install --root /usr/local`).
const INSTALLED: &str = "/usr/local/bin/iolab";

/// The highest `systemd-analyze security` exposure the service may have.
const MAX_EXPOSURE: f64 = 4.0;

fn unit(name: &str) -> String {
    std::fs::read_to_string(Path::new(UNITS).join(name)).unwrap()
}

/// Every value of `key=` in a unit, in order.
fn settings<'a>(unit: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("{key}=");
    unit.lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .collect()
}

fn exec_start(service: &str) -> Vec<&str> {
    let exec = settings(service, "ExecStart");
    assert_eq!(exec.len(), 1, "{service}");
    exec[0].split_whitespace().collect()
}

#[test]
fn the_service_runs_the_quick_suite_at_low_priority_with_its_secrets_off_the_command_line() {
    let service = unit("iolab-fleet.service");
    let lines: Vec<&str> = service.lines().collect();
    for setting in [
        "Type=oneshot",
        "Nice=19",
        "IOSchedulingClass=idle",
        "CPUSchedulingPolicy=batch",
        "EnvironmentFile=/etc/iolab/fleet.env",
        "LoadCredential=pgpass:/etc/iolab/pgpass",
        "Environment=PGPASSFILE=%d/pgpass",
        "DynamicUser=yes",
    ] {
        assert!(lines.contains(&setting), "no {setting}:\n{service}");
    }
    let words = exec_start(&service);
    assert_eq!(words[..2], [INSTALLED, "run"], "{words:?}");
    // No target on the command line: the fleet store comes from
    // IOLAB_PUSH in the environment file, nothing is substituted in.
    assert!(!words.contains(&"--push"), "{words:?}");
    assert!(words.iter().all(|w| !w.contains('$')), "{words:?}");
    let timer = unit("iolab-fleet.timer");
    for setting in [
        "OnCalendar=*-*-* 03:00:00",
        "RandomizedDelaySec=1h",
        "FixedRandomDelay=yes",
        "Persistent=true",
        "WantedBy=timers.target",
    ] {
        assert!(
            timer.lines().any(|l| l == setting),
            "no {setting}:\n{timer}"
        );
    }
}

/// The units in a temp dir, the service's ExecStart running this build's
/// iolab (verify checks that the program exists), everything else as
/// shipped.
fn units_here(dir: &Path) {
    let iolab = assert_cmd::cargo::cargo_bin("iolab");
    let service = unit("iolab-fleet.service");
    let exec = format!("ExecStart={INSTALLED} ");
    assert_eq!(service.matches(&exec).count(), 1, "{service}");
    let service = service.replace(&exec, &format!("ExecStart={} ", iolab.display()));
    std::fs::write(dir.join("iolab-fleet.service"), service).unwrap();
    std::fs::write(dir.join("iolab-fleet.timer"), unit("iolab-fleet.timer")).unwrap();
}

fn systemd_analyze() -> Option<PathBuf> {
    let found = find_program(&["systemd-analyze"]);
    require(
        found.is_some(),
        "systemd-analyze, to check contrib/systemd (Debian: apt-get install systemd)",
    );
    found
}

fn said(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn systemd_analyze_verify_accepts_the_units() {
    let Some(analyze) = systemd_analyze() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    units_here(dir.path());
    // Its Documentation= names iolab's man pages: `iolab man --dir` makes
    // them, where man (if any) finds them.
    let man = dir.path().join("man");
    let made = Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["man", "--dir"])
        .arg(man.join("man1"))
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let mut verify = Command::new(analyze);
    verify
        .current_dir(dir.path())
        .env("MANPATH", &man)
        .arg("verify");
    if find_program(&["man"]).is_none() {
        verify.arg("--man=no");
    }
    let out = verify
        .args(["iolab-fleet.service", "iolab-fleet.timer"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "systemd-analyze verify: {}",
        said(&out)
    );
    assert!(
        said(&out).trim().is_empty(),
        "systemd-analyze verify warned: {}",
        said(&out)
    );
}

#[test]
fn systemd_analyze_security_rates_the_service_4_or_lower() {
    let Some(analyze) = systemd_analyze() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    units_here(dir.path());
    let out = Command::new(analyze)
        .current_dir(dir.path())
        .args(["security", "--offline=true", "--no-pager"])
        .arg("./iolab-fleet.service")
        .output()
        .unwrap();
    let text = said(&out);
    let exposure: f64 = text
        .lines()
        .find_map(|l| {
            l.split("Overall exposure level for iolab-fleet.service: ")
                .nth(1)
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no overall exposure level:\n{text}"));
    assert!(exposure <= MAX_EXPOSURE, "exposure {exposure}:\n{text}");
}

/// A host's root in a temp dir, laid out as the units make it.
struct Scratch {
    root: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let root = tempfile::Builder::new()
            .prefix("iolab-root-")
            .tempdir()
            .unwrap();
        // Users other than root walk into it, as into `/`.
        chmod(root.path(), 0o755);
        let scratch = Scratch { root };
        let tmp = scratch.path("/tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        chmod(&tmp, 0o1777);
        std::fs::create_dir_all(scratch.path("/etc")).unwrap();
        scratch
    }

    /// `absolute` inside the scratch root.
    fn path(&self, absolute: &str) -> PathBuf {
        self.root.path().join(absolute.trim_start_matches('/'))
    }

    /// The gid of `group` in the scratch root's /etc/group.
    fn gid(&self, group: &str) -> u32 {
        let groups = std::fs::read_to_string(self.path("/etc/group")).unwrap();
        let line = groups
            .lines()
            .find(|l| l.starts_with(&format!("{group}:")))
            .unwrap_or_else(|| panic!("no group {group}:\n{groups}"));
        line.split(':').nth(2).unwrap().parse().unwrap()
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `program ARGS` (a systemd tool), which must succeed without a warning.
fn tool(program: &str, args: &[&str]) {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success() && !said(&out).contains("Failed"),
        "{program} {args:?}: {}",
        said(&out)
    );
}

/// What the service needs that a test machine may lack.
fn have_the_host_tools() -> Option<PathBuf> {
    let exporter = find_program(&["prometheus-node-exporter", "node_exporter"]);
    let tools = ["systemd-sysusers", "systemd-tmpfiles", "setpriv"]
        .iter()
        .all(|t| find_program(&[t]).is_some());
    let prometheus = std::fs::read_to_string("/etc/passwd")
        .is_ok_and(|p| p.lines().any(|l| l.starts_with("prometheus:")));
    let ok = require(
        exporter.is_some() && prometheus,
        "Debian's prometheus-node-exporter and its user prometheus \
         (apt-get install prometheus-node-exporter)",
    ) && require(
        tools,
        "systemd-sysusers, systemd-tmpfiles and setpriv (Debian: systemd, util-linux)",
    ) && require(
        is_root(),
        "root, to run iolab and node_exporter as their users",
    );
    exporter.filter(|_| ok)
}

/// A uid of systemd's range for dynamic users, as `DynamicUser=yes` picks one.
const DYNAMIC_UID: u32 = 61_234;

/// The service's `iolab run`, with its options, as its dynamic user in its
/// groups and umask, on one small case: its exit status and stderr.
fn run_as_the_service(scratch: &Scratch, groups: &str) -> (bool, String) {
    let service = unit("iolab-fleet.service");
    let umask = settings(&service, "UMask")[0];
    let installed = scratch.path(INSTALLED);
    let mut args: Vec<String> = exec_start(&service)[1..]
        .iter()
        .map(|w| match w.starts_with('/') {
            true => scratch.path(w).display().to_string(),
            false => w.to_string(),
        })
        .collect();
    // One small case instead of the quick suite.
    let case = common::pipe_pingpong(&["--quick", "--no-store"]);
    args.extend(case[1..].iter().map(|w| w.to_string()));
    let out = Command::new("setpriv")
        .arg(format!("--reuid={DYNAMIC_UID}"))
        .arg(format!("--regid={DYNAMIC_UID}"))
        .arg(format!("--groups={groups}"))
        .args([
            "--",
            "sh",
            "-c",
            &format!("umask {umask} && exec \"$0\" \"$@\""),
        ])
        .arg(&installed)
        .args(&args)
        .env("TMPDIR", scratch.path("/tmp"))
        .env("HOME", scratch.path("/tmp"))
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    (out.status.success(), said(&out))
}

/// node_exporter, killed when dropped.
struct Exporter(Child);

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// node_exporter's textfile series, scraped once they show the file.
fn scrape_as_prometheus(exporter: &Path, textfiles: &Path) -> String {
    let port = free_port();
    let _running = Exporter(
        Command::new("setpriv")
            .args([
                "--reuid=prometheus",
                "--regid=prometheus",
                "--init-groups",
                "--",
            ])
            .arg(exporter)
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .args(["--collector.disable-defaults", "--collector.textfile"])
            .arg(format!(
                "--collector.textfile.directory={}",
                textfiles.display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let body = http_get(port, "/metrics");
        if let Some(body) = body.filter(|b| b.contains("node_textfile_scrape_error")) {
            return body;
        }
        assert!(Instant::now() < deadline, "node_exporter never answered");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn node_exporter_as_prometheus_reads_the_textfile_the_units_lay_out() {
    let Some(exporter) = have_the_host_tools() else {
        return;
    };
    let scratch = Scratch::new();
    // What Debian's prometheus-node-exporter package leaves: its textfile
    // directory, root's, mode 0755.
    let service = unit("iolab-fleet.service");
    let textfiles = settings(&service, "ReadWritePaths")[0];
    std::fs::create_dir_all(scratch.path(textfiles)).unwrap();
    chmod(&scratch.path(textfiles), 0o755);
    let installed = scratch.path(INSTALLED);
    std::fs::create_dir_all(installed.parent().unwrap()).unwrap();
    std::fs::copy(assert_cmd::cargo::cargo_bin("iolab"), &installed).unwrap();
    let group = settings(&service, "SupplementaryGroups")[0];
    // Before the units' sysusers and tmpfiles: the service cannot write there.
    let (ok, said) = run_as_the_service(&scratch, &DYNAMIC_UID.to_string());
    assert!(!ok, "wrote into root's directory without the ACL: {said}");
    let root = format!("--root={}", scratch.root.path().display());
    let sysusers = Path::new(UNITS).join("iolab-fleet.sysusers");
    tool("systemd-sysusers", &[&root, sysusers.to_str().unwrap()]);
    let gid = scratch.gid(group);
    // The host's name service knows nothing of the scratch root's group:
    // its ACL entry names the gid systemd-sysusers gave it there.
    let tmpfiles =
        unit("iolab-fleet.tmpfiles").replace(&format!("group:{group}:"), &format!("group:{gid}:"));
    let conf = scratch.path("/etc/tmpfiles.d/iolab-fleet.conf");
    std::fs::create_dir_all(conf.parent().unwrap()).unwrap();
    std::fs::write(&conf, tmpfiles).unwrap();
    tool(
        "systemd-tmpfiles",
        &[&root, "--create", conf.to_str().unwrap()],
    );
    let (ok, said) = run_as_the_service(&scratch, &format!("{DYNAMIC_UID},{gid}"));
    assert!(ok, "{said}");
    let prom = exec_start(&service)
        .iter()
        .skip_while(|w| **w != "--openmetrics")
        .nth(1)
        .map(|p| scratch.path(p))
        .expect("an --openmetrics FILE");
    let meta = std::fs::metadata(&prom).unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&meta), DYNAMIC_UID);
    let metrics = scrape_as_prometheus(&exporter, &scratch.path(textfiles));
    let lines: Vec<&str> = metrics.lines().collect();
    assert!(lines.contains(&"node_textfile_scrape_error 0"), "{metrics}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("iolab_pingpong_rtt_seconds{") && l.contains("case=")),
        "{metrics}"
    );
    let mtime = format!("node_textfile_mtime_seconds{{file=\"{}\"}}", prom.display());
    assert!(lines.iter().any(|l| l.starts_with(&mtime)), "{metrics}");
}
