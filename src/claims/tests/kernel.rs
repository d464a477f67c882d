//! The kernel evidence beside E1 and E3 on fabricated profiles: the shares
//! it states, the reader's stacks told from the writer's, the wording when
//! a case has no profile, and that it never changes a verdict.

use super::e3_to_e6::contention;
use super::*;
use crate::model::Profile;

const SYSCALL: &str = "iolab;[kernel];entry_SYSCALL_64_after_hwframe;do_syscall_64";

fn profile(samples: u64, atime_share: Option<f64>, stacks: &[(&str, u64)]) -> Profile {
    Profile {
        samples,
        atime_share,
        folded: stacks
            .iter()
            .map(|(s, n)| format!("{SYSCALL};{s} {n}"))
            .collect(),
        ..Profile::default()
    }
}

fn e1(default: Option<Profile>, noatime: Option<Profile>) -> ClaimVerdict {
    let mut d = atime("default", &[350.0, 360.0, 355.0]);
    let mut n = atime("noatime", &[300.0, 310.0, 305.0]);
    (d.case, n.case) = ("default/anon".into(), "noatime/anon".into());
    (d.profile, n.profile) = (default, noatime);
    answer("E1-noatime-faster", &[n, d])
}

#[test]
fn e1_states_the_atime_path_share_with_and_without_o_noatime() {
    let default = profile(
        200,
        Some(0.125),
        &[
            (
                "ksys_read;vfs_read;fifo_pipe_read;touch_atime;atime_needs_update.isra.0",
                16,
            ),
            ("ksys_read;vfs_read;fifo_pipe_read;touch_atime", 7),
            ("ksys_write;vfs_write;file_update_time", 3),
            ("ksys_read;vfs_read;fifo_pipe_read", 175),
        ],
    );
    let noatime = profile(
        400,
        Some(0.01),
        &[("ksys_read;vfs_read;fifo_pipe_read", 400)],
    );
    let v = e1(Some(default), Some(noatime));
    assert_eq!(v.verdict, Holds, "the timing rule decides: {}", v.figure);
    let text = v.kernel_evidence.expect("E1 has kernel evidence");
    assert!(
        text.starts_with(
            "kernel profile: atime update path (touch_atime/atime_needs_update) \
             in 11.5% of default samples, 0.0% with O_NOATIME (of 200 and 400 samples"
        ),
        "{text}"
    );
    assert!(text.contains("12.5% and 1.0%"), "{text}");
}

#[test]
fn e1_without_a_profile_says_how_to_get_one_and_keeps_its_verdict() {
    let without = e1(None, None);
    assert_eq!(without.verdict, Holds);
    assert_eq!(
        without.kernel_evidence.as_deref(),
        Some(
            "no kernel profile of default/anon: run with --profile for the kernel symbol evidence"
        )
    );
    let refused = Profile {
        note: Some("profiling not possible: perf_event_open: EACCES".into()),
        ..Profile::default()
    };
    let ok = profile(10, Some(0.0), &[("ksys_read", 10)]);
    let text = e1(Some(ok), Some(refused)).kernel_evidence.unwrap();
    assert!(
        text.starts_with("no samples in the profile of noatime/anon (profiling not possible: perf_event_open: EACCES): run with --profile"),
        "{text}"
    );
    // Missing cases: the figure says why; there is no evidence to give.
    let missing = answer("E1-noatime-faster", &[atime("default", &[350.0])]);
    assert_eq!(missing.kernel_evidence, None);
}

fn e3(p: Option<Profile>) -> ClaimVerdict {
    e3_explained(p, None)
}

fn e3_explained(p: Option<Profile>, explain: Option<crate::model::Explain>) -> ClaimVerdict {
    let mut both = contention("fifo", "both", (2000.0, 5e6), 10.0);
    both.case = "fifo/unpinned/processes/both".into();
    both.profile = p;
    both.explain = explain;
    answer(
        "E3-fifo-stalls",
        &[contention("fifo", "reader-only", (400.0, 5e4), 0.0), both],
    )
}

