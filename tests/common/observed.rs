//! Reading a `probe` result's observations in tests: each names a call and
//! the kernel's answer, some a figure in a unit.

use serde_json::Value;

pub fn observations(r: &Value) -> &Vec<Value> {
    r["observations"].as_array().expect("observations")
}

pub fn names(r: &Value) -> Vec<&str> {
    observations(r)
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect()
}

/// Every observation called `name` (at least one); each names a call and
/// an answer.
pub fn every<'a>(r: &'a Value, name: &str) -> Vec<&'a Value> {
    let all: Vec<&Value> = observations(r)
        .iter()
        .filter(|o| o["name"] == name)
        .collect();
    assert!(!all.is_empty(), "{}: no observation {name}: {r}", r["case"]);
    for o in &all {
        assert!(!o["call"].as_str().unwrap().is_empty(), "{o}");
        assert!(!o["answer"].as_str().unwrap().is_empty(), "{o}");
    }
    all
}

/// The first observation called `name`.
pub fn seen<'a>(r: &'a Value, name: &str) -> &'a Value {
    every(r, name)[0]
}

/// A text field (`call`, `answer`) of observation `name`.
pub fn text<'a>(r: &'a Value, name: &str, field: &str) -> &'a str {
    seen(r, name)[field].as_str().unwrap()
}

/// The figure of observation `name`, which must have one in `unit`.
pub fn figure(r: &Value, name: &str, unit: &str) -> f64 {
    let o = seen(r, name);
    assert_eq!(o["unit"], unit, "{o}");
    o["figure"]
        .as_f64()
        .unwrap_or_else(|| panic!("no figure: {o}"))
}
