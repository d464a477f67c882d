use super::*;

#[test]
fn rates_sum_per_repetition_and_keep_each_pairs_median() {
    // Pair p in repetition r runs at (p + 1) * (r + 1).
    let r = rates(2, 3, |p, r| ((p + 1) * (r + 1)) as f64);
    assert_eq!(r.total, vec![3.0, 6.0, 9.0]);
    assert_eq!(r.each, vec![2.0, 4.0]);
    assert!(r.fairness.iter().all(|f| (f - 0.9).abs() < 1e-12));
}

#[test]
fn same_cpu_pairs_take_the_cpus_in_turn_and_cross_cpu_sides_do() {
    let allowed = allowed_cpus();
    let n = allowed.len();
    let same = round_robin(Placement::SameCpu, 3, &allowed).unwrap();
    assert_eq!(same[0], pin::choose(Placement::SameCpu).unwrap());
    assert_eq!(same[1], [Some(allowed[1 % n]); 2]);
    assert_eq!(same[2], [Some(allowed[2 % n]); 2]);
    let unpinned = round_robin(Placement::Unpinned, 4, &allowed).unwrap();
    assert!(unpinned.iter().all(|c| *c == [None, None]));
    if n >= 2 {
        let cross = round_robin(Placement::CrossCpu, 3, &allowed).unwrap();
        assert_eq!(cross[1], [Some(allowed[2 % n]), Some(allowed[3 % n])]);
        assert_eq!(cross[2], [Some(allowed[4 % n]), Some(allowed[5 % n])]);
    }
}

#[test]
fn only_the_last_pair_gets_the_fault() {
    let f = Some(Fault::Corrupt);
    assert_eq!(fault_for(f, 0, 4), None);
    assert_eq!(fault_for(f, 3, 4), f);
    assert_eq!(fault_for(f, 0, 1), f);
}

fn side(messages: u64, mismatch: Option<&str>) -> SideResult<SideOut> {
    Ok(SideOut {
        messages,
        bytes: messages,
        mismatch: mismatch.map(String::from),
        ..SideOut::default()
    })
}

#[test]
fn a_failing_pair_names_itself_and_messages_add_up() {
    let mut out = CaseResult::new("pingpong", "x", Default::default());
    let reports = vec![
        [side(10, None), side(10, None)],
        [side(5, None), side(5, Some("message 5: bad byte"))],
        [side(10, None), Err("killed".into())],
    ];
    assert!(settle(&mut out, reports, ["initiator", "echoer"]).is_none());
    assert_eq!(out.status, Status::Failed);
    assert_eq!(
        out.reason.as_deref(),
        Some("pair 1: verification failed: message 5: bad byte")
    );
    let verified = out.verified.unwrap();
    assert_eq!((verified.ok, verified.messages), (false, 40));
    let roles: Vec<&str> = out.sides.iter().map(|s| s.role.as_str()).collect();
    assert_eq!(
        roles[..3],
        ["pair 0 initiator", "pair 0 echoer", "pair 1 initiator"]
    );
}

#[test]
fn pairs_that_all_verify_settle_with_their_total() {
    let mut out = CaseResult::new("pingpong", "x", Default::default());
    let reports = (0..4).map(|_| [side(7, None), side(7, None)]).collect();
    let settled = settle(&mut out, reports, ["initiator", "echoer"]).unwrap();
    assert_eq!(settled.len(), 4);
    assert_eq!(out.verified.unwrap().messages, 56);
    assert_eq!(out.sides.len(), 8);
    assert!(out.cpu.is_some());
}

#[test]
fn verdicts_compare_like_loads_and_say_which() {
    let result = |pairs: u64, rate: Option<u64>| {
        let mut params = std::collections::BTreeMap::new();
        params.insert("pairs".to_string(), serde_json::json!(pairs));
        if let Some(rate) = rate {
            params.insert("rate".to_string(), serde_json::json!(rate));
        }
        CaseResult::new("pingpong", "x", params)
    };
    let results = [
        result(1, None),
        result(4, None),
        result(1, None),
        result(1, Some(10_000)),
    ];
    let refs: Vec<&CaseResult> = results.iter().collect();
    let found = |group: &[&CaseResult]| vec![Finding::new("n", format!("{} cases", group.len()))];
    let lines = verdicts_by_load(&refs, found);
    assert_eq!(
        lines,
        ["2 cases", "1 cases at pairs=4", "1 cases at rate=10000"]
    );
}

#[test]
fn running_out_of_room_after_some_pairs_is_unsupported_with_how_many_fit() {
    let full = || std::io::Error::from_raw_os_error(rustix::io::Errno::MFILE.raw_os_error());
    let err = out_of_room(full(), 40, 64);
    let why = err.downcast_ref::<Unsupported>().expect("unsupported");
    assert!(
        why.0.starts_with("pairs=64: connection 41 failed ("),
        "{}",
        why.0
    );
    assert!(
        why.0.ends_with("; the largest pairs that fits is 40"),
        "{}",
        why.0
    );
    // The first connection failing is the case's own failure.
    assert!(out_of_room(full(), 0, 64)
        .downcast_ref::<Unsupported>()
        .is_none());
}