#[test]
fn e3_says_what_the_contended_reader_waits_on() {
    let read = "ksys_read;vfs_read;fifo_pipe_read;anon_pipe_read";
    let p = profile(
        300,
        Some(0.05),
        &[
            (&format!("{read};mutex_lock"), 30),
            (
                &format!("{read};mutex_lock;__mutex_lock.constprop.0;mutex_spin_on_owner"),
                10,
            ),
            (&format!("{read};schedule;__schedule"), 5),
            (
                "ksys_read;vfs_read;fifo_pipe_read;touch_atime;atime_needs_update",
                5,
            ),
            (read, 50),
            // The writer's stacks are not the reader's.
            ("ksys_write;vfs_write;fifo_pipe_write;mutex_lock", 150),
            ("ksys_write;vfs_write", 50),
        ],
    );
    let v = e3(Some(p));
    assert_eq!(v.verdict, Holds, "{}", v.figure);
    let text = v.kernel_evidence.unwrap();
    for part in [
        "kernel profile of fifo/unpinned/processes/both: the contended reader's read calls (100 of 300 samples;",
        "in locks 40.0% (mutex_lock 30.0%, mutex_spin_on_owner 10.0%)",
        "in the scheduler 5.0% (__schedule 5.0%)",
        "in the atime update 5.0% (atime_needs_update 5.0%)",
        "in the read itself 50.0%",
        "on-CPU samples only",
    ] {
        assert!(text.contains(part), "{part}\n{text}");
    }
    let none = e3(None).kernel_evidence.unwrap();
    assert_eq!(
        none,
        "no kernel profile of fifo/unpinned/processes/both: run with --profile for the kernel symbol evidence"
    );
}

#[test]
fn e3_adds_what_the_reader_waited_on_off_cpu_when_explained() {
    let read = "ksys_read;vfs_read;fifo_pipe_read";
    let p = profile(100, Some(0.0), &[(read, 100)]);
    let explain = crate::model::Explain {
        ops: 1000,
        offcpu_folded: vec![
            format!("reader;[kernel];{read};__mutex_lock;schedule;__schedule 3000000"),
            "reader;[kernel];exit_to_user_mode_loop;schedule;__schedule 1000000".into(),
            // The writer's time off CPU is not the reader's.
            format!("writer;[kernel];ksys_write;__mutex_lock;schedule 9000000"),
        ],
        ..Default::default()
    };
    let text = e3_explained(Some(p.clone()), Some(explain))
        .kernel_evidence
        .unwrap();
    let off = "off CPU (scheduler trace): 4.00 us per call, asleep in its read call 75.0%, \
               in locks 75.0% (__mutex_lock 75.0%), switched out elsewhere (preempted) 25.0%";
    assert!(text.ends_with(off), "{text}");
    let unexplained = e3(Some(p)).kernel_evidence.unwrap();
    assert!(unexplained.ends_with("time off the CPU is not in them (run with --explain too)"));
}

#[test]
fn claims_without_kernel_evidence_have_none_and_render_prints_it() {
    assert_eq!(answer("E2-port-tens-of-us", &[]).kernel_evidence, None);
    let v = e1(None, None);
    let mut out = Vec::new();
    super::super::render::write(&mut out, &[v], "").unwrap();
    let text = String::from_utf8(out).unwrap();
    // The seed, the verdict, its margin, the original, the form and the
    // kernel line.
    assert_eq!(text.lines().count(), 7, "{text}");
    assert_eq!(text.lines().nth(1), Some("-- E1 --"), "{text}");
    assert!(text
        .lines()
        .nth(3)
        .unwrap()
        .trim_start()
        .starts_with("margin "));
    assert!(
        text.lines()
            .nth(6)
            .unwrap()
            .trim_start()
            .starts_with("no kernel profile of default/anon"),
        "{text}"
    );
}
