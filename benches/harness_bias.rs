//! What iolab's harness adds to a same-CPU round trip, against the plainest
//! C loop of the same mechanism (`benches/c/rtt_loop.c`: two processes on
//! one CPU, nothing checked, nothing recorded per trip). Issue 55 asks for
//! each ratio within 0.98-1.02, or the difference named with its cause
//! (docs/measuring.md, "The harness's own cost"). For each mechanism,
//! PAIRS interleaved pairs (each order in turn) of `iolab run pingpong
//! --placement same-cpu` and the C loop on the CPU iolab chose, both the
//! median of 5 repetitions' mean round trips; the median ratio and its
//! range are printed. With `--variants`, two builds of the C loop that
//! each add one thing iolab does (`-DBOOKKEEPING`: the per-trip clock
//! read, histogram record and sequence check; `-DTHREE_PROCESSES`: both
//! sides forked from an unpinned parent that waits) run in the same
//! rotation, each held to the plain loop. Needs a C compiler (`cc`).
//!
//! With `--together` (needs `perf`, `taskset` and root) each pair runs
//! iolab and the C loop at once on that CPU instead, and compares their
//! CPU time per round trip and its user-mode share (`together`).
//!
//! `cargo bench --bench harness_bias [-- PAIRS] [--variants | --together]`

mod common;
#[path = "harness_bias/together.rs"]
mod together;

use common::median;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iolab");
const MECHS: [&str; 4] = ["pipe", "eventfd", "unix-stream", "udp"];
const COUNT: &str = "20000";
const REPS: &str = "5";

/// The C loop's builds besides the plain one, by the name printed.
const VARIANTS: [(&str, &str); 2] = [
    ("C+bookkeeping", "-DBOOKKEEPING"),
    ("C 3 processes", "-DTHREE_PROCESSES"),
];

/// Where the plain C loop sits among the contenders: every ratio is to it.
const PLAIN: usize = 1;

/// One contender: iolab, or a build of the C loop.
enum Contender {
    Iolab,
    C(PathBuf),
}

fn main() {
    let pairs = common::pairs(10);
    let variants = std::env::args().any(|a| a == "--variants");
    let dir = tempfile::tempdir().expect("a scratch directory");
    let mut contenders = vec![
        ("iolab", Contender::Iolab),
        ("C loop", Contender::C(compile(dir.path(), "plain", None))),
    ];
    if std::env::args().any(|a| a == "--together") {
        return run_together(dir.path(), &contenders[PLAIN].1, pairs);
    }
    if variants {
        for (name, flag) in VARIANTS {
            contenders.push((name, Contender::C(compile(dir.path(), name, Some(flag)))));
        }
    }
    for mech in MECHS {
        // A first run, not counted, says which CPU iolab places both on.
        let cpu = iolab_rtt(dir.path(), mech).1;
        let mut rtts = vec![Vec::new(); contenders.len()];
        for pair in 0..pairs {
            // Each contender leads in turn, so none always follows another.
            for k in 0..contenders.len() {
                let i = (pair + k) % contenders.len();
                let rtt = match &contenders[i].1 {
                    Contender::Iolab => iolab_rtt(dir.path(), mech).0,
                    Contender::C(build) => c_rtt(build, mech, cpu),
                };
                rtts[i].push(rtt);
            }
        }
        let plain = rtts[PLAIN].clone();
        for (i, (name, _)) in contenders.iter().enumerate().filter(|(i, _)| *i != PLAIN) {
            let mut ratios: Vec<f64> = rtts[i].iter().zip(&plain).map(|(a, b)| a / b).collect();
            let (r, a, b) = (
                median(&mut ratios),
                median(&mut rtts[i].clone()),
                median(&mut plain.clone()),
            );
            println!(
                "{mech:12} same-cpu: {name} {a:.0} ns, C loop {b:.0} ns, {name}/C {r:.3} \
                 (median of {pairs} pairs, {:.3}-{:.3})",
                ratios[0],
                ratios[pairs - 1]
            );
        }
    }
}

