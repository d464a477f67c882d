//! The probe checks of E2 and E6 (port-setup-1ms, spawn-vs-nofile,
//! one-waiter-woken, read-evicts-cache), each run on its own: the calls
//! recorded, the kernel's answers and the figures' counts and structure,
//! never a verdict and no time. A check that needs what this machine
//! lacks (root, a memory cgroup) must be `unsupported` with the reason.

mod common;
use common::observed::{every, figure, names, observations, text};
use common::{require, results, Sandbox};
use serde_json::Value;

/// The one result of running `check` alone, nothing stored.
fn run(check: &str) -> Value {
    let sb = Sandbox::new();
    let param = format!("check={check}");
    let run = sb.run_json(&[
        "run",
        "probe",
        "-p",
        &param,
        "--json",
        "-",
        "--no-store",
        "--quiet",
    ]);
    let res = results(&run);
    assert_eq!(res.len(), 1, "{run}");
    let r = res[0].clone();
    if r["status"] == "ok" {
        let count = r["metrics"]["observations"]["value"].as_f64().unwrap();
        assert_eq!(count as usize, observations(&r).len(), "{r}");
    }
    r
}

/// A timed series `name`: median within its interval, over `runs` runs.
fn check_series(r: &Value, name: &str, runs: f64) {
    let median = figure(r, name, "ns");
    let (lo, hi) = (
        figure(r, &format!("{name}_lo"), "ns"),
        figure(r, &format!("{name}_hi"), "ns"),
    );
    assert!(
        lo > 0.0 && lo <= median && median <= hi,
        "{name}: {lo} {median} {hi}"
    );
    assert_eq!(figure(r, &format!("{name}_runs"), "runs"), runs);
    let over = format!("over {runs} runs");
    assert!(
        text(r, name, "answer").contains(&over),
        "{}",
        text(r, name, "answer")
    );
}

#[test]
fn port_setup_starts_cat_on_two_pipes_and_gets_each_byte_back() {
    let r = run("port-setup-1ms");
    if r["status"] == "unsupported" {
        assert!(r["reason"].as_str().unwrap().contains("/bin/cat"), "{r}");
        require(false, "/bin/cat for port-setup-1ms");
        return;
    }
    assert_eq!(r["status"], "ok", "{r}");
    let series = [
        "port_setup",
        "port_setup_lo",
        "port_setup_hi",
        "port_setup_runs",
        "port_setup_cpu",
        "port_setup_cpu_lo",
        "port_setup_cpu_hi",
        "port_setup_cpu_runs",
    ];
    assert_eq!(names(&r), [&["ports"][..], &series].concat());
    assert_eq!(figure(&r, "ports", "ports"), 20.0);
    assert_eq!(
        text(&r, "ports", "answer"),
        "20 ports, 20 of 20 bytes echoed, each exited 0"
    );
    assert!(text(&r, "ports", "call").starts_with("spawn /bin/cat with stdin and stdout pipes"));
    check_series(&r, "port_setup", 20.0);
    check_series(&r, "port_setup_cpu", 20.0);
    // The per-port values are also metrics, the CPU time the one the claim
    // reads (20 a batch); a port cannot consume more CPU than the two CPUs
    // it may use over its wall time.
    for metric in ["port_setup_ns", "port_setup_cpu_ns"] {
        let reps = r["metrics"][metric]["reps"].as_array().unwrap().len();
        assert!(reps >= 20 && reps.is_multiple_of(20), "{metric}: {reps}");
    }
    let (wall, cpu) = (
        figure(&r, "port_setup", "ns"),
        figure(&r, "port_setup_cpu", "ns"),
    );
    assert!(
        cpu > 0.0 && cpu <= 2.0 * wall,
        "cpu {cpu} ns, wall {wall} ns"
    );
}

