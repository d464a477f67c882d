use super::*;

/// The fixture tree of a real machine under tests/fixtures/sysfs.
fn fixture(machine: &str) -> Topology {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysfs")
        .join(machine);
    let topo = Topology::read(&root.join("cpu"), &root.join("node"));
    assert!(!topo.cpus.is_empty(), "fixture {machine} has no CPUs");
    topo
}

/// Every class's pair on all of `topo`'s CPUs, or its reason.
fn classes(topo: &Topology) -> Vec<Result<(usize, usize), String>> {
    let all: Vec<usize> = topo.cpus.iter().map(|c| c.id).collect();
    ALL_CLASSES.iter().map(|c| topo.pair(*c, &all)).collect()
}

fn lacks(why: &str) -> Result<(usize, usize), String> {
    Err(why.to_string())
}

#[test]
fn two_socket_xeon_has_siblings_l3_and_nodes() {
    let topo = fixture("xeon-2s-e5-2623v4");
    assert_eq!(topo.cpus.len(), 16);
    assert_eq!(topo.threads(4), &[4, 12]);
    assert_eq!(topo.cpus[13].node, Some(1));
    assert_eq!(
        classes(&topo),
        vec![
            Ok((0, 8)),
            lacks("no L2 shared by two cores: every core has its own"),
            Ok((0, 1)),
            lacks("every NUMA node has one L3: pairs across L3s are cross-node"),
            Ok((0, 4)),
        ]
    );
}

#[test]
fn epyc_has_an_l3_per_ccx_in_one_node() {
    let topo = fixture("epyc-7302p");
    assert_eq!(topo.cpus.len(), 32);
    assert_eq!(topo.cpus[17].l3, vec![0, 1, 16, 17]);
    assert_eq!(
        classes(&topo),
        vec![
            Ok((0, 16)),
            lacks("no L2 shared by two cores: every core has its own"),
            Ok((0, 1)),
            Ok((0, 2)),
            lacks("one NUMA node"),
        ]
    );
}

#[test]
fn hybrid_laptop_has_smt_p_cores_and_e_core_clusters() {
    let topo = fixture("laptop-i7-1260p");
    assert_eq!(topo.threads(8), &[8]);
    assert_eq!(topo.cpus[9].l2, vec![8, 9, 10, 11]);
    assert_eq!(
        classes(&topo),
        vec![
            Ok((0, 1)),
            Ok((8, 9)),
            Ok((0, 2)),
            lacks("one L3 for all CPUs"),
            lacks("one NUMA node"),
        ]
    );
}

#[test]
fn two_vcpu_vm_lacks_all_but_a_shared_l3() {
    let topo = fixture("vm-2vcpu");
    assert_eq!(
        classes(&topo),
        vec![
            lacks("no SMT siblings: every core has one thread"),
            lacks("no L2 shared by two cores: every core has its own"),
            Ok((0, 1)),
            lacks("one L3 for all CPUs"),
            lacks("one NUMA node"),
        ]
    );
}

#[test]
fn pairs_come_from_the_allowed_cpus_only() {
    let topo = fixture("xeon-2s-e5-2623v4");
    assert_eq!(topo.pair(Class::SmtSibling, &[13, 5, 3, 11]), Ok((3, 11)));
    assert_eq!(topo.pair(Class::CrossNode, &[9, 2, 6]), Ok((2, 6)));
    assert_eq!(
        topo.pair(Class::CrossNode, &[0, 1, 8]),
        lacks("no cross-node pair among the CPUs this process may use [0, 1, 8]")
    );
    assert!(topo.pair(Class::SharedL3, &[0, 99]).is_err());
}

#[test]
fn a_missing_tree_has_no_cpus_and_no_pairs() {
    let topo = Topology::read(
        Path::new("/nonexistent/cpu"),
        Path::new("/nonexistent/node"),
    );
    assert!(topo.cpus.is_empty());
    assert_eq!(
        topo.pair(Class::SharedL3, &[0, 1]),
        lacks("sysfs shows no L3 cache")
    );
}
