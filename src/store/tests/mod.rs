//! The store's contract: what is saved loads back exactly, selectors pick
//! the right run or say what is allowed, and the schema migrates once.

use super::place::data_path;
use super::schema::MIGRATIONS;
use super::*;

mod fuzz;
mod reader_fuzz;
mod safety;
mod trust;
use crate::model::{
    CaseResult, ClaimStatus, ClaimVerdict, CpuUsage, Environment, LatencyKind, LatencySummary,
    Metric, Observation, Side, Status, Verdict, Verified,
};
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use tempfile::TempDir;

pub(super) fn temp_store() -> (TempDir, PathBuf, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/results.db");
    let store = Store::open(&path).unwrap();
    (dir, path, store)
}

fn histogram_blob() -> Vec<u8> {
    let mut hist = Histogram::<u64>::new(3).unwrap();
    for v in [1_200u64, 1_350, 1_350, 9_800, 250_000] {
        hist.record(v).unwrap();
    }
    let mut blob = Vec::new();
    V2Serializer::new().serialize(&hist, &mut blob).unwrap();
    blob
}

pub(super) fn ok_result() -> CaseResult {
    let params = BTreeMap::from([
        ("mech".to_string(), serde_json::json!("pipe")),
        ("size".to_string(), serde_json::json!(1)),
    ]);
    let mut r = CaseResult::new("pingpong", "pipe/same-cpu/processes/1B", params);
    r.verified = Some(Verified {
        ok: true,
        messages: 100_000,
        bytes: 100_000,
    });
    // Floats serde_json's default parser would round off by one ULP.
    let metric = Metric {
        value: 103561102.85714285,
        unit: "msg/s".into(),
        min: Some(985690694.6328695),
        max: None,
        reps: vec![9837275.636934673, 10733069.212355213, 0.1],
    };
    r.metrics.insert("rate".into(), metric);
    r.headline = Some("rate".into());
    r.latency = Some(LatencySummary {
        kind: LatencyKind::RoundTrip,
        unit: "ns".into(),
        count: 5,
        mean: 52740.0,
        p50: 1350,
        p90: 250_000,
        p99: 250_000,
        p99_9: 250_000,
        max: 250_000,
    });
    let cpu = CpuUsage {
        user_s: 0.123456789,
        sys_s: 1.0 / 3.0,
        voluntary_csw: 7,
        involuntary_csw: 2,
    };
    r.cpu = Some(cpu.clone());
    r.sides = vec![Side {
        role: "client".into(),
        cpus: vec![0],
        cpu,
    }];
    r.histogram = Some(histogram_blob());
    r
}

pub(super) fn failed_result() -> CaseResult {
    let mut r = CaseResult::new("stream", "tcp/cross-cpu/threads/64KiB", BTreeMap::new());
    r.status = Status::Failed;
    r.reason = Some("sequence gap at message 17".into());
    r
}

pub(super) fn run(id: &str, started_at: &str, results: Vec<CaseResult>) -> Run {
    Run {
        iolab_version: "0.1.0".into(),
        run_id: id.into(),
        started_at: started_at.into(),
        finished_at: Some("2024-05-01T10:01:00Z".into()),
        label: Some("laptop".into()),
        suite: Some("quick".into()),
        environment: Environment {
            kernel: "6.8.0-test".into(),
            cpu_model: "Test CPU".into(),
            cpus: 2,
            timer_ns: Some(21.666666666666668),
            ..Environment::default()
        },
        results,
        verdicts: vec![Verdict {
            scenario: "pingpong".into(),
            text: "pipe wins".into(),
            ..Verdict::default()
        }],
        claims: vec![ClaimVerdict {
            id: "E1-noatime-faster".into(),
            source: "E1".into(),
            claim: "O_NOATIME is faster".into(),
            verdict: ClaimStatus::Inconclusive,
            figure: "no result pipe-atime in this run".into(),
            original: "oprofile".into(),
            scenario: "pipe-atime".into(),
            kernel_evidence: Some("no kernel profile: run with --profile".into()),
            margin: Some(0.4),
            near_boundary: true,
            precision: Some("±6% (noatime) and ±4% (default) after 5 repetitions".into()),
            to_decide: Some("needs ±1% on both".into()),
            form: "a ratio of two results of the same run".into(),
            weighed: Some(crate::model::Weighed {
                value: 0.99,
                lo: 0.95,
                hi: 1.04,
                edges: vec![1.0],
                verdicts: vec![ClaimStatus::DoesNotHold, ClaimStatus::Holds],
            }),
            noise: None,
            parts: vec![crate::model::ClaimPart {
                verdict: ClaimStatus::Holds,
                figure: "reader 71% on CPU".into(),
            }],
            host: Some("judged with the host quiet".into()),
            not_judged: None,
        }],
    }
}

