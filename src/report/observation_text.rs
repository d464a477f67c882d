//! The list under a table of what a `probe` case observed: each call it
//! made and what the kernel answered, under the case and the claim it
//! bears on. The terminal indents them under the case; the documents
//! (Markdown, HTML) list one item per observation.

use crate::format::case_label;
use crate::model::{CaseResult, Observation};
use crate::scenario::probe::{claim_of, CHECK};

/// "  pipe-16-pages (E3-pipe-16-pages):" and one indented line per
/// observation; nothing for a result without observations.
pub(crate) fn lines(r: &CaseResult) -> Vec<String> {
    if r.observations.is_empty() {
        return Vec::new();
    }
    let mut out = vec![format!("  {}:", heading(r))];
    out.extend(r.observations.iter().map(|o| format!("    {}", said(o))));
    out
}

/// One "pipe-16-pages (E3-pipe-16-pages): call -> answer" per observation.
pub(crate) fn items(r: &CaseResult) -> Vec<String> {
    let heading = heading(r);
    r.observations
        .iter()
        .map(|o| format!("{heading}: {}", said(o)))
        .collect()
}

fn heading(r: &CaseResult) -> String {
    let case = case_label(&r.case);
    let claim = r.param_str(CHECK.name).and_then(|c| claim_of(&c));
    match claim {
        Some(claim) => format!("{case} ({claim})"),
        None => case,
    }
}

fn said(o: &Observation) -> String {
    format!("{} -> {}", o.call, o.answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn probed() -> CaseResult {
        let params = BTreeMap::from([("check".to_string(), "pipe-16-pages".into())]);
        let mut r = CaseResult::new("probe", "pipe-16-pages", params);
        r.observations.push(Observation {
            name: "getpipe_sz".into(),
            call: "fcntl(pipe, F_GETPIPE_SZ)".into(),
            answer: "65536".into(),
            figure: Some(65536.0),
            unit: "bytes".into(),
            ..Observation::default()
        });
        r
    }

    #[test]
    fn observations_list_under_their_case_and_claim() {
        let r = probed();
        assert_eq!(
            lines(&r),
            [
                "  pipe-16-pages (E3-pipe-16-pages):",
                "    fcntl(pipe, F_GETPIPE_SZ) -> 65536"
            ]
        );
        assert_eq!(
            items(&r),
            ["pipe-16-pages (E3-pipe-16-pages): fcntl(pipe, F_GETPIPE_SZ) -> 65536"]
        );
        let none = CaseResult::new("pingpong", "x", BTreeMap::new());
        assert!(lines(&none).is_empty() && items(&none).is_empty());
    }
}
