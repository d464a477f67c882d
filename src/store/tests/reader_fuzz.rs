//! The readers fuzzed with what `import` admits (issue 52): a saved run of
//! every kind of result (latency histograms, a sweep, a time series,
//! interleaved rounds, a c2c map, a probe's observations, a profile's and
//! an explanation's folded stacks, claims) has one
//! to four of its JSON nodes replaced by hostile values, its arrays cut or
//! grown, its keys dropped. Whatever `import` admits is stored, loaded
//! back and read by every reader as its command would: `show` (the table,
//! and `--json`), `report --html` and `--markdown` (alone and against
//! itself), `compare` and `claims`. None may panic or fail, and the text
//! ones may print no raw control byte. `IOLAB_FUZZ_SECS=N` keeps it going
//! for N seconds and prints how many cases ran; `cargo test` runs one
//! short round.

use super::temp_store;
use crate::format::{shown, shown_run};
use crate::model::{CaseResult, Matrix, Observation, Run};
use crate::report::{
    fixtures, HtmlReporter, JsonReporter, MarkdownReporter, Reporter, TableReporter,
};
use crate::store::{read_saved, vet};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};

/// A run holding every kind of result a reader draws or prints.
fn base() -> Run {
    let mut run = fixtures::chart_run();
    run.results
        .push(fixtures::in_rounds("pipe", &[5.0, 5.5, 4.9, 5.2]));
    let mut c2c = CaseResult::new("c2c", "all", Default::default());
    c2c.metrics.insert(
        "c2c_floor_ns".into(),
        crate::measure::metric::metric(vec![40.0, 41.0], "ns"),
    );
    c2c.headline = Some("c2c_floor_ns".into());
    c2c.matrix = Some(Matrix {
        cpus: vec![0, 1, 2],
        unit: "ns".into(),
        values: vec![
            vec![None, Some(40.0), Some(90.0)],
            vec![Some(40.0), None, Some(95.0)],
            vec![Some(90.0), Some(95.0), None],
        ],
        note: "all 3 CPUs".into(),
    });
    run.results.push(c2c);
    let mut probe = CaseResult::new("probe", "pipe-size", Default::default());
    probe.observations = vec![Observation {
        name: "fill_until_eagain".into(),
        call: "write(pipe, 4096)".into(),
        answer: "EAGAIN after 65536 bytes".into(),
        error: Some("EAGAIN".into()),
        figure: Some(65536.0),
        unit: "bytes".into(),
    }];
    run.results.push(probe);
    run
}

/// `base()` as `import` reads it: the JSON and a histogram per result,
/// its first result with a profile and an explanation.
fn saved() -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = super::super::saved::save_in(&base(), &[dir.path().to_path_buf()]).unwrap();
    let mut run: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let first = &mut run["results"][0];
    first["profile"] = json!({
        "method": "perf", "samples": 100,
        "top_kernel": [{"name": "pipe_write", "share": 0.4}],
        "top_user": [{"name": "main", "share": 0.1}],
        "folded": ["main;write;pipe_write 40", "main;read;pipe_read 60"],
    });
    first["explain"] = json!({
        "ops": 100, "op_ns": 50.0,
        "components": [{"name": "syscall", "unit": "ns", "value": 20.0, "source": "perf"}],
        "missing": [{"name": "wake-up", "reason": "no tracer"}],
        "unattributed": {"name": "unattributed", "unit": "ns", "value": 30.0},
        "offcpu_folded": ["main;read;schedule 500"],
    });
    run
}

fn hostile_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!("")),
        Just(json!("\u{1b}]0;pwned\u{7}\u{1b}[2J")),
        Just(json!("x".repeat(2000))),
        Just(json!([])),
        Just(json!({})),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(u64::MAX)),
        Just(json!(1e300)),
        Just(json!(-1e-300)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| json!(x)),
        "\\PC{0,24}".prop_map(|s| json!(s)),
        proptest::collection::vec(any::<i32>(), 0..6).prop_map(|v| json!(v)),
        proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..4), 0..4)
            .prop_map(|v| json!(v)),
    ]
}

/// One change to a saved run: which node (an index into its nodes), what
/// to do there (0-2: keep its JSON type, most of what `import` admits;
/// 3: any value), and with what.
#[derive(Debug, Clone)]
struct Mutation {
    node: usize,
    kind: u8,
    value: Value,
    number: f64,
    len: usize,
}

fn hostile_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(1.0),
        Just(-1.0),
        Just(1e300),
        Just(1e-300),
        Just(u64::MAX as f64),
        Just(f64::from(u32::MAX)),
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
    ]
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let one = (
        any::<usize>(),
        0u8..4,
        hostile_value(),
        hostile_number(),
        0usize..8,
    )
        .prop_map(|(node, kind, value, number, len)| Mutation {
            node,
            kind,
            value,
            number,
            len,
        });
    proptest::collection::vec(one, 1..5)
}

