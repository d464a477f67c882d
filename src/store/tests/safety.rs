//! No run lost: a run the store refused is saved as JSON that imports back
//! whole (histograms included) and only once, the schema is migrated in one
//! locked transaction, and an older store is read even when it cannot be
//! migrated.

use super::super::saved::save_in;
use super::super::schema::MIGRATIONS;
use super::super::*;
use super::{failed_result, ok_result, run, temp_store, usage_message};

#[test]
fn a_saved_run_reads_back_whole_with_its_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let saved = run(
        "r1",
        "2024-05-01T10:00:00Z",
        vec![ok_result(), failed_result()],
    );
    let file = save_beside(&saved, Some(&dir.path().join("results.db"))).unwrap();
    assert_eq!(file, dir.path().join("iolab-run-r1.json"));
    let back = read_saved(&file).unwrap();
    assert_eq!(back, saved);
    assert!(back.results[0].histogram.is_some());
    assert_eq!(back.results[1].histogram, None);
}

#[test]
fn a_plain_json_run_reads_back_without_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    let mut saved = run("r1", "2024-05-01T10:00:00Z", vec![ok_result()]);
    let document = crate::model::Document::new(&saved);
    std::fs::write(&file, serde_json::to_string(&document).unwrap()).unwrap();
    saved.results[0].histogram = None;
    assert_eq!(read_saved(&file).unwrap(), saved);
}

#[test]
fn a_run_without_a_schema_version_or_with_a_newer_one_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    let run = run("r1", "2024-05-01T10:00:00Z", vec![ok_result()]);
    std::fs::write(&file, serde_json::to_string(&run).unwrap()).unwrap();
    let msg = usage_message(read_saved(&file).unwrap_err());
    assert!(msg.contains("run.json: no schema_version"), "{msg}");
    assert_eq!(msg.lines().count(), 1, "{msg}");
    let mut newer = crate::model::Document::new(&run);
    newer.schema_version = crate::model::SCHEMA_VERSION + 1;
    std::fs::write(&file, serde_json::to_string(&newer).unwrap()).unwrap();
    let msg = usage_message(read_saved(&file).unwrap_err());
    assert!(msg.contains("is not one this iolab reads"), "{msg}");
}

#[test]
fn saving_falls_back_to_the_next_directory_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let here = dir.path().join("here");
    std::fs::create_dir(&here).unwrap();
    let saved = run("r1", "2024-05-01T10:00:00Z", vec![]);
    let file = save_in(&saved, &[missing.clone(), here.clone()]).unwrap();
    assert_eq!(file, here.join("iolab-run-r1.json"));

    let err = save_in(&saved, &[missing, here]).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("missing/iolab-run-r1.json"), "{msg}");
    assert!(msg.contains("here/iolab-run-r1.json: File exists"), "{msg}");
    assert_eq!(
        read_saved(&file).unwrap(),
        saved,
        "the first file is intact"
    );
}

#[test]
fn what_is_not_a_saved_run_is_a_usage_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let msg = usage_message(read_saved(&missing).unwrap_err());
    assert!(
        msg.contains("cannot read") && msg.contains("nope.json"),
        "{msg}"
    );

    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"schema_version\": 1, \"run_id\": 3}").unwrap();
    let msg = usage_message(read_saved(&garbage).unwrap_err());
    assert!(msg.contains("garbage.json is not a run"), "{msg}");

    let empty = run("r1", "2024-05-01T10:00:00Z", vec![]);
    let mut value = serde_json::to_value(crate::model::Document::new(empty)).unwrap();
    value["histograms"] = serde_json::json!(["00"]);
    std::fs::write(&garbage, value.to_string()).unwrap();
    let msg = usage_message(read_saved(&garbage).unwrap_err());
    assert!(msg.contains("1 histograms for 0 results"), "{msg}");
}

#[test]
fn import_stores_a_run_once_and_refuses_another_under_its_id() {
    let (_dir, _path, mut store) = temp_store();
    let saved = run("r1", "2024-05-01T10:00:00Z", vec![ok_result()]);
    assert_eq!(store.import(&saved).unwrap(), Imported::Stored);
    assert_eq!(store.import(&saved).unwrap(), Imported::AlreadyThere);
    let mut plain = saved.clone();
    plain.results[0].histogram = None;
    assert_eq!(store.import(&plain).unwrap(), Imported::AlreadyThere);
    assert_eq!(store.load("r1").unwrap(), saved, "the histogram is kept");

    let other = run("r1", "2024-06-01T10:00:00Z", vec![]);
    let msg = usage_message(store.import(&other).unwrap_err());
    assert!(msg.contains("another run with the id r1"), "{msg}");
    assert_eq!(
        store.history(10, &HistoryFilter::default()).unwrap().len(),
        1
    );
}