/// Each mechanism's pairs run together (`together`): the ratio of iolab's
/// CPU time per round trip to the C loop's, and each one's user-mode share.
fn run_together(dir: &Path, plain: &Contender, pairs: usize) {
    let Contender::C(build) = plain else {
        unreachable!("the plain contender is a C loop")
    };
    let count: u64 = COUNT.parse().unwrap();
    let trips = count * REPS.parse::<u64>().unwrap() + count / 10;
    let data = dir.join("perf.data");
    for mech in MECHS {
        let cpu = iolab_rtt(dir, mech).1;
        let runs: Vec<together::Together> = (0..pairs)
            .map(|_| {
                let iolab = iolab_command(dir, mech, &dir.join("together.json"));
                together::run(iolab, c_command(build, mech, cpu), cpu, trips, &data)
            })
            .collect();
        let column = |f: &dyn Fn(&together::Together) -> f64| -> Vec<f64> {
            let mut values: Vec<f64> = runs.iter().map(f).collect();
            values.sort_by(f64::total_cmp);
            values
        };
        let ratios = column(&|t| t.ns_per_trip[0] / t.ns_per_trip[1]);
        let (ours, theirs) = (column(&|t| t.user_share[0]), column(&|t| t.user_share[1]));
        println!(
            "{mech:12} same-cpu together: iolab/C CPU per round trip {:.3} (median of {pairs} \
             pairs, {:.3}-{:.3}); user mode iolab {:.1}%, C loop {:.1}%",
            median(&mut ratios.clone()),
            ratios[0],
            ratios[pairs - 1],
            100.0 * median(&mut ours.clone()),
            100.0 * median(&mut theirs.clone()),
        );
    }
}

/// The C loop, built into `dir` as `name` with `flag`.
fn compile(dir: &Path, name: &str, flag: Option<&str>) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/c/rtt_loop.c");
    let out = dir.join(name.replace([' ', '+'], "_"));
    let built = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&out)
        .args(flag)
        .arg(&source)
        .status();
    assert!(
        built.is_ok_and(|s| s.success()),
        "cc could not build {}",
        source.display()
    );
    out
}

/// iolab's same-CPU round trip of `mech` in ns, and the CPU it ran on.
fn iolab_rtt(dir: &Path, mech: &str) -> (f64, usize) {
    let json = dir.join("run.json");
    let status = iolab_command(dir, mech, &json).status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "iolab run pingpong --mech {mech} failed"
    );
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let result = &run["results"][0];
    let ns = result["metrics"]["rtt_ns"]["value"]
        .as_f64()
        .expect("rtt_ns");
    let cpu = result["sides"][0]["cpus"][0].as_u64().unwrap_or(0) as usize;
    (ns, cpu)
}

/// `iolab run pingpong --placement same-cpu` of `mech`, its result to `json`.
fn iolab_command(dir: &Path, mech: &str, json: &Path) -> Command {
    let mut iolab = Command::new(BIN);
    iolab
        .env("XDG_DATA_HOME", dir.join("data"))
        .args(["run", "pingpong", "--mech", mech, "--placement", "same-cpu"])
        .args(["--mode", "processes", "-p", "size=1", "-p"])
        .arg(format!("count={COUNT}"))
        .args([
            "--repeat",
            REPS,
            "--precision",
            "off",
            "--no-store",
            "--quiet",
        ])
        .arg("--json")
        .arg(json);
    iolab
}

/// The C loop's round trip of `mech` in ns on `cpu`.
fn c_rtt(c_loop: &Path, mech: &str, cpu: usize) -> f64 {
    let out = c_command(c_loop, mech, cpu).output().expect("the C loop");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("ns")
}

/// The C loop of `mech` on `cpu`, as many round trips as iolab's run.
fn c_command(c_loop: &Path, mech: &str, cpu: usize) -> Command {
    let mut c = Command::new(c_loop);
    c.args([mech, "1", COUNT, REPS, &cpu.to_string()]);
    c
}
