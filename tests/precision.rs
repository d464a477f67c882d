//! `--precision PCT`: further batches until the headline median's 95%
//! interval is narrow enough or a cap stops them, said in the JSON and the
//! table; bad values are refused before anything runs.

mod common;
use common::{pipe_pingpong, results, Sandbox};

#[test]
fn bad_precision_values_are_refused_with_one_line() {
    for bad in ["0", "-1%", "abc", "200%"] {
        let sb = Sandbox::new();
        let stderr = sb.usage_error(&["run", "pingpong", "--precision", bad]);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "invalid --precision '{bad}': expected a percentage above 0 and at most 100"
            )),
            "{stderr}"
        );
        assert!(!sb.db().exists(), "a refused run created the store");
        sb.assert_tmp_empty();
    }
}

/// A small pingpong in threads, two repetitions a batch, then `more`.
fn case<'a>(more: &[&'a str]) -> Vec<&'a str> {
    let case = ["--mode", "threads", "--param", "count=300", "--repeat", "2"];
    pipe_pingpong(&[&case[..], &["--no-store"], more].concat())
}

/// `--precision 0.01%` cannot be reached: the case runs batches of 2 up to
/// the cap of 30 repetitions an asked precision gets, merged into one
/// result whose verified messages are fifteen batches' worth, and the
/// table says it fell short.
#[test]
fn an_unreachable_precision_hits_the_cap_and_says_so() {
    let sb = Sandbox::new();
    let one = sb.run_json(&case(&["--precision", "off", "--json", "-"]));
    let one = &results(&one)[0];
    assert!(one.get("precision").is_none(), "{one}");
    let single = one["verified"]["messages"].as_u64().unwrap();
    let json = sb.dir.path().join("run.json");
    let out = sb
        .iolab(&case(&[
            "--precision",
            "0.01%",
            "--json",
            json.to_str().unwrap(),
        ]))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    sb.assert_tmp_empty();
    let run = common::json(&std::fs::read(&json).unwrap());
    let r = &results(&run)[0];
    let p = &r["precision"];
    assert_eq!(p["reached"], false, "{p}");
    assert_eq!(p["target_pct"], 0.01);
    assert_eq!(p["metric"], r["headline"]);
    let reps = p["reps"].as_u64().unwrap();
    let batches = p["batches"].as_u64().unwrap();
    let stopped = p["stopped_by"].as_str().unwrap();
    assert!(
        stopped == "repetition cap 30" && reps == 30 && batches == 15
            || stopped == "time cap 10 s" && reps == 2 * batches,
        "{p}"
    );
    let headline = r["headline"].as_str().unwrap();
    assert_eq!(
        r["metrics"][headline]["reps"].as_array().unwrap().len() as u64,
        reps
    );
    let (lo, hi) = (p["ci"][0].as_f64().unwrap(), p["ci"][1].as_f64().unwrap());
    let median = r["metrics"][headline]["value"].as_f64().unwrap();
    assert!(lo <= median && median <= hi, "{lo} {median} {hi}");
    assert_eq!(
        r["verified"]["messages"].as_u64().unwrap(),
        single * batches
    );
    let table = String::from_utf8_lossy(&out);
    assert!(table.contains("precision not reached: ±"), "{table}");
    assert!(
        table.contains(&format!("(asked 0.01%; {stopped})")),
        "{table}"
    );
    assert!(
        table.contains(
            "± is half the 95% interval of the median (bootstrap over the repetitions); \
             --precision 0.01%"
        ),
        "{table}"
    );
}
