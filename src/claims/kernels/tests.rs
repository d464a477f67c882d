//! The matrix over fabricated runs: columns in version order, a known
//! change named, a guest's memory not taken for the kernel, two builds of
//! one version, and the terminal's width.

use super::*;
use crate::model::{ClaimStatus::*, Guest};

fn env(kernel: &str, memory_gib: u64, guest: bool) -> Environment {
    Environment {
        kernel: kernel.into(),
        memory_bytes: memory_gib << 30,
        guest: guest.then(|| Guest {
            accel: "emulated".into(),
            cpus: 2,
            memory_bytes: memory_gib << 30,
            ..Guest::default()
        }),
        ..Environment::default()
    }
}

fn claims(verdicts: &[(&str, ClaimStatus)]) -> Vec<ClaimVerdict> {
    let base = crate::claims::CLAIMS[0].answer(&[]);
    verdicts
        .iter()
        .map(|(id, v)| ClaimVerdict {
            id: id.to_string(),
            source: id[..2].to_string(),
            verdict: *v,
            ..base.clone()
        })
        .collect()
}

fn three() -> (Vec<Environment>, Vec<Vec<ClaimVerdict>>) {
    let envs = vec![
        env("6.18.44-fc", 24, false),
        env("6.1.0-56-amd64", 1, true),
        env("6.1.0-56-rt-amd64", 1, true),
    ];
    let old = [
        ("E1-pipe-read-atime", Holds),
        ("E5-fd-limit-memory", Holds),
        ("E3-pipe-16-pages", Holds),
    ];
    let host = [
        ("E1-pipe-read-atime", DoesNotHold),
        ("E5-fd-limit-memory", DoesNotHold),
        ("E3-pipe-16-pages", Holds),
    ];
    (envs, vec![claims(&host), claims(&old), claims(&old)])
}

fn matrix(envs: &[Environment], answers: &[Vec<ClaimVerdict>]) -> Matrix {
    let runs: Vec<KernelRun> = envs
        .iter()
        .zip(answers)
        .map(|(environment, claims)| KernelRun {
            run_id: &environment.kernel,
            environment,
            claims,
        })
        .collect();
    build(&runs, &["6.6.3".to_string()])
}

#[test]
fn a_known_change_is_named_and_the_guests_memory_is_not_a_kernel_change() {
    let (envs, answers) = three();
    let m = matrix(&envs, &answers);
    let kernels: Vec<&str> = m.columns.iter().map(|c| c.kernel.as_str()).collect();
    assert_eq!(
        kernels,
        ["6.1.0-56-amd64", "6.1.0-56-rt-amd64", "6.18.44-fc"]
    );
    assert_eq!(m.columns[2].ran, "host");
    assert_eq!(m.turns.len(), 2, "{:?}", m.turns);
    let e1 = &m.turns[0];
    assert_eq!(
        (e1.claim.as_str(), e1.from.as_str()),
        ("E1-pipe-read-atime", "6.1.0-56-rt-amd64")
    );
    let Cause::Known(change, source) = &e1.cause else {
        panic!("{:?}", e1.cause)
    };
    assert_eq!(
        change,
        "Linux 6.15: pipe: don't update {a,c,m}time for anonymous pipes (f017b0a4951f)"
    );
    assert!(source.contains("git.kernel.org"), "{source}");
    assert!(e1.bisect.is_none(), "a known change needs no bisecting");
    let e5 = &m.turns[1];
    assert_eq!(e5.claim, "E5-fd-limit-memory");
    assert!(!e5.cause.is_kernel(), "{:?}", e5.cause);
    assert!(
        e5.cause
            .text()
            .contains("memory 1 GiB on 6.1.0-56-rt-amd64"),
        "{}",
        e5.cause.text()
    );
    assert!(e5.bisect.is_none());
    let e3 = m.rows.iter().find(|r| r.id == "E3-pipe-16-pages").unwrap();
    assert!(e3.cells.iter().all(|c| c.turn.is_none()));
}

#[test]
fn two_builds_of_one_version_differ_by_configuration_and_inconclusive_never_turns() {
    let envs = vec![
        env("6.1.0-56-amd64", 1, true),
        env("6.1.0-56-rt-amd64", 1, true),
        env("6.2.0", 1, true),
    ];
    let answers = vec![
        claims(&[("E3-pipe-16-pages", Holds)]),
        claims(&[("E3-pipe-16-pages", DoesNotHold)]),
        claims(&[("E3-pipe-16-pages", Inconclusive)]),
    ];
    let m = matrix(&envs, &answers);
    assert_eq!(m.turns.len(), 1, "{:?}", m.turns);
    assert!(
        matches!(m.turns[0].cause, Cause::Build(_)),
        "{:?}",
        m.turns[0].cause
    );
    assert!(m.turns[0].bisect.is_none());
}

#[test]
fn an_unknown_change_names_its_two_kernels() {
    let envs = vec![env("5.10.0", 4, false), env("6.1.0", 4, true)];
    let answers = vec![
        claims(&[("E3-pipe-16-pages", Holds)]),
        claims(&[("E3-pipe-16-pages", DoesNotHold)]),
    ];
    let m = matrix(&envs, &answers);
    assert_eq!(
        m.turns[0].cause,
        Cause::Unknown("changed between 5.10.0 and 6.1.0".into())
    );
    assert_eq!(
        m.turns[0].bisect.as_ref().unwrap().first_changed.as_deref(),
        Some("6.1.0")
    );
}

#[test]
fn the_terminal_matrix_keeps_within_100_columns() {
    let (envs, answers) = three();
    let mut out = Vec::new();
    render::write(&mut out, &matrix(&envs, &answers)).unwrap();
    let text = String::from_utf8(out).unwrap();
    for line in text.lines() {
        assert!(line.chars().count() <= render::WIDTH, "{line:?}\n{text}");
    }
    let row = text
        .lines()
        .find(|l| l.starts_with("E1-pipe-read-atime"))
        .unwrap();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        [
            "E1-pipe-read-atime",
            "holds",
            "holds",
            "does",
            "not",
            "hold*"
        ],
        "{text}"
    );
    let e5 = text
        .lines()
        .find(|l| l.starts_with("E5-fd-limit-memory"))
        .unwrap();
    assert!(e5.ends_with("does not hold~"), "{text}");
    assert!(
        text.contains("1 of 3 claims turned with the kernel, 1 with the guest"),
        "{text}"
    );
}