#[test]
fn a_store_refusing_writes_fails_to_save_in_one_line() {
    let (_dir, path, mut store) = temp_store();
    store.refuse_writes().unwrap();
    let err = store
        .save(&run("r1", "2024-05-01T10:00:00Z", vec![]))
        .unwrap_err();
    let msg = format!("{err:#}");
    let want = format!(
        "storing run r1 in {}: attempt to write a readonly database",
        path.display()
    );
    assert_eq!(msg, want, "one line, SQLite's message once");
}

#[test]
fn migrating_a_fresh_store_is_one_transaction_holding_the_write_lock() {
    let (_dir, path, _store) = temp_store();
    // Another connection in a write transaction: a second open must wait
    // for it (busy timeout) rather than fail, and then see the schema done.
    let mut blocker = rusqlite::Connection::open(&path).unwrap();
    let tx = blocker
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let opener = std::thread::spawn(move || Store::open(&path).map(|s| s.version));
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        !opener.is_finished(),
        "open went ahead under another's lock"
    );
    tx.rollback().unwrap();
    let version = opener.join().unwrap().unwrap();
    assert_eq!(version, MIGRATIONS.len() as i64);
}

#[test]
fn a_version_1_store_without_claims_still_loads() {
    let (_dir, _path, mut store) = temp_store();
    store
        .save(&run("r1", "2024-05-01T10:00:00Z", vec![ok_result()]))
        .unwrap();
    store
        .db
        .batch("ALTER TABLE runs DROP COLUMN claims_json; PRAGMA user_version = 1;")
        .unwrap();
    // As `open_existing` leaves a store it could not migrate.
    store.version = store.db.schema_version().unwrap();
    assert_eq!(store.version, 1);
    let loaded = store.load("r1").unwrap();
    assert!(loaded.claims.is_empty());
    assert_eq!(loaded.results, vec![ok_result()]);
}

#[test]
fn stores_opened_at_once_on_a_new_file_all_open() {
    // Each round, four connections switch a new file to WAL and migrate it
    // at the same moment: SQLite refuses one of two concurrent WAL switches
    // at once (no busy handler), so `open` must retry it.
    for round in 0..50 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.db");
        let start = std::sync::Arc::new(std::sync::Barrier::new(4));
        let openers: Vec<_> = (0..4)
            .map(|_| {
                let (path, start) = (path.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    Store::open(&path)
                        .map(|s| s.version)
                        .map_err(|e| format!("{e:#}"))
                })
            })
            .collect();
        for opener in openers {
            let version = opener.join().unwrap();
            assert_eq!(version, Ok(MIGRATIONS.len() as i64), "round {round}");
        }
    }
}

#[cfg(not(feature = "fleet"))]
#[test]
fn a_server_store_without_the_fleet_feature_is_a_usage_error_naming_it() {
    let url = std::path::Path::new("postgresql://iolab:pw@127.0.0.1:1/iolab");
    let msg = usage_message(Store::open(url).err().expect("must fail"));
    assert!(msg.contains("--features fleet"), "{msg}");
    assert!(!msg.contains("pw@"), "the password is never shown: {msg}");
}

#[test]
fn a_database_with_another_programs_tables_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE users (id INTEGER)")
        .unwrap();
    drop(conn);
    let msg = usage_message(Store::open(&path).err().expect("must fail"));
    assert!(msg.contains("another program's tables (users)"), "{msg}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let tables: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 1);
}

/// The tables an SQLite file holds.
fn file_tables(path: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    let names = stmt.query_map([], |r| r.get(0)).unwrap();
    names.map(Result::unwrap).collect()
}

#[test]
fn reading_a_file_with_another_programs_tables_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE accounts (id INTEGER)")
        .unwrap();
    drop(conn);
    let place = Place::File(path.clone());
    let msg = usage_message(Store::open_existing(place).err().expect("must fail"));
    let want = format!(
        "cannot read the result store {}: it holds another program's tables (accounts)",
        path.display()
    );
    assert!(msg.starts_with(&want), "{msg}");
    assert_eq!(file_tables(&path), ["accounts"]);
}

#[test]
fn reading_an_empty_file_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    std::fs::write(&path, "").unwrap();
    let place = Place::File(path.clone());
    let msg = usage_message(Store::open_existing(place).err().expect("must fail"));
    assert!(msg.contains("was never set up (it has no tables)"), "{msg}");
    assert_eq!(file_tables(&path), Vec::<String>::new());
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
}
