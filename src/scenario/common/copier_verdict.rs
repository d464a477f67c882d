//! `file-transfer`'s findings: per file size (and link, socket option,
//! cache and sink), each copier against `read-write buf=4096`, the
//! original's method A: wall time ratio and sender CPU ratio, e.g.
//! "sendfile: same time, 5.00x less sender CPU".

use crate::measure::metric::clearly_differs;
use crate::model::{CaseResult, Finding, Metric, Status};
use crate::scenario::common::copier_params::{label, CACHE, FILE_SIZE};
use crate::scenario::file_transfer::{LINK, SENDER_CPU_S, SINK, TCP, WALL_S};
use std::collections::BTreeMap;

const BASELINE: &str = "read-write buf=4096";
/// Wall times closer than this are "the same" even if spreads do not overlap.
const SAME: f64 = 0.05;

pub(crate) fn against_read_write(results: &[&CaseResult]) -> Vec<Finding> {
    let mut groups: BTreeMap<(u64, String), Vec<&CaseResult>> = BTreeMap::new();
    for r in results.iter().filter(|r| r.status == Status::Ok) {
        let size = r
            .params
            .get(FILE_SIZE.name)
            .and_then(|v| v.as_u64())
            .unwrap_or(0);
        let rest = [LINK, TCP, CACHE, SINK]
            .map(|k| r.param_str(k.name).unwrap_or_default())
            .join(", ");
        groups.entry((size, rest)).or_default().push(r);
    }
    groups
        .into_iter()
        .filter_map(|((size, rest), group)| line(size, &rest, &group))
        .collect()
}

fn line(size: u64, rest: &str, group: &[&CaseResult]) -> Option<Finding> {
    let base = group.iter().find(|r| label(r) == BASELINE)?;
    let parts: Vec<String> = group
        .iter()
        .filter(|r| label(r) != BASELINE)
        .filter_map(|r| compare(base, r))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let text = format!(
        "{} ({rest}) vs {BASELINE}: {}",
        crate::format::size(size),
        parts.join("; ")
    );
    let id = format!("vs-read-write/{} ({rest})", crate::format::size(size));
    let finding = group
        .iter()
        .filter_map(|r| Some((label(r), WALL_S.of(r)?.value)))
        .fold(Finding::new(id, text), |f, (copier, wall)| {
            f.with(&copier, wall, "s")
        });
    Some(finding)
}

fn compare(base: &CaseResult, r: &CaseResult) -> Option<String> {
    let (bw, rw) = (WALL_S.of(base)?, WALL_S.of(r)?);
    let (bc, rc) = (SENDER_CPU_S.of(base)?, SENDER_CPU_S.of(r)?);
    Some(format!(
        "{}: {}, {}",
        label(r),
        time_text(bw, rw),
        cpu_text(bc, rc)
    ))
}

fn time_text(base: &Metric, r: &Metric) -> String {
    let ratio = base.value / r.value;
    if (ratio - 1.0).abs() < SAME {
        return "same time".into();
    }
    let spread = if clearly_differs(base, r) {
        ""
    } else {
        " (within the spread)"
    };
    if ratio > 1.0 {
        format!("{} faster{spread}", crate::format::ratio(ratio))
    } else {
        format!("{} slower{spread}", crate::format::ratio(1.0 / ratio))
    }
}

fn cpu_text(base: &Metric, r: &Metric) -> String {
    if r.value <= 0.0 || base.value <= 0.0 {
        return "sender CPU below the clock's resolution".into();
    }
    let ratio = base.value / r.value;
    if ratio >= 1.0 {
        format!("{} less sender CPU", crate::format::ratio(ratio))
    } else {
        format!("{} more sender CPU", crate::format::ratio(1.0 / ratio))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(copier: &str, buf: Option<u64>, wall: &[f64], cpu: &[f64]) -> CaseResult {
        let mut params = BTreeMap::new();
        params.insert("copier".to_string(), copier.into());
        if let Some(b) = buf {
            params.insert("buf".to_string(), b.into());
        }
        params.insert("file-size".to_string(), (64u64 << 20).into());
        for (k, v) in [
            ("link", "loopback"),
            ("tcp", "plain"),
            ("cache", "warm"),
            ("sink", "discard"),
        ] {
            params.insert(k.to_string(), v.into());
        }
        let mut r = CaseResult::new("file-transfer", copier, params);
        WALL_S.set(&mut r, wall.to_vec());
        SENDER_CPU_S.set(&mut r, cpu.to_vec());
        r
    }

    #[test]
    fn each_copier_is_compared_with_read_write_4096() {
        let base = result("read-write", Some(4096), &[1.0, 1.1], &[0.5, 0.5]);
        let sf = result("sendfile", None, &[1.02, 1.05], &[0.1, 0.1]);
        let big = result("read-write", Some(65536), &[0.5, 0.5], &[1.0, 1.0]);
        let lines = against_read_write(&[&base, &sf, &big]);
        assert_eq!(
            lines,
            vec![
                "64 MiB (loopback, plain, warm, discard) vs read-write buf=4096: \
                  sendfile: same time, 5.00x less sender CPU; \
                  read-write buf=65536: 2.10x faster, 2.00x more sender CPU"
            ]
        );
    }

    #[test]
    fn no_baseline_no_line() {
        let sf = result("sendfile", None, &[1.0], &[0.1]);
        assert!(against_read_write(&[&sf]).is_empty());
    }

    /// A transfer to an agent's host says so: its cases record the link as
    /// `peer` (`CaseSpec::params_json`), never the loopback default.
    #[test]
    fn a_transfer_to_the_peer_is_not_labelled_loopback() {
        let to_peer = |mut r: CaseResult| {
            r.params.insert("link".into(), "peer".into());
            r.params.insert("peer".into(), "10.0.0.2:7000".into());
            r
        };
        let base = to_peer(result("read-write", Some(4096), &[1.0, 1.1], &[0.5, 0.5]));
        let sf = to_peer(result("sendfile", None, &[1.02, 1.05], &[0.1, 0.1]));
        let lines = against_read_write(&[&base, &sf]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0]
                .text
                .starts_with("64 MiB (peer, plain, warm, discard) vs "),
            "{lines:?}"
        );
        assert!(!lines[0].text.contains("loopback"), "{lines:?}");
    }
}
