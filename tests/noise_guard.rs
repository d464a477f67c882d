//! The noise guard sees a CPU hog: a busy loop pinned to the CPU a
//! same-cpu case runs on grades the result noisy or disturbed, with the
//! other load as a cause, in the JSON, the table and the HTML report; the
//! hog is killed at the end and nothing is left behind.

mod common;
use common::{alive, pipe_pingpong, results, Sandbox};
use std::process::{Child, Command, Stdio};

/// A busy loop on one CPU, killed and reaped when dropped (also when an
/// assertion fails).
struct Hog(Child);

impl Hog {
    fn start(cpu: usize) -> Hog {
        let child = Command::new("taskset")
            .args(["-c", &cpu.to_string(), "sh", "-c", "while :; do :; done"])
            .stdin(Stdio::null())
            .spawn()
            .expect("taskset starts");
        Hog(child)
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The first CPU this process may run on: the one same-cpu picks.
fn first_allowed_cpu() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap();
    let first = list.trim().split([',', '-']).next().unwrap();
    first.parse().unwrap()
}

#[test]
fn a_cpu_hog_on_the_measured_cpu_grades_the_result() {
    if !common::on_path("taskset") {
        eprintln!("skipped: no taskset to pin the hog");
        return;
    }
    let sb = Sandbox::new();
    let cpu = first_allowed_cpu();
    let hog = Hog::start(cpu);
    let pid = hog.0.id();
    let json = sb.dir.path().join("run.json");
    let args = pipe_pingpong(&[
        "--mode",
        "threads",
        "--param",
        "count=50000",
        "--repeat",
        "3",
        "--precision",
        "off",
        "--json",
        json.to_str().unwrap(),
    ]);
    let out = sb
        .iolab(&args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    drop(hog);
    assert!(!alive(pid), "the hog {pid} is still alive");
    sb.assert_tmp_empty();

    let run = common::json(&std::fs::read(&json).unwrap());
    let r = &results(&run)[0];
    assert_eq!(r["sides"][0]["cpus"][0].as_u64(), Some(cpu as u64), "{r}");
    let noise = &r["noise"];
    let grade = noise["grade"].as_str().unwrap();
    assert!(grade == "noisy" || grade == "disturbed", "{noise}");
    let causes: Vec<&str> = noise["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        causes.iter().any(|c| c.starts_with("other load")),
        "{noise}"
    );
    assert!(noise["other_load_pct"].as_f64().unwrap() >= 10.0, "{noise}");
    assert_eq!(noise["migrated"], false);

    let table = String::from_utf8_lossy(&out);
    // One line per scenario: the grades and the most frequent cause.
    let line = table
        .lines()
        .find(|l| l.starts_with("  noise: "))
        .expect("a noise line");
    assert!(line.contains(&format!("1 {grade}")), "{line}");
    assert!(line.contains("other load"), "{line}");

    let html = sb.dir.path().join("report.html");
    sb.iolab(&["report", "latest", "--html", html.to_str().unwrap()])
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    let label = format!("{grade}: {}", causes.join(", "));
    assert!(page.contains(&label), "no {label:?} in the report");
}