pub(super) fn usage_message(err: anyhow::Error) -> String {
    match err.downcast_ref::<UsageError>() {
        Some(usage) => usage.to_string(),
        None => panic!("expected a UsageError, got: {err:#}"),
    }
}

#[test]
fn run_round_trips_exactly() {
    let (_dir, _path, mut store) = temp_store();
    let saved = run(
        "r1",
        "2024-05-01T10:00:00Z",
        vec![ok_result(), failed_result()],
    );
    store.save(&saved).unwrap();
    let loaded = store.load("r1").unwrap();
    assert_eq!(loaded, saved);
    assert_eq!(loaded.results[0].case, "pipe/same-cpu/processes/1B");
    assert_eq!(loaded.results[1].histogram, None);
}

/// A `probe` result's observations live in its result JSON, as its
/// profile and explanation do: they load back exactly, an error or a
/// figure missing stays missing.
#[test]
fn observations_round_trip() {
    let (_dir, _path, mut store) = temp_store();
    let mut probed = CaseResult::new("probe", "epoll-mmap", BTreeMap::new());
    probed.observations = vec![
        Observation {
            name: "mmap".into(),
            call: "mmap(NULL, 4096, PROT_READ, MAP_SHARED, epfd, 0)".into(),
            answer: "failed: ENODEV (No such device)".into(),
            error: Some("ENODEV".into()),
            ..Observation::default()
        },
        Observation {
            name: "maps".into(),
            call: "read /proc/self/maps".into(),
            answer: "0 of 47 mappings name eventpoll".into(),
            figure: Some(0.0),
            unit: "mappings".into(),
            ..Observation::default()
        },
    ];
    let saved = run("r1", "2024-05-01T10:00:00Z", vec![probed, ok_result()]);
    store.save(&saved).unwrap();
    let loaded = store.load("r1").unwrap();
    assert_eq!(loaded, saved);
    assert_eq!(loaded.results[0].observations[0].figure, None);
    assert!(loaded.results[1].observations.is_empty());
}

#[test]
fn histogram_blob_decodes_after_loading() {
    let (_dir, _path, mut store) = temp_store();
    store
        .save(&run("r1", "2024-05-01T10:00:00Z", vec![ok_result()]))
        .unwrap();
    let blob = store.load("latest").unwrap().results[0]
        .histogram
        .clone()
        .unwrap();
    let hist: Histogram<u64> = Deserializer::new()
        .deserialize(&mut blob.as_slice())
        .unwrap();
    assert_eq!(hist.len(), 5);
    assert_eq!(hist.count_at(1_350), 2);
}

#[test]
fn selectors_pick_by_time_then_insertion() {
    let (_dir, _path, mut store) = temp_store();
    // "b" and "c" start at the same second; "c" was stored later.
    for (id, at) in [
        ("c0", "2024-01-01T00:00:00Z"),
        ("b", "2024-02-01T00:00:00Z"),
    ] {
        store.save(&run(id, at, vec![])).unwrap();
    }
    store
        .save(&run("c", "2024-02-01T00:00:00Z", vec![]))
        .unwrap();
    let mut id_of = |sel: &str| store.load(sel).unwrap().run_id;
    assert_eq!(id_of("latest"), "c");
    assert_eq!(id_of("latest~0"), "c");
    assert_eq!(id_of("latest~1"), "b");
    assert_eq!(id_of("latest~2"), "c0");
    assert_eq!(id_of("b"), "b");
}

