//! `c2c` through the binary: the core-to-core map as an N x N matrix over
//! the CPUs this process may use (the diagonal empty), its floors per
//! topology class, the same floors as `limits`' `c2c` probe, and the
//! heatmap in the HTML report.

mod common;
use common::{results, Sandbox};

/// The CPUs this test process may use, as the run will see them.
fn allowed() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn c2c_gives_a_matrix_of_every_cpu_pair_and_a_heatmap() {
    let n = allowed();
    if !common::require(n >= 2, "c2c needs two CPUs") {
        return;
    }
    let sb = Sandbox::new();
    let args = ["run", "c2c", "--param", "count=500", "--repeat", "2"];
    let run = sb.run_json(&[&args[..], &["--json", "-"]].concat());
    let r = &results(&run)[0];
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["headline"], "c2c_floor_ns");
    assert_eq!(
        r["metrics"]["c2c_floor_ns"]["reps"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let m = &r["matrix"];
    let cpus = m["cpus"].as_array().unwrap().len();
    assert_eq!(cpus, n.min(16), "{m}");
    let rows = m["values"].as_array().unwrap();
    assert_eq!(rows.len(), cpus);
    for (i, row) in rows.iter().enumerate() {
        let row = row.as_array().unwrap();
        assert_eq!(row.len(), cpus);
        for (j, v) in row.iter().enumerate() {
            assert_eq!(v.is_null(), i == j, "cell {i},{j}: {v}");
            assert_eq!(v, &rows[j][i], "the map is symmetric");
        }
    }
    let html = sb.iolab(&["report", "--html", "-"]).assert().success();
    let html = String::from_utf8(html.get_output().stdout.clone()).unwrap();
    let title = format!("max-cpus=16: core-to-core map (ns, all {n} CPUs)");
    let title = match n > 16 {
        true => "max-cpus=16: core-to-core map (ns, a sample of ".to_string(),
        false => title,
    };
    assert!(html.contains(&title), "no heatmap titled {title}");
    assert_eq!(
        html.matches("<rect class=\"cell\" data-cpus=\"0-1\"")
            .count(),
        1
    );
}

#[test]
fn limits_reports_the_c2c_floor_of_each_class_this_machine_has() {
    if !common::require(allowed() >= 2, "c2c needs two CPUs") {
        return;
    }
    let sb = Sandbox::new();
    let args = [
        "run",
        "limits",
        "c2c",
        "--param",
        "probe=c2c",
        "--param",
        "count=500",
    ];
    let run = sb.run_json(&[&args[..], &["--repeat", "1", "--json", "-", "--no-store"]].concat());
    let res = results(&run);
    assert_eq!(res.len(), 2);
    let (limits, c2c) = (&res[0], &res[1]);
    assert_eq!(limits["case"], "c2c");
    assert_eq!(c2c["case"], "max-cpus=16");
    if limits["status"] == "unsupported" {
        let why = "sysfs names no topology class for any pair of the allowed CPUs";
        assert_eq!(limits["reason"], why);
        return;
    }
    let classes = |r: &serde_json::Value| -> Vec<String> {
        let names = r["metrics"].as_object().unwrap().keys();
        let floors = names.filter(|k| !["c2c_floor_ns", "c2c_median_ns"].contains(&k.as_str()));
        floors.cloned().collect()
    };
    assert!(!classes(limits).is_empty(), "{limits}");
    assert_eq!(classes(limits), classes(c2c));
    assert!(classes(limits).contains(&limits["headline"].as_str().unwrap().to_string()));
    let lines: Vec<&str> = run["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["text"].as_str())
        .filter(|t| t.starts_with("cache-line round trip floor per class: "))
        .collect();
    assert_eq!(lines.len(), 2, "one line from limits, one from c2c");
}
