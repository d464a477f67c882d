//! `iolab run seeds --quick` answers every classic claim (each with a
//! verdict and a figure), stores them, and `iolab claims` prints them back;
//! `--quick` on one scenario uses its quick-suite entry.

mod common;
use common::{json, results, Sandbox};

const IDS: [&str; 15] = [
    "E1-noatime-faster",
    "E2-port-tens-of-us",
    "E2-ring-csw-bound",
    "E3-fifo-stalls",
    "E3-udp-no-stall",
    "E3-eventfd-no-stall",
    "E3-hogs-lower-mean",
    "E4-sendfile-no-faster",
    "E4-sendfile-less-cpu",
    "E5-poll-linear",
    "E5-epoll-flat",
    "E5-poll-faster-at-0",
    "E6-devnull-not-read",
    "E6-devnull-atime",
    "E6-events-beat-poll",
];

#[test]
fn seeds_quick_answers_every_claim_and_claims_prints_them() {
    let sb = Sandbox::new();
    let run = sb.run_json(&["run", "seeds", "--quick", "--json", "-"]);
    let claims = run["claims"].as_array().expect("a claims array");
    let ids: Vec<&str> = claims.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, IDS);
    for c in claims {
        let verdict = c["verdict"].as_str().unwrap();
        assert!(
            ["holds", "does not hold", "inconclusive"].contains(&verdict),
            "{c}"
        );
        assert!(!c["figure"].as_str().unwrap().is_empty(), "{c}");
        assert!(!c["original"].as_str().unwrap().is_empty(), "{c}");
    }
    let out = sb.iolab(&["claims", "latest"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("== Claims ==\n"), "{text}");
    for id in IDS {
        assert_eq!(
            text.lines().filter(|l| l.starts_with(id)).count(),
            1,
            "{id}\n{text}"
        );
    }
    assert_eq!(text.matches("original: ").count(), IDS.len(), "{text}");
    let out = sb.iolab(&["claims", "--json", "-"]).assert().success();
    assert_eq!(
        json(&out.get_output().stdout).as_array().unwrap().len(),
        IDS.len()
    );
}

#[test]
fn quick_on_a_scenario_uses_its_quick_entry() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "run",
        "pipe-atime",
        "--quick",
        "--repeat",
        "1",
        "--json",
        "-",
        "--no-store",
    ]);
    let res = results(&run);
    assert_eq!(res.len(), 4);
    for r in res {
        assert_eq!(r["params"]["count"], 50_000, "{r}");
    }
    assert_eq!(run["claims"][0]["id"], "E1-noatime-faster");
}

#[test]
fn a_run_without_claim_results_has_none() {
    let sb = Sandbox::new();
    let run = sb.run_json(&["run", "limits", "-p", "count=1000", "--json", "-"]);
    assert!(run.get("claims").is_none(), "{run}");
    let out = sb.iolab(&["claims"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("answers no claim"), "{text}");
}
