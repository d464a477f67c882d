//! The noise grade and the precision of a result are stored: in its JSON
//! (loaded back exactly) and copied out into columns for querying.

use super::{ok_result, run, temp_store};
use crate::measure::canary::Fastest;
use crate::model::{CaseResult, Grade, Noise, Precision};

#[test]
fn grade_and_precision_round_trip_and_fill_their_columns() {
    let (_dir, _path, mut store) = temp_store();
    let mut graded = ok_result();
    graded.noise = Some(Noise {
        grade: Grade::Noisy,
        causes: vec!["steal 8%".into()],
        steal_pct: Some(8.0),
        other_load_pct: Some(1.5),
        other_runnable: Some(0),
        freq_change_pct: None,
        throttle_events: None,
        irq_per_s: Some(12.0),
        migrated: false,
        canary_ns: Some(88.5),
        host_slower_pct: Some(12.0),
        wake_canary_ns: Some(5100.0),
        host_wake_slower_pct: Some(31.0),
    });
    graded.precision = Some(Precision {
        metric: "rate".into(),
        target_pct: 2.0,
        ci: [9.0e6, 1.1e7],
        half_width_pct: 9.5,
        reached: false,
        reps: 20,
        batches: 4,
        stopped_by: Some("repetition cap 20".into()),
    });
    let saved = run("r1", "2024-05-01T10:00:00Z", vec![graded, ok_result()]);
    store.save(&saved).unwrap();
    assert_eq!(store.load("r1").unwrap(), saved);
    let rows = store
        .db
        .query(
            "SELECT COALESCE(grade, '-'), COALESCE(precision_reached, -1) FROM results ORDER BY idx",
            &[],
        )
        .unwrap();
    let cells: Vec<(String, i64)> = rows
        .iter()
        .map(|r| (r.text(0).unwrap(), r.int(1).unwrap()))
        .collect();
    assert_eq!(cells, [("noisy".to_string(), 0), ("-".to_string(), -1)]);
}

#[test]
fn the_fastest_canary_is_this_hosts_on_this_kernel() {
    let (_dir, _path, mut store) = temp_store();
    let stored = |id: &str, host: &str, kernel: &str, canary: Option<f64>, wake: Option<f64>| {
        let mut r = run(id, "2024-05-01T10:00:00Z", vec![ok_result()]);
        r.environment.hostname = host.into();
        r.environment.kernel = kernel.into();
        r.environment.canary_ns = canary;
        r.environment.wake_canary_ns = wake;
        r
    };
    let mine = stored("m", "vm1", "6.8.0-test", None, None).environment;
    assert_eq!(store.fastest_canary(&mine).unwrap(), Fastest::default());
    for r in [
        stored("a", "vm1", "6.8.0-test", Some(120.0), Some(4000.0)),
        stored("b", "vm1", "6.8.0-test", Some(95.5), Some(4500.0)),
        stored("c", "vm1", "6.8.0-test", None, None),
        stored("d", "vm2", "6.8.0-test", Some(40.0), Some(900.0)),
        stored("e", "vm1", "6.9.0-other", Some(50.0), Some(800.0)),
    ] {
        store.save(&r).unwrap();
    }
    let fastest = Fastest {
        syscall_ns: Some(95.5),
        wake_ns: Some(4000.0),
    };
    assert_eq!(store.fastest_canary(&mine).unwrap(), fastest);
}

#[test]
fn a_case_reads_its_figures_from_this_hosts_earlier_runs_newest_first() {
    let (_dir, _path, mut store) = temp_store();
    let figure = |value: f64| {
        let mut r = ok_result();
        r.metrics.get_mut("rate").unwrap().value = value;
        r
    };
    let stored = |id: &str, at: &str, host: &str, kernel: &str, r: CaseResult| {
        let mut run = run(id, at, vec![r]);
        run.environment.hostname = host.into();
        run.environment.kernel = kernel.into();
        run
    };
    let mut other_params = figure(7.0);
    other_params
        .params
        .insert("size".into(), serde_json::json!(2));
    let mut failed = figure(8.0);
    failed.status = crate::model::Status::Failed;
    for run in [
        stored(
            "old",
            "2024-05-01T10:00:00Z",
            "vm1",
            "6.8.0-test",
            figure(1.0),
        ),
        stored(
            "new",
            "2024-05-03T10:00:00Z",
            "vm1",
            "6.8.0-test",
            figure(3.0),
        ),
        stored(
            "mid",
            "2024-05-02T10:00:00Z",
            "vm1",
            "6.8.0-test",
            figure(2.0),
        ),
        stored(
            "host",
            "2024-05-04T10:00:00Z",
            "vm2",
            "6.8.0-test",
            figure(4.0),
        ),
        stored(
            "kern",
            "2024-05-04T10:00:00Z",
            "vm1",
            "6.9.0-other",
            figure(5.0),
        ),
        stored(
            "size",
            "2024-05-04T10:00:00Z",
            "vm1",
            "6.8.0-test",
            other_params,
        ),
        stored("fail", "2024-05-04T10:00:00Z", "vm1", "6.8.0-test", failed),
    ] {
        store.save(&run).unwrap();
    }
    let env = stored(
        "now",
        "2024-05-05T10:00:00Z",
        "vm1",
        "6.8.0-test",
        ok_result(),
    )
    .environment;
    let mut now = vec![figure(9.0), figure(9.0)];
    store
        .fill_past(&env, &mut now, |r| r.metrics["rate"].value > 0.0)
        .unwrap();
    let read: Vec<f64> = now[0].past.iter().map(|e| e.metrics["rate"]).collect();
    assert_eq!(read, [3.0, 2.0, 1.0]);
    let runs: Vec<&str> = now[0].past.iter().map(|e| e.run_id.as_str()).collect();
    assert_eq!(runs, ["new", "mid", "old"]);
    let mut unwanted = vec![figure(9.0)];
    store.fill_past(&env, &mut unwanted, |_| false).unwrap();
    assert!(unwanted[0].past.is_empty());
}