#[test]
fn latest_per_host_keeps_the_newest_run_of_each_host_and_kernel() {
    let (_dir, _path, mut store) = temp_store();
    let on = |id: &str, at: &str, host: &str, kernel: &str| {
        let mut r = run(id, at, vec![]);
        r.environment.hostname = host.into();
        r.environment.kernel = kernel.into();
        r
    };
    for r in [
        on("b-old", "2024-01-01T00:00:00Z", "beta", "6.8"),
        on("a-new", "2024-03-01T00:00:00Z", "alpha", "6.1"),
        on("a-old", "2024-02-01T00:00:00Z", "alpha", "6.1"),
        on("a-610", "2024-01-01T00:00:00Z", "alpha", "6.10"),
        on("b-new", "2024-01-02T00:00:00Z", "beta", "6.8"),
    ] {
        store.save(&r).unwrap();
    }
    let ids: Vec<String> = store
        .latest_per_host()
        .unwrap()
        .into_iter()
        .map(|r| r.run_id)
        .collect();
    assert_eq!(ids, ["a-new", "a-610", "b-new"]);
    assert_eq!(store.latest_per_host().unwrap()[0].claims.len(), 1);
}

#[test]
fn unknown_selectors_are_usage_errors_naming_the_value() {
    let (_dir, path, mut store) = temp_store();
    let empty = usage_message(store.load("latest").unwrap_err());
    assert!(
        empty.contains("'latest'") && empty.contains("empty"),
        "{empty}"
    );
    store
        .save(&run("r1", "2024-05-01T10:00:00Z", vec![]))
        .unwrap();

    let unknown = usage_message(store.load("abc").unwrap_err());
    assert!(unknown.contains("'abc'"), "{unknown}");
    assert!(unknown.contains(&path.display().to_string()), "{unknown}");
    assert!(unknown.contains("latest~N"), "{unknown}");

    for bad in ["latest~x", "latest~", "latest~-1", "latest~+1"] {
        let msg = usage_message(store.load(bad).unwrap_err());
        assert!(
            msg.contains(&format!("'{bad}'")) && msg.contains("latest~N"),
            "{msg}"
        );
    }
    let far = usage_message(store.load("latest~1").unwrap_err());
    assert!(
        far.contains("'latest~1'") && far.contains("it holds 1 run,"),
        "{far}"
    );
    let huge = usage_message(store.load(&format!("latest~{}", usize::MAX)).unwrap_err());
    assert!(huge.contains(&usize::MAX.to_string()), "{huge}");
}

#[test]
fn history_is_newest_first_with_counts() {
    let (_dir, _path, mut store) = temp_store();
    store
        .save(&run("old", "2024-01-01T00:00:00Z", vec![failed_result()]))
        .unwrap();
    let mut newest = run(
        "new",
        "2024-03-01T00:00:00Z",
        vec![ok_result(), failed_result()],
    );
    newest.label = None;
    newest.results.push(ok_result());
    store.save(&newest).unwrap();
    store
        .save(&run("mid", "2024-02-01T00:00:00Z", vec![]))
        .unwrap();

    let all = store.history(10, &HistoryFilter::default()).unwrap();
    let ids: Vec<&str> = all.iter().map(|s| s.run_id.as_str()).collect();
    assert_eq!(ids, ["new", "mid", "old"]);
    assert_eq!((all[0].results, all[0].failed), (3, 1));
    assert_eq!((all[1].results, all[1].failed), (0, 0));
    assert_eq!((all[2].results, all[2].failed), (1, 1));
    assert_eq!(all[0].label, None);
    assert_eq!(all[2].label.as_deref(), Some("laptop"));
    assert_eq!(all[0].suite.as_deref(), Some("quick"));
    assert_eq!(all[0].kernel, "6.8.0-test");
    assert_eq!(all[0].started_at, "2024-03-01T00:00:00Z");
    assert_eq!(
        store.history(1, &HistoryFilter::default()).unwrap().len(),
        1
    );
    assert!(store
        .history(0, &HistoryFilter::default())
        .unwrap()
        .is_empty());
}