/// The JSON pointer of every node of `value`.
fn nodes(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                nodes(v, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                nodes(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
    out.push(at);
}

/// Changes one node: a string made hostile, a number another of its
/// kind, an array cut or grown (by repeating its elements), an object's
/// key dropped; or the node replaced by any value.
fn apply(run: &mut Value, m: &Mutation) {
    let mut all = Vec::new();
    nodes(run, String::new(), &mut all);
    let Some(node) = run.pointer_mut(&all[m.node % all.len()]) else {
        return;
    };
    match (m.kind, node) {
        (3, node) => *node = m.value.clone(),
        (_, Value::String(s)) => match &m.value {
            Value::String(with) => s.push_str(with),
            _ => s.push_str("\u{1b}[2J"),
        },
        (_, Value::Number(n)) => *n = same_kind(n, m.number),
        (_, Value::Array(items)) if !items.is_empty() => {
            let grown: Vec<Value> = items.iter().cycle().take(m.len).cloned().collect();
            *items = grown;
        }
        (_, Value::Object(map)) if !map.is_empty() => {
            let key = map
                .keys()
                .nth(m.len % map.len())
                .cloned()
                .unwrap_or_default();
            map.remove(&key);
        }
        (_, node) => *node = m.value.clone(),
    }
}

/// `x` as a number of `n`'s kind: a whole number stays whole and, if it
/// was not negative, not negative.
fn same_kind(n: &serde_json::Number, x: f64) -> serde_json::Number {
    let whole = x.abs().min(u64::MAX as f64) as u64;
    match (n.is_u64(), n.is_i64()) {
        (true, _) => whole.into(),
        (false, true) => (x.clamp(i64::MIN as f64, i64::MAX as f64) as i64).into(),
        _ => serde_json::Number::from_f64(x).unwrap_or_else(|| 0.into()),
    }
}

/// Raw ESC, BEL and CSI bytes in `bytes`.
fn raw_controls(bytes: &[u8]) -> usize {
    let c1 = bytes.windows(2).filter(|w| w == b"\xc2\x9b").count();
    bytes.iter().filter(|b| [0x1b, 0x07].contains(*b)).count() + c1
}

/// What `reporter` writes of `run`; it must not fail.
fn written(reporter: &dyn Reporter, run: &Run) -> Vec<u8> {
    let mut out = Vec::new();
    reporter
        .write(run, &mut out)
        .unwrap_or_else(|e| panic!("a reader failed on an admitted run: {e:#}"));
    out
}

/// Reads `bytes` as `import` does; a run it would store is stored, loaded
/// back, and read by every reader (true), or refused in one line (false).
pub(super) fn import_and_read(bytes: &[u8]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    std::fs::write(&file, bytes).unwrap();
    let run = match read_saved(&file) {
        Ok(run) => run,
        Err(e) => return assert_one_line(&format!("{e:#}")),
    };
    if let Err(why) = vet(&run) {
        return assert_one_line(&why);
    }
    let (_keep, _path, mut store) = temp_store();
    store.import(&run).unwrap();
    let loaded = store.load(&run.run_id).unwrap();
    written(&JsonReporter, &loaded);
    read_as_text(&shown_run(&loaded));
    true
}

fn assert_one_line(why: &str) -> bool {
    assert!(!why.is_empty() && !why.contains('\n'), "{why:?}");
    false
}

/// The text readers over a run as the commands show it.
fn read_as_text(run: &Run) {
    let table = TableReporter {
        color: false,
        scenarios: true,
        verbose: true,
    };
    let mut texts = vec![
        written(&table, run),
        written(&MarkdownReporter { baseline: None }, run),
        written(
            &MarkdownReporter {
                baseline: Some(run),
            },
            run,
        ),
        written(
            &HtmlReporter {
                baseline: None,
                diff: None,
            },
            run,
        ),
        written(
            &HtmlReporter {
                baseline: Some(run),
                diff: None,
            },
            run,
        ),
    ];
    let compared = crate::compare::compare_with(run, run, crate::compare::DEFAULT_MIN_EFFECT_PCT);
    texts.push(crate::compare::text(&compared, Some(10.0)).into_bytes());
    let claims = match run.claims.is_empty() {
        true => crate::claims::evaluate(&run.results, run.suite.as_deref()),
        false => run.claims.clone(),
    };
    let mut out = Vec::new();
    crate::claims::render::write(&mut out, &shown(&claims), &run.environment.kernel).unwrap();
    texts.push(out);
    for text in &texts {
        let n = raw_controls(text);
        assert_eq!(
            n,
            0,
            "{n} raw control bytes: {}",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn no_imported_run_makes_a_reader_panic() {
    let valid = saved();
    assert!(import_and_read(valid.to_string().as_bytes()));
    let admitted = std::cell::Cell::new(0u64);
    let round = |runner: &mut TestRunner| {
        runner
            .run(&mutations(), |changes| {
                let mut run = valid.clone();
                for m in &changes {
                    apply(&mut run, m);
                }
                let read = import_and_read(run.to_string().as_bytes());
                admitted.set(admitted.get() + u64::from(read));
                Ok(())
            })
            .unwrap();
    };
    let more = || format!(" ({} admitted by import and read)", admitted.get());
    super::fuzz::fuzz_for("reader fuzz", 16, round, more);
}