#[test]
fn spawn_vs_nofile_closes_up_to_1024_up_to_the_hard_limit_and_by_close_range() {
    let r = run("spawn-vs-nofile");
    let hard = figure(&r, "nofile_hard", "descriptors");
    assert!(text(&r, "nofile_hard", "answer").ends_with(&format!("hard {hard}")));
    if hard <= 1024.0 {
        assert_eq!(r["status"], "unsupported", "{r}");
        assert!(
            r["reason"].as_str().unwrap().contains("hard RLIMIT_NOFILE"),
            "{r}"
        );
        require(false, "a hard RLIMIT_NOFILE above 1024 for spawn-vs-nofile");
        return;
    }
    assert_eq!(r["status"], "ok", "{r}");
    let ways = ["loop_at_1024", "loop_at_hard", "close_range_at_hard"];
    for way in ways {
        check_series(&r, way, 20.0);
    }
    assert!(
        text(&r, "loop_at_1024", "call").contains("close(fd) for fd in 3..1024; exec /bin/true")
    );
    let to_hard = format!("setrlimit(RLIMIT_NOFILE, {hard}); close(fd) for fd in 3..{hard};");
    assert!(text(&r, "loop_at_hard", "call").contains(&to_hard));
    let range = text(&r, "close_range_at_hard", "call");
    assert!(
        range.contains("close_range(3, ~0U, 0); exec /bin/true"),
        "{range}"
    );
    assert_eq!(names(&r).len(), 1 + 4 * ways.len());
}

#[test]
fn one_waiter_counts_the_threads_woken_per_event_in_each_mode() {
    let r = run("one-waiter-woken");
    assert_eq!(r["status"], "ok", "{r}");
    let modes = [
        ("level", "EPOLLIN on one shared epoll fd"),
        ("edge", "EPOLLIN|EPOLLET on one shared epoll fd"),
        (
            "exclusive",
            "EPOLLIN|EPOLLEXCLUSIVE on one epoll fd per thread",
        ),
    ];
    for (mode, how) in modes {
        let rounds = every(&r, &format!("{mode}_wakeups"));
        assert_eq!(rounds.len(), 3, "{mode}");
        for o in rounds {
            let n = o["figure"].as_f64().unwrap();
            assert!((0.0..=4.0).contains(&n) && n.fract() == 0.0, "{o}");
            assert_eq!(o["answer"], format!("{n} of 4 threads woken"), "{o}");
            let call = o["call"].as_str().unwrap();
            assert!(call.starts_with("4 threads in epoll_wait"), "{call}");
            assert!(call.contains(how), "{call}");
        }
    }
    assert_eq!(names(&r).len(), 9);
}

#[test]
fn read_evicts_measures_a_before_and_after_b_in_a_memory_cgroup() {
    let r = run("read-evicts-cache");
    if r["status"] == "unsupported" {
        let why = r["reason"].as_str().unwrap();
        assert!(why.contains("root") || why.contains("memory"), "{why}");
        require(false, &format!("read-evicts-cache: {why}"));
        return;
    }
    assert_eq!(r["status"], "ok", "{r}");
    let made = text(&r, "cgroup", "call");
    let dir = made
        .strip_prefix("mkdir ")
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    assert!(dir.contains("/iolab-probe-"), "{made}");
    assert!(!std::path::Path::new(dir).exists(), "{dir} left behind");
    assert!(text(&r, "cgroup", "answer").ends_with("memory cgroup limited to 64 MiB"));
    let page = rustix::param::page_size() as f64;
    let pages = figure(&r, "a_pages", "pages");
    assert_eq!(pages, (16 << 20) as f64 / page);
    for name in ["a_resident_before", "a_resident_after"] {
        let n = figure(&r, name, "pages");
        assert!((0.0..=pages).contains(&n), "{name} {n}");
        assert_eq!(
            text(&r, name, "answer"),
            format!("{n} of {pages} pages resident")
        );
    }
    let b = figure(&r, "b_resident_after", "pages");
    assert!(
        b <= (64 << 20) as f64 / page,
        "B beyond the limit: {b} pages"
    );
    let peak = figure(&r, "cgroup_peak", "bytes");
    assert!(peak > 0.0 && peak <= (64 << 20) as f64, "{peak}");
}
