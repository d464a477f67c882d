//! `iolab ab A B`: two real cases run as seeded, interleaved rounds; the
//! run carries each case's per-round headlines, their positions in each
//! round's order and the seed, a finding with the paired ratio, and is
//! stored like any run. Bad specs exit 2 in one line with nothing stored.
//! No assertion on how long anything took.

mod common;
use common::{results, Sandbox};

const A: &str = "pingpong --mech pipe --placement same-cpu -p count=300";
const B: &str = "pingpong --mech eventfd --placement same-cpu -p count=300";

fn ab(sb: &Sandbox, more: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "ab",
        A,
        B,
        "--json",
        "-",
        "--min-rounds",
        "9",
        "--max-rounds",
        "12",
    ];
    args.extend(more);
    sb.run_json(&args)
}

#[test]
fn a_comparison_runs_seeded_interleaved_rounds_and_says_what_it_found() {
    let sb = Sandbox::new();
    let run = ab(&sb, &["--seed", "42"]);
    let res = results(&run);
    assert_eq!(res.len(), 2, "{run}");
    let rounds: Vec<&serde_json::Value> = res.iter().map(|r| &r["rounds"]).collect();
    for r in &rounds {
        assert_eq!(r["seed"], 42);
        assert_eq!(r["interleaved"], true);
    }
    let count = rounds[0]["values"].as_array().unwrap().len();
    assert!((9..=12).contains(&count), "{count} rounds");
    assert_eq!(rounds[1]["values"].as_array().unwrap().len(), count);
    // In every round, one case ran first and the other second.
    for i in 0..count {
        let first = |r: &serde_json::Value| r["positions"][i].as_u64().unwrap();
        assert_eq!(first(rounds[0]) + first(rounds[1]), 1, "round {i}");
    }
    let finding = &run["verdicts"][0];
    assert_eq!(finding["id"], "ab");
    let text = finding["text"].as_str().unwrap();
    assert!(
        text.contains("interleaved rounds") && text.contains("(seed 42)"),
        "{text}"
    );
    let figures: Vec<&str> = finding["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        figures,
        ["ratio_b_over_a", "ratio_lo", "ratio_hi", "rounds"]
    );
    let history = sb.iolab(&["history"]).assert().success();
    let listed = String::from_utf8_lossy(&history.get_output().stdout).into_owned();
    assert!(listed.contains("ab pingpong"), "{listed}");
    let show = sb.iolab(&["show", "latest"]).assert().success();
    let shown = String::from_utf8_lossy(&show.get_output().stdout).into_owned();
    assert!(
        shown.contains("interleaved rounds") && shown.contains("(seed 42)"),
        "{shown}"
    );
    let page = sb.tmp().join("ab.html");
    let page_arg = page.to_str().unwrap();
    sb.iolab(&["report", "latest", "--html", page_arg])
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::remove_file(&page).unwrap();
    assert!(
        html.contains("headline per interleaved round"),
        "no rounds chart"
    );
    assert!(html.contains("interleaved rounds"), "no finding");
}

