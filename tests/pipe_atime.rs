//! pipe-atime reports both variants for both pipe types, verified, with the
//! kernel's answer to O_NOATIME; `--profile` attaches a profile with
//! samples to every case (where perf_event_open is allowed; elsewhere the
//! profile says why not, and the sample check is skipped unless strict).

mod common;
use common::{results, Sandbox};

#[test]
fn both_variants_and_pipe_types_run_verified_with_a_profile() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "pipe-atime",
        "-p",
        "count=20000",
        "--repeat",
        "2",
        "--profile",
        "--json",
        "-",
        "--no-store",
    ]);
    let res = results(&run);
    let cases: Vec<&str> = res.iter().map(|r| r["case"].as_str().unwrap()).collect();
    assert_eq!(
        cases,
        [
            "default/anon",
            "default/fifo",
            "noatime/anon",
            "noatime/fifo"
        ]
    );
    let refused = res
        .iter()
        .find_map(|r| r["profile"]["note"].as_str())
        .filter(|note| note.starts_with("profiling not possible"));
    let profiled = common::require(
        refused.is_none(),
        &format!(
            "--profile needs perf_event_open with kernel samples (root or \
             perf_event_paranoid <= 1): {}",
            refused.unwrap_or_default()
        ),
    );
    for r in res {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["messages"], 2 * 20001);
        assert_eq!(
            r["metrics"]["ns_per_msg"]["reps"].as_array().unwrap().len(),
            2
        );
        let flag = r["metrics"]["noatime_accepted"]["value"].as_f64().unwrap();
        if r["params"]["variant"] == "default" {
            assert_eq!(flag, 0.0);
        }
        let p = &r["profile"];
        assert!(p["method"].as_str().unwrap().contains("cpu-clock"), "{p}");
        if profiled {
            assert!(p["samples"].as_u64().unwrap() > 0, "{p}");
        } else {
            assert_eq!(p["samples"], 0, "{p}");
            assert!(
                p["note"].as_str().unwrap().contains("perf_event_paranoid="),
                "{p}"
            );
        }
    }
    let verdicts: Vec<&str> = run["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["text"].as_str().unwrap())
        .collect();
    for pipe in ["anon", "fifo"] {
        let kernel_line = format!("{pipe}: O_NOATIME ");
        assert!(
            verdicts.iter().any(|v| v.starts_with(&kernel_line)),
            "{verdicts:?}"
        );
    }
    // Which variant is faster is E1-noatime-faster's rule's to say.
    let judged = verdicts
        .iter()
        .filter(|v| v.contains("(as E1-noatime-faster judges it): "));
    assert_eq!(judged.count(), 1, "{verdicts:?}");
}
