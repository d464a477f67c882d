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

/// The probe's pipe-read-atime result: the anonymous pipe's atime moved
/// by `anon` ticks, the FIFO's by `fifo`.
fn read_atime(anon: f64, fifo: f64) -> CaseResult {
    let params = [("check".to_string(), json!("pipe-read-atime"))];
    let mut r = CaseResult::new(
        "probe",
        "probe/pipe-read-atime",
        params.into_iter().collect(),
    );
    r.observations = vec![
        super::probe::fig("anon_pipe", anon),
        super::probe::fig("fifo", fifo),
    ];
    r
}

#[test]
fn where_a_read_leaves_the_atime_alone_noatime_has_nothing_to_skip() {
    // The timing alone says "holds": noatime 15% faster.
    let timed = [
        atime("noatime", &[300.0, 310.0, 305.0]),
        atime("default", &[350.0, 360.0, 355.0]),
    ];
    let still = [timed[0].clone(), timed[1].clone(), read_atime(0.0, 1.0)];
    let claim = answer("E1-noatime-faster", &still);
    assert_eq!(claim.verdict, DoesNotHold, "{}", claim.figure);
    assert!(
        claim
            .figure
            .starts_with("a read leaves the pipe's atime where it was on this kernel")
            && claim
                .figure
                .contains("O_NOATIME has nothing to skip; timing: noatime"),
        "{}",
        claim.figure
    );
    let findings = crate::claims::verdicts(&still);
    assert!(findings
        .iter()
        .any(|v| v.text.starts_with("anon: noatime is not faster")));
    // Where the read moves it, the timing decides, as without the probe.
    let moved = [timed[0].clone(), timed[1].clone(), read_atime(1.0, 1.0)];
    assert_eq!(answer("E1-noatime-faster", &moved).verdict, Holds);
    assert_eq!(answer("E1-noatime-faster", &timed).verdict, Holds);
}