#[test]
fn duplicate_run_id_is_rejected_and_changes_nothing() {
    let (_dir, _path, mut store) = temp_store();
    store
        .save(&run("r1", "2024-01-01T00:00:00Z", vec![ok_result()]))
        .unwrap();
    let again = run(
        "r1",
        "2024-02-01T00:00:00Z",
        vec![failed_result(), failed_result()],
    );
    assert!(store.save(&again).is_err());
    let summary = store.history(10, &HistoryFilter::default()).unwrap();
    assert_eq!(summary.len(), 1);
    assert_eq!((summary[0].results, summary[0].failed), (1, 0));
}

#[test]
fn deleting_a_run_deletes_its_results() {
    let (_dir, _path, mut store) = temp_store();
    store
        .save(&run("r1", "2024-01-01T00:00:00Z", vec![ok_result()]))
        .unwrap();
    store
        .db
        .execute("DELETE FROM runs WHERE run_id = 'r1'", &[])
        .unwrap();
    let left = db::scalar(store.db.as_mut(), "SELECT COUNT(*) FROM results", &[]).unwrap();
    assert_eq!(left, 0);
}

#[test]
fn migrations_are_idempotent_and_counted() {
    let (_dir, path, mut store) = temp_store();
    store
        .save(&run("r1", "2024-01-01T00:00:00Z", vec![ok_result()]))
        .unwrap();
    drop(store);
    let mut store = Store::open(&path).unwrap();
    let mut again = Store::open(&path).unwrap();
    let latest = MIGRATIONS.len() as i64;
    assert_eq!(store.db.schema_version().unwrap(), latest);
    assert_eq!(again.db.schema_version().unwrap(), latest);
    assert_eq!(
        store.history(10, &HistoryFilter::default()).unwrap().len(),
        1
    );
}

#[test]
fn a_newer_schema_is_refused() {
    let (_dir, path, mut store) = temp_store();
    let newer = MIGRATIONS.len() as i64 + 1;
    store.db.set_schema_version(newer).unwrap();
    drop(store);
    let err = Store::open(&path)
        .err()
        .expect("a newer schema must not open");
    assert!(format!("{err:#}").contains("newer"), "{err:#}");
}

#[test]
fn wal_and_foreign_keys_are_on() {
    let (_dir, _path, mut store) = temp_store();
    let mode = store.db.query("PRAGMA journal_mode", &[]).unwrap();
    assert_eq!(mode[0].text(0).unwrap(), "wal");
    let fk = db::scalar(store.db.as_mut(), "PRAGMA foreign_keys", &[]).unwrap();
    assert_eq!(fk, 1);
}

#[test]
fn open_existing_on_a_missing_path_errors_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing/results.db");
    let msg = usage_message(
        Store::open_existing(Place::File(path.clone()))
            .err()
            .expect("must fail"),
    );
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("iolab run") && msg.contains("--db"), "{msg}");
    assert!(!path.exists());
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn open_existing_reads_what_open_wrote() {
    let (_dir, path, mut store) = temp_store();
    let saved = run(
        "r1",
        "2024-01-01T00:00:00Z",
        vec![ok_result(), failed_result()],
    );
    store.save(&saved).unwrap();
    let mut reader = Store::open_existing(Place::File(path.clone())).unwrap();
    assert_eq!(reader.load("r1").unwrap(), saved);
    assert_eq!(reader.place().file(), Some(path.as_path()));
}

