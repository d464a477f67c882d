//! pipe-atime reports both variants for both pipe types, verified, with the
//! kernel's answer to O_NOATIME; `--profile` attaches a profile to every
//! case (or says why it could not).

mod common;
use common::{results, Sandbox};

#[test]
fn both_variants_and_pipe_types_run_verified_with_a_profile() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "pipe-atime",
        "-p",
        "count=2000",
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
    for r in res {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"]["messages"], 2 * 2001);
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
        assert!(
            p["samples"].as_u64().unwrap() > 0 || p["note"].is_string(),
            "{p}"
        );
    }
    let verdicts = run["verdicts"].as_array().unwrap();
    assert!(verdicts.iter().any(|v| v["text"]
        .as_str()
        .unwrap()
        .starts_with("anon: default/noatime")));
}
