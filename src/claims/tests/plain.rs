//! A claim in one line: its figure in plain words (`render::plain_figure`)
//! and the noise guard's grades over the results its rule read
//! (`engine::noise`).

use super::*;
use crate::claims::render::plain_figure;
use crate::model::{Grade, Noise};

fn noatime_pair() -> [CaseResult; 2] {
    [
        atime("noatime", &[300.0, 310.0, 305.0]),
        atime("default", &[350.0, 360.0, 355.0]),
    ]
}

#[test]
fn a_weighed_figure_reads_without_its_ranges_and_with_its_interval() {
    let v = answer("E1-noatime-faster", &noatime_pair());
    assert!(v.figure.contains("(300-310, 3 reps)"), "{}", v.figure);
    let plain = plain_figure(&v);
    assert!(
        plain.starts_with("noatime at count=10000000 305 ns vs default at count=10000000 355 ns: "),
        "{plain}"
    );
    assert!(!plain.contains("reps"), "{plain}");
    let interval = plain.split("; ").nth(1).expect("an interval clause");
    assert!(
        interval.starts_with("95% interval ") && interval.ends_with('x'),
        "{plain}"
    );
}

#[test]
fn an_unweighed_figure_keeps_its_first_clause_and_other_brackets() {
    let mut v = answer("E1-noatime-faster", &[]);
    v.figure = "edge-triggered: 1 (of 4 threads); level-triggered: 4".into();
    assert_eq!(plain_figure(&v), "edge-triggered: 1 (of 4 threads)");
    v.figure = "x".repeat(400);
    assert_eq!(plain_figure(&v).chars().count(), 160, "cut at 160 columns");
}

#[test]
fn a_claim_carries_the_worst_grade_of_the_results_it_read() {
    let [mut noatime, mut default] = noatime_pair();
    noatime.noise = Some(Noise::graded(Grade::Noisy, &["steal 8%"]));
    default.noise = Some(Noise::graded(Grade::Disturbed, &["migrated", "steal 8%"]));
    let mut unread = result(
        "pingpong",
        &[("mech", json!("pipe"))],
        &[("rtt_ns", &[1.0])],
    );
    unread.noise = Some(Noise::graded(Grade::Disturbed, &["3 other runnable tasks"]));
    let v = answer("E1-noatime-faster", &[noatime, default, unread]);
    let n = v.noise.expect("graded results make a claim's noise");
    assert_eq!(n.grade, Grade::Disturbed);
    assert_eq!(
        n.causes,
        ["steal 8%", "migrated"],
        "each cause once, unread ones left out"
    );
    assert_eq!((n.graded, n.read), (2, 2));
    let clean = answer("E1-noatime-faster", &noatime_pair());
    assert!(clean.noise.is_none());
}