#[test]
fn results_with_unknown_fields_still_load() {
    let (_dir, _path, mut store) = temp_store();
    store
        .save(&run("r1", "2024-01-01T00:00:00Z", vec![failed_result()]))
        .unwrap();
    let sql = "UPDATE results SET result_json = json_set(result_json, '$.added_later', 1.5)";
    store.db.execute(sql, &[]).unwrap();
    assert_eq!(store.load("r1").unwrap().results, vec![failed_result()]);
}

#[test]
fn default_path_follows_xdg() {
    let os = |s: &str| Some(OsString::from(s));
    let at = |p: &str| Some(PathBuf::from(p));
    assert_eq!(
        data_path(os("/xdg"), os("/home/u")),
        at("/xdg/iolab/results.db")
    );
    let home = at("/home/u/.local/share/iolab/results.db");
    assert_eq!(data_path(None, os("/home/u")), home);
    assert_eq!(data_path(os(""), os("/home/u")), home);
    assert_eq!(data_path(os("relative"), os("/home/u")), home);
    assert_eq!(data_path(None, None), None);
    assert_eq!(data_path(None, os("")), None);
}

/// `run --push`'s marks: saved with the run, listed oldest first per
/// store, each once, gone once pushed, and never holding a password.
#[test]
fn pending_pushes_are_marked_with_the_run_and_cleared_once_pushed() {
    let (_dir, _path, mut store) = temp_store();
    let fleet = Place::of(std::path::Path::new(
        "postgresql://iolab:s3cret@db.example:5432/iolab",
    ))
    .unwrap();
    let other = Place::of(std::path::Path::new("other.db")).unwrap();
    let r1 = run("r1", "2024-05-01T10:00:00Z", vec![ok_result()]);
    let r2 = run("r2", "2024-05-02T10:00:00Z", vec![ok_result()]);
    store.save_pending(&r1, Some(&fleet)).unwrap();
    store.save_pending(&r2, Some(&fleet)).unwrap();
    store
        .save(&run("r3", "2024-05-03T10:00:00Z", vec![]))
        .unwrap();
    assert_eq!(store.pending(&fleet).unwrap(), ["r1", "r2"]);
    assert!(store.pending(&other).unwrap().is_empty());
    let targets = store
        .db
        .query("SELECT DISTINCT target FROM pending_pushes", &[])
        .unwrap();
    assert_eq!(
        targets[0].text(0).unwrap(),
        "postgresql://iolab@db.example:5432/iolab"
    );
    store.pushed("r1", &fleet).unwrap();
    store.pushed("r1", &fleet).unwrap();
    assert_eq!(store.pending(&fleet).unwrap(), ["r2"]);
    store.pushed("r2", &fleet).unwrap();
    assert!(store.pending(&fleet).unwrap().is_empty());
}

/// A store of schema version 4 kept a password given as `?password=` in
/// its pending targets: migrating takes it out, and the run stays pending
/// once for the store however its URL was written.
#[test]
fn migrating_takes_passwords_out_of_the_pending_targets() {
    let (_dir, path, mut store) = temp_store();
    store
        .save(&run("r1", "2024-05-01T10:00:00Z", vec![ok_result()]))
        .unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "INSERT INTO pending_pushes VALUES
             ('r1', 'postgresql://iolab@db/iolab?password=WRONGpw', '2024-05-01T10:00:00Z'),
             ('r1', 'postgresql://iolab:***@db/iolab', '2024-05-01T10:00:00Z');
         PRAGMA user_version = 4;",
    )
    .unwrap();
    drop(conn);
    let mut store = Store::open(&path).unwrap();
    let targets = store
        .db
        .query("SELECT target FROM pending_pushes", &[])
        .unwrap();
    assert_eq!(targets.len(), 1, "{targets:?}");
    assert_eq!(targets[0].text(0).unwrap(), "postgresql://iolab@db/iolab");
    let fleet = Place::of(std::path::Path::new("postgresql://iolab:new@db/iolab")).unwrap();
    assert_eq!(store.pending(&fleet).unwrap(), ["r1"]);
}
