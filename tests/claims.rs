//! `iolab run seeds --quick` answers every classic claim (each with a
//! verdict and a figure) from evidence it found, decides those whose
//! evidence is deterministic, stores them, and `iolab claims` prints them
//! back; `--quick` on one scenario uses its quick-suite entry. Every claim
//! reads only metrics and parameter values its scenario declares.

mod common;
use common::{json, results, Sandbox};
use iolab::claims::engine::rule::Rule;
use iolab::claims::engine::select::Select;
use iolab::claims::{Claim, CLAIMS};
use iolab::measure::metric::metric;
use iolab::model::{CaseResult, ClaimStatus};
use iolab::params;
use iolab::scenario;
use serde_json::{json, Value};

const IDS: [&str; 28] = [
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
    "E3-fifo-is-pipe",
    "E3-fifo-10x-udp",
    "E3-contended-fifo-as-udp",
    "E3-two-readers",
    "E3-fifo-sides-sleep",
    "E3-notify-less",
    "E4-buffer-size-irrelevant",
    "E4-cork-restores",
    "E5-select-equals-poll",
    "E5-et-faster",
    "E5-all-active-epoll-slower",
    "E5-threads-beat-processes",
    "E6-select-worse-than-poll",
];

#[test]
fn claims_md_lists_every_claim_and_iolab_has_each() {
    let ids = common::claims_md_ids();
    // The seeds' 47, and any claim added since.
    assert!(ids.len() >= 47, "{ids:?}");
    assert!(ids
        .iter()
        .all(|id| id.len() > 3 && id.as_bytes()[0] == b'E'));
    for id in &ids {
        assert!(CLAIMS.iter().any(|c| c.id == id), "{id} is not a claim");
    }
    assert_eq!(
        CLAIMS.len(),
        ids.len(),
        "claims that CLAIMS.md does not list"
    );
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/CLAIMS.md");
    // The steering copy, where a checkout has one beside it: the same rows.
    let rows = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("| E"))
            .map(str::to_string)
            .collect()
    };
    if let Ok(original) = std::fs::read_to_string(&shared) {
        assert_eq!(
            rows(&original),
            rows(common::CLAIMS_MD),
            "docs/claims.md's rows differ from {}",
            shared.display()
        );
    }
}