#[test]
fn explain_on_one_side_measures_what_explaining_costs() {
    let sb = Sandbox::new();
    let explained = format!("{A} --explain");
    let run = sb.run_json(&[
        "ab",
        A,
        &explained,
        "--json",
        "-",
        "--min-rounds",
        "3",
        "--max-rounds",
        "3",
    ]);
    let res = results(&run);
    assert_eq!(res.len(), 2, "{run}");
    assert!(
        res[0]["explain"].is_null(),
        "A is not explained: {}",
        res[0]
    );
    let e = &res[1]["explain"];
    let named = |key: &str| {
        e[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let (measured, missing) = (named("components"), named("missing"));
    // Traced where root may, or named missing with the reason; never absent.
    for name in ["user_cpu", "kernel_cpu", "syscalls"] {
        assert!(
            measured.iter().chain(&missing).any(|n| n == name),
            "{name} in B's explanation: {e}"
        );
    }
}

#[test]
fn the_same_seed_draws_the_same_orders_and_sequential_blocks_keep_one_order() {
    let sb = Sandbox::new();
    let positions = |run: &serde_json::Value| results(run)[0]["rounds"]["positions"].clone();
    let (one, two) = (
        ab(&sb, &["--seed", "7", "--no-store"]),
        ab(&sb, &["--seed", "7", "--no-store"]),
    );
    let shortest = |p: &serde_json::Value| p.as_array().unwrap().len();
    let n = shortest(&positions(&one)).min(shortest(&positions(&two)));
    assert_eq!(
        positions(&one).as_array().unwrap()[..n],
        positions(&two).as_array().unwrap()[..n]
    );
    let sequential = ab(&sb, &["--sequential", "--no-store"]);
    let res = results(&sequential);
    assert_eq!(res[0]["rounds"]["values"].as_array().unwrap().len(), 12);
    assert_eq!(res[0]["rounds"]["interleaved"], false);
    let text = sequential["verdicts"][0]["text"].as_str().unwrap();
    assert!(text.contains("sequential rounds"), "{text}");
}

/// Two rounds bound the median with 50% confidence, not 99.5%: no
/// interval is given and nothing is decided.
#[test]
fn fewer_rounds_than_the_interval_needs_are_undecided_with_no_interval() {
    let sb = Sandbox::new();
    let run = sb.run_json(&[
        "ab",
        A,
        A,
        "--json",
        "-",
        "--min-rounds",
        "2",
        "--max-rounds",
        "2",
        "--no-store",
    ]);
    let finding = &run["verdicts"][0];
    let text = finding["text"].as_str().unwrap();
    assert!(
        text.starts_with("undecided between A")
            && text.contains("2 interleaved round(s), fewer than the 9 a 99.5% interval needs"),
        "{text}"
    );
    assert!(!text.contains("interval 0"), "{text}");
    let figures: Vec<&str> = finding["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(figures, ["ratio_b_over_a", "rounds"]);
}

/// Without a count of their own, both cases' batches are sized by time:
/// the rounds say how, and the count is no larger than planned.
#[test]
fn rounds_are_sized_by_time_unless_the_spec_fixes_the_count() {
    let sb = Sandbox::new();
    let spec = "pingpong --mech pipe --placement same-cpu";
    let run = sb.run_json(&[
        "ab",
        spec,
        spec,
        "--json",
        "-",
        "--min-rounds",
        "9",
        "--max-rounds",
        "9",
        "--no-store",
    ]);
    for r in results(&run) {
        let batch = r["rounds"]["batch"].as_str().unwrap();
        let count: u64 = batch
            .strip_prefix("count=")
            .and_then(|b| b.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{batch}"));
        assert!((64..=10_000).contains(&count), "{batch}");
        assert!(batch.contains("3 repetitions a round"), "{batch}");
        assert_eq!(r["params"]["count"], 10_000, "the planned count is kept");
    }
    let fixed = ab(&sb, &["--no-store"]);
    assert!(results(&fixed)[0]["rounds"]["batch"].is_null(), "{fixed}");
}

#[test]
fn specs_that_do_not_compare_are_refused_in_one_line_with_nothing_stored() {
    let sb = Sandbox::new();
    let with_json = format!("{A} --json x");
    let cases = [
        (vec!["ab", "pingpong", B], "narrow it to one"),
        (
            vec![
                "ab",
                A,
                "stream --mech pipe --placement same-cpu -p size=64",
            ],
            "only cases with the same headline metric compare",
        ),
        (
            vec!["ab", A, "pingpong --mech nope"],
            "B 'pingpong --mech nope': unknown mechanism 'nope'",
        ),
        (vec!["ab", A, B, "--band", "0"], "invalid --band '0'"),
        (
            vec!["ab", A, B, "--min-rounds", "9", "--max-rounds", "3"],
            "--max-rounds 3 is below --min-rounds 9",
        ),
        (
            vec!["ab", &with_json, B],
            "--json is not an option of a compared case",
        ),
    ];
    for (args, says) in cases {
        let err = sb.usage_error(&args);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert!(!sb.db().exists(), "a refused comparison stored something");
    sb.assert_tmp_empty();
}
