//! `iolab run probe` answers the 15 claims its checks settle: each appears
//! in the run's `claims` with a verdict and a figure that cites its
//! check's evidence (a call made or the kernel's answer), and the table
//! names the kernel under every verdict. These tests read the evidence
//! cited, never which verdict this kernel gives.

mod common;
use common::{results, Sandbox};
use serde_json::Value;

const IDS: [&str; 15] = [
    "E1-pipe-read-atime",
    "E1-writer-mtime",
    "E3-pipe-16-pages",
    "E4-cork-nodelay-exclusive",
    "E4-nodelay-beats-cork",
    "E4-cork-merges-header",
    "E4-mss-1448",
    "E4-sendfile-offset",
    "E4-sendfile-whole-file",
    "E5-fd-setsize",
    "E5-select-needs-rebuild",
    "E5-epoll-mmap",
    "E5-et-one-notice",
    "E5-epoll-ctl-constant",
    "E5-fd-limit-memory",
];

const VERDICTS: [&str; 3] = ["holds", "does not hold", "inconclusive"];

/// The probe check a claim reads: its id without the seed.
fn check(id: &str) -> &str {
    id.split_once('-').unwrap().1
}

/// Whether `figure` quotes one of `r`'s calls or answers (of more than a
/// few characters, so a bare "1" does not count).
fn cites(figure: &str, r: &Value) -> bool {
    r["observations"].as_array().unwrap().iter().any(|o| {
        ["call", "answer"].iter().any(|k| {
            let text = o[*k].as_str().unwrap();
            text.len() > 8 && figure.contains(text)
        })
    })
}

#[test]
fn every_probe_claim_is_answered_with_the_evidence_it_read() {
    let sb = Sandbox::new();
    let run = sb.run_json(&["run", "probe", "--json", "-", "--no-store", "--quiet"]);
    let claims = run["claims"].as_array().expect("a claims array");
    for id in IDS {
        let c = claims
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no claim {id}"));
        assert!(VERDICTS.contains(&c["verdict"].as_str().unwrap()), "{c}");
        assert_eq!(c["scenario"], "probe", "{c}");
        let figure = c["figure"].as_str().unwrap();
        assert!(
            !figure.is_empty() && !c["original"].as_str().unwrap().is_empty(),
            "{c}"
        );
        assert!(!c["form"].as_str().unwrap().is_empty(), "{c}");
        let r = results(&run)
            .iter()
            .find(|r| r["params"]["check"] == check(id))
            .unwrap_or_else(|| panic!("no result for check {}", check(id)));
        match r["status"].as_str().unwrap() {
            "ok" => assert!(
                cites(figure, r),
                "{id} cites none of its evidence: {figure}"
            ),
            _ => assert!(figure.contains(r["reason"].as_str().unwrap()), "{c}\n{r}"),
        }
    }
    // The one figure weighed against a boundary carries its margin.
    let ctl = claims
        .iter()
        .find(|c| c["id"] == "E5-epoll-ctl-constant")
        .unwrap();
    if !ctl["figure"].as_str().unwrap().contains("unsupported") {
        assert!(ctl["margin"].as_f64().is_some(), "{ctl}");
    }
}

#[test]
fn the_table_names_the_kernel_under_every_claim() {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let sb = Sandbox::new();
    let run = |more: &[&str]| {
        let args = ["run", "probe", "-p", "check=fd-setsize", "--no-store"];
        let out = sb.iolab(&[&args, more].concat()).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let line = format!("measured on kernel {}", kernel.trim());
    // The default view names it once, in the heading of the claims, with
    // the host's state when the run sampled it.
    let text = run(&[]);
    let heading = text
        .lines()
        .find(|l| l.starts_with("== Claims =="))
        .expect("a Claims heading");
    let rest = heading
        .strip_prefix(&format!("== Claims == ({line}"))
        .unwrap_or_else(|| panic!("{heading}"));
    assert!(
        rest == ")" || (rest.starts_with("; host ") && rest.ends_with(')')),
        "{heading}"
    );
    assert_eq!(text.matches(&line).count(), 1, "{text}");
    let text = run(&["--verbose"]);
    let claims = text
        .split("== Claims ==\n")
        .nth(1)
        .expect("a Claims section");
    // A verdict line starts with its id (E1-...); the lines under it are
    // indented. One check ran: its claim is judged, the rest left out.
    let count = claims.lines().filter(|l| l.starts_with('E')).count();
    assert_eq!(count, 1, "{claims}");
    let left_out = claims.lines().filter(|l| l.starts_with("left out: E"));
    assert!(left_out.count() >= IDS.len() - 1, "{claims}");
    assert_eq!(claims.matches(&line).count(), count, "{claims}");
}
