//! What a run says as a whole: each headline as a multiple of the matching
//! `limits` reference point measured in the same run. (Findings and
//! claims: `claims`.)

use crate::model::{CaseResult, LimitRatio, Status};
use crate::scenario;

/// Sets `limit_ratio` on every ok result whose scenario names a reference
/// point that this run measured.
pub(crate) fn annotate_limits(results: &mut [CaseResult]) {
    let reference = |name: &str| {
        results
            .iter()
            .filter(|r| r.status == Status::Ok)
            .find_map(|r| r.metrics.get(name))
            .map(|m| m.value)
    };
    let ratios: Vec<Option<LimitRatio>> = results
        .iter()
        .map(|r| {
            let scenario = scenario::find(&r.scenario)?;
            let limit = scenario.limit_for(r)?;
            let (_, headline) = r.headline_metric().filter(|_| r.status == Status::Ok)?;
            let value = reference(limit.metric().name).filter(|v| *v > 0.0)?;
            Some(LimitRatio {
                limit: limit.metric().name.to_string(),
                ratio: headline.value / value,
            })
        })
        .collect();
    for (r, ratio) in results.iter_mut().zip(ratios) {
        r.limit_ratio = ratio;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::devnull::{BYTES_PER_S, PAGES_RESIDENT_AFTER};
    use crate::scenario::limits::MEMCPY_BYTES_PER_S;
    use serde_json::json;

    fn memcpy(bytes_per_s: f64) -> CaseResult {
        let mut r = CaseResult::new("limits", "memcpy", Default::default());
        MEMCPY_BYTES_PER_S.set(&mut r, vec![bytes_per_s]);
        MEMCPY_BYTES_PER_S.set_headline(&mut r);
        r
    }

    fn devnull(copier: &str, bytes_per_s: f64) -> CaseResult {
        let params = [("copier", copier), ("sink", "dev-null"), ("cache", "warm")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        let mut r = CaseResult::new("devnull", copier, params);
        BYTES_PER_S.set(&mut r, vec![bytes_per_s]);
        PAGES_RESIDENT_AFTER.set(&mut r, vec![16.0]);
        BYTES_PER_S.set_headline(&mut r);
        r
    }

    #[test]
    fn devnull_copies_keep_the_flag_their_moments_memcpy_gave_them() {
        use crate::scenario::devnull::verdict::flag_against_memcpy;
        let mut results = vec![
            memcpy(20e9),
            devnull("sendfile", 35e9),
            devnull("read-write", 3e9),
        ];
        // Each copy was judged against the memcpy measured beside it,
        // 7.5 GB/s; the run's limits figure (20 GB/s) judges nothing again.
        for r in &mut results[1..] {
            flag_against_memcpy(r, 7.5e9);
        }
        annotate_limits(&mut results);
        let sendfile = &results[1];
        assert_eq!(sendfile.flags.len(), 1, "{:?}", sendfile.flags);
        assert_eq!(sendfile.flags[0].name, "not_really_moved");
        let reason = &sendfile.flags[0].reason;
        assert!(reason.starts_with("35.0 GB/s is 4.7x"), "{reason}");
        assert!(reason.contains("(7.5 GB/s,"), "{reason}");
        assert!(results[2].flags.is_empty(), "{:?}", results[2].flags);
        let ratio = sendfile.limit_ratio.as_ref().unwrap();
        assert_eq!(ratio.limit, "memcpy_bytes_per_s");
        assert!((ratio.ratio - 35.0 / 20.0).abs() < 1e-9);
        let verdicts = crate::claims::verdicts(&results[1..]);
        assert!(
            verdicts[0].text.starts_with("not really moved")
                && verdicts[0].text.contains("sendfile -> dev-null (warm)")
                && !verdicts[0].text.contains("read-write"),
            "{verdicts:?}"
        );
    }
}
