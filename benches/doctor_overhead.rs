//! What `iolab doctor` (default options) costs the program it watches,
//! against what it says it costs (issue 51: a median ratio of at most 1.05,
//! doctor's own figure within 2 points of it). The program is
//! `dd if=/dev/zero bs=64 count=2000000 | cat >/dev/null`, timing its own
//! whole-process wall time; 10 pairs with and without doctor, interleaved,
//! each order in turn. The spread of the program alone is printed beside:
//! a host busy with other work moves the program more than the few percent
//! judged here, and then the pairs cannot tell. Needs root (the tracer).
//!
//! `cargo bench --bench doctor_overhead [-- PAIRS]`

mod common;

use common::median;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_iolab");

fn main() {
    let pairs = common::pairs(10);
    let dir = tempfile::tempdir().expect("a scratch directory");
    let out = dir.path().join("wall_ns");
    let json = dir.path().join("diagnosis.json");
    let script = format!(
        "a=$(date +%s%N); dd if=/dev/zero bs=64 count=2000000 status=none | cat > /dev/null; \
         b=$(date +%s%N); echo $((b - a)) > {}",
        out.display()
    );
    let (mut ratios, mut said, mut alone) = (Vec::new(), Vec::new(), Vec::new());
    for pair in 0..pairs {
        let plain = || {
            let ok = Command::new("sh").arg("-c").arg(&script).status();
            assert!(ok.is_ok_and(|s| s.success()), "the pipeline failed");
            wall_s(&out)
        };
        let watched = || {
            let status = Command::new(BIN)
                .env("XDG_DATA_HOME", dir.path().join("data"))
                .args(["doctor", "--alternatives", "0", "--json"])
                .arg(&json)
                .args(["--", "sh", "-c", &script])
                .stdout(std::process::Stdio::null())
                .status();
            assert!(status.is_ok_and(|s| s.success()), "doctor failed");
            (wall_s(&out), reported_cost(&json))
        };
        let (without, (with, cost)) = if pair % 2 == 0 {
            (plain(), watched())
        } else {
            let w = watched();
            (plain(), w)
        };
        println!(
            "pair {pair}: alone {without:.3} s, watched {with:.3} s ({:.3}x), doctor said {:.1}%",
            with / without,
            cost * 100.0
        );
        ratios.push(with / without);
        said.push(cost);
        alone.push(without);
    }
    let (ratio, cost, program) = (median(&mut ratios), median(&mut said), median(&mut alone));
    println!(
        "dd | cat under doctor: {ratio:.3}x its wall time alone (median of {pairs} pairs, \
         {:.3}-{:.3}); doctor said {:.1}% (median); the program alone {program:.3} s \
         ({:.3}-{:.3})",
        ratios[0],
        ratios[pairs - 1],
        cost * 100.0,
        alone[0],
        alone[pairs - 1],
    );
}

fn wall_s(out: &Path) -> f64 {
    let text = std::fs::read_to_string(out).expect("the pipeline's wall time");
    text.trim().parse::<f64>().expect("a number of ns") / 1e9
}

fn reported_cost(json: &Path) -> f64 {
    let text = std::fs::read(json).expect("doctor's JSON");
    let d: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
    d["tracer"]["overhead"]["cost"]
        .as_f64()
        .unwrap_or_else(|| panic!("no overhead cost in {}", d["tracer"]))
}
