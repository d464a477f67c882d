//! One judgement for a finding and a claim drawn from the same cases: the
//! pipe-atime finding over anonymous pipes says what E1-noatime-faster
//! decides, with the same figure, whichever way the figures fall.

use super::*;

#[test]
fn the_pipe_atime_finding_and_e1_noatime_faster_give_one_judgement() {
    let default = [350.0, 360.0, 355.0];
    let falls: [(&[f64], ClaimStatus, &str); 3] = [
        (
            &[300.0, 310.0, 305.0],
            Holds,
            "noatime is measurably faster",
        ),
        (&[400.0, 410.0, 405.0], DoesNotHold, "noatime is not faster"),
        (
            &[300.0, 370.0, 340.0],
            Inconclusive,
            "no measurable difference",
        ),
    ];
    for (noatime, status, says) in falls {
        let results = [atime("noatime", noatime), atime("default", &default)];
        let claim = answer("E1-noatime-faster", &results);
        assert_eq!(claim.verdict, status, "{}", claim.figure);
        let findings = crate::claims::verdicts(&results);
        let judged: Vec<&str> = findings
            .iter()
            .map(|v| v.text.as_str())
            .filter(|t| t.contains("judges it"))
            .collect();
        assert_eq!(
            judged,
            [format!(
                "anon: {says} (as E1-noatime-faster judges it): {}",
                claim.figure
            )],
            "{findings:?}"
        );
    }
}

#[test]
fn the_scenario_itself_no_longer_judges_which_variant_is_faster() {
    let results = [
        atime("noatime", &[300.0, 310.0, 305.0]),
        atime("default", &[350.0, 360.0, 355.0]),
    ];
    let texts: Vec<String> = crate::claims::verdicts(&results)
        .into_iter()
        .map(|v| v.text)
        .collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert_eq!(texts[0], "anon: O_NOATIME NOT kept by the kernel");
    assert!(
        texts.iter().all(|t| !t.contains("repetition spread")),
        "{texts:?}"
    );
}