#[test]
fn seeds_quick_answers_every_claim_and_claims_prints_them() {
    let sb = Sandbox::new();
    let run = sb.run_json(&["run", "seeds", "--quick", "--json", "-"]);
    let claims = run["claims"].as_array().expect("a claims array");
    let ids: Vec<&str> = claims.iter().map(|c| c["id"].as_str().unwrap()).collect();
    let all: Vec<&str> = CLAIMS.iter().map(|c| c.id).collect();
    assert_eq!(ids, all);
    // EXPERIMENTS.md's claims first, then the others measured, in order;
    // a claim added to a seed may stand between them.
    let in_order: Vec<&str> = ids.iter().copied().filter(|id| IDS.contains(id)).collect();
    assert_eq!(in_order, IDS);
    assert_eq!(ids[..15], IDS[..15]);
    for id in common::claims_md_ids() {
        assert!(
            ids.contains(&id.as_str()),
            "{id} of CLAIMS.md is not answered"
        );
    }
    for c in claims {
        let figure = c["figure"].as_str().unwrap();
        for missing in ["has no metric", "no result", "has no numeric"] {
            assert!(!figure.contains(missing), "evidence not found: {c}");
        }
        assert!(!c["original"].as_str().unwrap().is_empty(), "{c}");
    }
    assert_deterministic_claims_are_decided(claims);
    assert_sendfile_needs_fewer_calls(&run);
    let out = sb.iolab(&["claims", "latest"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("== Claims ==\n"), "{text}");
    for id in &all {
        assert_eq!(
            text.lines().filter(|l| l.starts_with(id)).count(),
            1,
            "{id}\n{text}"
        );
    }
    assert_eq!(text.matches("original: ").count(), all.len(), "{text}");
    let out = sb.iolab(&["claims", "--json", "-"]).assert().success();
    let claims = json(&out.get_output().stdout);
    assert_eq!(claims["run_id"], run["run_id"]);
    assert_eq!(claims["claims"].as_array().unwrap().len(), all.len());
}

/// Claims whose evidence does not depend on timing on any Linux, with the
/// verdicts each may reach; inconclusive only if its case cannot run here.
const DECIDED: [(&str, &[&str]); 3] = [
    ("E4-sendfile-less-cpu", &["holds", "does not hold"]),
    ("E6-devnull-not-read", &["holds"]),
    ("E6-devnull-atime", &["holds", "does not hold"]),
];

fn assert_deterministic_claims_are_decided(claims: &[Value]) {
    for (id, verdicts) in DECIDED {
        let c = claims.iter().find(|c| c["id"] == id).unwrap();
        let figure = c["figure"].as_str().unwrap();
        let runs_here = !figure.contains(" unsupported: ");
        if c["verdict"] == "inconclusive" && !common::require(runs_here, &format!("{id}: {figure}"))
        {
            continue;
        }
        assert!(verdicts.contains(&c["verdict"].as_str().unwrap()), "{c}");
    }
}

/// E4's evidence by count: sendfile moves the 32 MiB file in a call or
/// two, read+send makes a read and a send per 4 KiB buffer.
fn assert_sendfile_needs_fewer_calls(run: &Value) {
    let calls = |copier: &str| {
        let r = results(run)
            .iter()
            .find(|r| r["params"]["copier"] == copier && r["params"]["link"] == "loopback")
            .unwrap_or_else(|| panic!("no loopback {copier} result"));
        assert_eq!(r["status"], "ok", "{r}");
        r["metrics"]["syscalls"]["value"].as_f64().unwrap()
    };
    let (sendfile, read_send) = (calls("sendfile"), calls("read-write"));
    assert!(
        read_send >= 2.0 * 8192.0,
        "read+send made {read_send} calls"
    );
    assert!(
        (1.0..=4.0).contains(&sendfile),
        "sendfile made {sendfile} calls"
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

/// A result of `scenario` with these parameters carrying every metric the
/// scenario declares (1.0 in each of three repetitions), or no metric.
fn fabricated(scenario: &str, params: Vec<(&str, Value)>, with_metrics: bool) -> CaseResult {
    let case: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let params = params
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut r = CaseResult::new(scenario, &case.join("/"), params);
    let declared = scenario::find(scenario).unwrap_or_else(|| panic!("no scenario {scenario}"));
    for m in declared.metrics().iter().filter(|_| with_metrics) {
        r.metrics
            .insert(m.name.to_string(), metric(vec![1.0; 3], m.unit));
    }
    r
}

/// The results a claim's rule reads, made from its selections: the
/// select's parameters, its `nearest` key at the target, a sweep's points.
fn evidence(claim: &Claim, with_metrics: bool) -> Vec<CaseResult> {
    evidence_of(&claim.rule, with_metrics)
}

fn evidence_of(rule: &Rule, with_metrics: bool) -> Vec<CaseResult> {
    let one = |sel: &Select, extra: Option<(&'static str, Value)>| {
        let mut p: Vec<(&str, Value)> = sel.params.iter().map(|(k, v)| (*k, json!(v))).collect();
        p.extend(sel.nearest.map(|(key, target)| (key, json!(target))));
        p.extend(extra);
        fabricated(sel.scenario, p, with_metrics)
    };
    match *rule {
        Rule::Each { rules } => {
            let mut all: Vec<CaseResult> = Vec::new();
            for r in rules.iter().flat_map(|r| evidence_of(r, with_metrics)) {
                if !all.iter().any(|o| o.params == r.params) {
                    all.push(r);
                }
            }
            all
        }
        Rule::Faster {
            fast: a, slow: b, ..
        }
        | Rule::NoFaster { a, b, .. }
        | Rule::Similar { a, b, .. } => vec![one(&a, None), one(&b, None)],
        Rule::Within { at, .. } => vec![one(&at, None)],
        Rule::Judged { of, .. } => of.iter().map(|sel| one(sel, None)).collect(),
        Rule::Relative { at, reference, .. } => vec![one(&at, None), one(&reference.at, None)],
        Rule::Linear { at, x, .. } | Rule::Flat { at, x, .. } => [0, 100, 200, 400]
            .iter()
            .map(|v| one(&at, Some((x, json!(v)))))
            .collect(),
        Rule::Observed { check, .. } => {
            vec![fabricated(
                "probe",
                vec![("check", json!(check))],
                with_metrics,
            )]
        }
    }
}

#[test]
fn every_claim_decides_on_metrics_its_scenario_declares() {
    for claim in CLAIMS.iter() {
        if let Rule::Observed { check, .. } = claim.rule {
            // A probe claim reads its check's observations, not metrics:
            // with none fabricated it says which one it lacks.
            for with_metrics in [true, false] {
                let v = claim.answer(&evidence(claim, with_metrics));
                assert_eq!(v.verdict, ClaimStatus::Inconclusive, "{}", claim.id);
                let lacks = format!("probe check={check} recorded no ");
                assert!(v.figure.contains(&lacks), "{}: {}", claim.id, v.figure);
            }
            continue;
        }
        // Every value 1.0: a ratio rule's figure lies on its boundary,
        // which it weighs (a margin) but cannot decide.
        let with = claim.answer(&evidence(claim, true));
        assert!(
            with.verdict != ClaimStatus::Inconclusive || with.near_boundary,
            "{} with every declared metric: {}",
            claim.id,
            with.figure
        );
        let without = claim.answer(&evidence(claim, false));
        assert_eq!(without.verdict, ClaimStatus::Inconclusive, "{}", claim.id);
        assert!(
            without.figure.contains("has no metric"),
            "{}: {}",
            claim.id,
            without.figure
        );
    }
}

#[test]
fn every_claim_selects_values_its_scenario_accepts() {
    for claim in CLAIMS.iter() {
        for r in evidence(claim, false) {
            if r.scenario == "limits" {
                // A machine-relative claim's reference point.
                assert!(matches!(claim.rule, Rule::Relative { .. }), "{}", claim.id);
            } else {
                assert_eq!(r.scenario, claim.scenario, "{}", claim.id);
            }
            let mech = r.params.get("mech").and_then(Value::as_str);
            for (key, value) in &r.params {
                assert_accepted(claim, &r.scenario, mech, key, value);
            }
        }
    }
}

/// `value` is one the scenario's parameter `key` (or the parameter of the
/// case's mechanism `mech`) takes, written as a result carries it (a target
/// or a sweep point: the parameter is numeric).
fn assert_accepted(
    claim: &Claim,
    scenario_name: &str,
    mech: Option<&str>,
    key: &str,
    value: &Value,
) {
    let sc = scenario::find(scenario_name).unwrap();
    let at = format!("{}: {scenario_name} {key}={value}", claim.id);
    if key == "placement" {
        assert!(sc.uses_mechanisms(), "{at}: no placements");
        let name = value.as_str().unwrap();
        assert!(
            iolab::measure::pin::Placement::parse(name).is_some(),
            "{at}: no such placement"
        );
        return;
    }
    if key == "mech" {
        assert!(sc.uses_mechanisms(), "{at}: no mechanisms");
        let name = value.as_str().unwrap();
        assert!(
            iolab::mechanism::find(name).is_some(),
            "{at}: no such mechanism"
        );
        return;
    }
    let of_mech = mech
        .and_then(iolab::mechanism::find)
        .and_then(|m| m.params().iter().find(|p| p.name == key));
    let spec = sc
        .param(key)
        .or(of_mech)
        .unwrap_or_else(|| panic!("{at}: no such parameter"));
    match value.as_str() {
        Some(text) => {
            let parsed = params::parse_list(spec, text).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(parsed.len(), 1, "{at}");
            assert_eq!(
                parsed[0].to_string(),
                text,
                "{at}: a result carries it otherwise"
            );
        }
        None => assert!(
            matches!(spec.kind.parse("1"), Some(params::Value::Int(_))),
            "{at}: not a numeric parameter"
        ),
    }
}
