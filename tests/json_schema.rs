//! The JSON Schemas in docs/schema/ (generated from the types: the unit
//! test `app::documents` keeps them current) hold for real documents: the
//! JSON of the quick suite, of the seeds suite, of an `ab` comparison and
//! of a `doctor` watch, and the claims, comparison and environment made
//! from them; every document carries `schema_version`.

mod common;

use common::{results, Sandbox};
use serde_json::Value;
use std::path::Path;

/// Every way `document` breaks the schema in docs/schema/`file`, one line each.
fn violations(file: &str, document: &Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/schema")
        .join(file);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    validator
        .iter_errors(document)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// `document` is valid against `file` and says this iolab's schema version.
fn assert_valid(file: &str, document: &Value) {
    assert_eq!(document["schema_version"], 1, "{file}");
    let broken = violations(file, document);
    assert!(broken.is_empty(), "{file}:\n{}", broken.join("\n"));
}

/// The schema is no blank cheque: a run without its version, or with a
/// result whose status is no status, fails it.
#[test]
fn the_run_schema_refuses_what_is_not_a_run() {
    let sb = Sandbox::new();
    let mut run = sb.run_json(&common::pipe_pingpong(&[
        "--quick",
        "--no-store",
        "--json",
        "-",
    ]));
    assert_valid("run.schema.json", &run);
    run["results"][0]["status"] = "fine".into();
    run.as_object_mut().unwrap().remove("schema_version");
    let broken = violations("run.schema.json", &run);
    assert!(
        broken.iter().any(|b| b.contains("schema_version")),
        "{broken:?}"
    );
    assert!(
        broken.iter().any(|b| b.starts_with("/results/0/status")),
        "{broken:?}"
    );
}

#[test]
fn the_quick_suite_and_what_is_made_of_it_follow_their_schemas() {
    let sb = Sandbox::new();
    let run = sb.run_json(&["run", "--json", "-"]);
    assert!(results(&run).len() > 20, "{} results", results(&run).len());
    assert_valid("run.schema.json", &run);
    let id = run["run_id"].as_str().unwrap();
    let shown = common::json(sb.stdout(&["show", id, "--json", "-"]).as_bytes());
    assert_valid("run.schema.json", &shown);
    let compared = sb.stdout(&["compare", id, id, "--json", "-"]);
    assert_valid("compare.schema.json", &common::json(compared.as_bytes()));
    let claims = sb.stdout(&["claims", id, "--json", "-"]);
    assert_valid("claims.schema.json", &common::json(claims.as_bytes()));
    let across = sb.stdout(&["claims", "--across", id, "latest", "--json", "-"]);
    assert_valid(
        "claims-across.schema.json",
        &common::json(across.as_bytes()),
    );
    let env = sb.stdout(&["env", "--json"]);
    assert_valid("env.schema.json", &common::json(env.as_bytes()));
}

#[test]
fn the_seeds_suite_follows_the_run_schema() {
    let sb = Sandbox::new();
    let run = sb.run_json(&["run", "seeds", "--quick", "--no-store", "--json", "-"]);
    assert!(!run["claims"].as_array().unwrap().is_empty(), "{run}");
    assert_valid("run.schema.json", &run);
}

#[test]
fn an_ab_comparison_follows_the_run_schema() {
    let sb = Sandbox::new();
    let case = "pingpong --mech pipe --placement same-cpu -p count=2000 --repeat 1";
    let run = sb.run_json(&[
        "ab",
        case,
        case,
        "--max-rounds",
        "12",
        "--no-store",
        "--quiet",
        "--json",
        "-",
    ]);
    assert!(
        results(&run).iter().all(|r| r["rounds"].is_object()),
        "{run}"
    );
    assert_valid("run.schema.json", &run);
}

#[test]
fn a_doctor_watch_follows_the_doctor_schema() {
    let sb = Sandbox::new();
    let out = sb
        .iolab(&[
            "doctor",
            "--quiet",
            "--alternatives",
            "0",
            "--json",
            "-",
            "--",
            "sh",
            "-c",
            // About 2 s: a program done before doctor's first window,
            // as 20,000 writes were beside a neighbour, shows no channel.
            "dd if=/dev/zero bs=64 count=2000000 2>/dev/null | cat > /dev/null",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let diagnosis = common::json(&out.stdout);
    assert!(
        !diagnosis["channels"].as_array().unwrap().is_empty(),
        "{diagnosis}"
    );
    assert_valid("doctor.schema.json", &diagnosis);
}
