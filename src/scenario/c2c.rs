//! `c2c`: the core-to-core map. A cache line bounced between every pair of
//! CPUs by `limits`' `cacheline_rtt`, as core-to-core-latency draws it: an
//! N x N matrix of round trips (the result's `matrix`, a heatmap in the
//! HTML report), its floor, and the floor of each topology class the
//! machine has (`measure::topology`), which `limits` reports too.
//!
//! Each unordered pair is measured once per repetition and mirrored; the
//! diagonal stays empty (two threads spinning on one CPU measure the
//! scheduler, not the cache). Past `max-cpus` CPUs the map is a sample:
//! that many CPUs evenly spaced over the allowed ones, plus one pair of
//! each class the machine has, so every class keeps its floor.

use super::{CaseCtx, CaseSpec, MetricSpec, ParamKind, ParamSpec, Scenario, Unsupported};
use crate::measure::pin::allowed_cpus;
use crate::measure::topology::{Class, Topology, ALL_CLASSES};
use crate::model::{CaseResult, Finding, Matrix};
use crate::stats::estimators::median;

pub(crate) struct C2c;

const COUNT: ParamSpec = ParamSpec {
    name: "count",
    kind: ParamKind::Count,
    default: "20000",
    about: "round trips per CPU pair and repetition",
    in_name: false,
};

const MAX_CPUS: ParamSpec = ParamSpec {
    name: "max-cpus",
    kind: ParamKind::Count,
    default: "16",
    about: "CPUs in the map; more allowed CPUs are sampled evenly (plus a pair per class)",
    in_name: true,
};

const PARAMS: &[ParamSpec] = &[COUNT, MAX_CPUS];

pub(crate) const FLOOR_NS: MetricSpec = MetricSpec {
    name: "c2c_floor_ns",
    unit: "ns",
    about: "the fastest cache-line round trip of any CPU pair",
};

pub(crate) const MEDIAN_NS: MetricSpec = MetricSpec {
    name: "c2c_median_ns",
    unit: "ns",
    about: "the median cache-line round trip over all CPU pairs",
};

/// The floor of each topology class, in `ALL_CLASSES` order.
pub(crate) const CLASS_FLOORS: [MetricSpec; 5] = [
    floor(
        "c2c_smt_sibling_ns",
        "cache-line round trip floor between SMT siblings",
    ),
    floor(
        "c2c_shared_l2_ns",
        "cache-line round trip floor between cores sharing an L2",
    ),
    floor(
        "c2c_shared_l3_ns",
        "cache-line round trip floor between CPUs sharing an L3",
    ),
    floor(
        "c2c_cross_l3_ns",
        "cache-line round trip floor across L3s of one node",
    ),
    floor(
        "c2c_cross_node_ns",
        "cache-line round trip floor across NUMA nodes",
    ),
];

const fn floor(name: &'static str, about: &'static str) -> MetricSpec {
    MetricSpec {
        name,
        unit: "ns",
        about,
    }
}

const METRICS: &[MetricSpec] = &[
    FLOOR_NS,
    MEDIAN_NS,
    CLASS_FLOORS[0],
    CLASS_FLOORS[1],
    CLASS_FLOORS[2],
    CLASS_FLOORS[3],
    CLASS_FLOORS[4],
];

/// The metric of `class`'s floor.
pub(crate) fn class_floor(class: Class) -> &'static MetricSpec {
    let i = ALL_CLASSES.iter().position(|c| *c == class).unwrap_or(0);
    &CLASS_FLOORS[i]
}

impl Scenario for C2c {
    fn name(&self) -> &'static str {
        "c2c"
    }
    fn about(&self) -> &'static str {
        "cache-line round trip between every pair of CPUs: a core-to-core map and each topology class's floor"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn metrics(&self) -> &'static [MetricSpec] {
        METRICS
    }
    fn run(&self, case: &CaseSpec, _ctx: &CaseCtx, out: &mut CaseResult) -> anyhow::Result<()> {
        let (cpus, note) = sample(&allowed_cpus(), case.int(&MAX_CPUS) as usize);
        let map = measure(&cpus, case.int(&COUNT).max(1), case.repeat as usize)?;
        FLOOR_NS.set(out, map.per_rep(|_| true, f64::min));
        FLOOR_NS.set_headline(out);
        let mut all: Vec<f64> = map.pairs.iter().map(|p| p.median()).collect();
        MEDIAN_NS.set(out, vec![median(&mut all)]);
        set_class_floors(&map, out);
        out.matrix = Some(map.matrix(note));
        Ok(())
    }
    fn findings(&self, results: &[&CaseResult]) -> Vec<Finding> {
        results.iter().filter_map(|r| floors_line(r)).collect()
    }
}

/// "... floor per class: shared-l3 81 ns, cross-node 190 ns" for an ok
/// result with class floors (`c2c`'s or `limits`').
pub(crate) fn floors_line(r: &CaseResult) -> Option<Finding> {
    if r.status != crate::model::Status::Ok {
        return None;
    }
    let floors: Vec<(&str, f64)> = ALL_CLASSES
        .iter()
        .filter_map(|c| Some((c.name(), class_floor(*c).value(r)?)))
        .collect();
    let parts: Vec<String> = floors
        .iter()
        .map(|(class, ns)| format!("{class} {}", crate::format::human(*ns, "ns")))
        .collect();
    (!parts.is_empty()).then(|| {
        let text = format!(
            "cache-line round trip floor per class: {}",
            parts.join(", ")
        );
        let finding = Finding::new("class-floors", text);
        floors
            .iter()
            .fold(finding, |f, (class, ns)| f.with(class, *ns, "ns"))
    })
}

/// The CPUs of the map and how they were chosen: all of `allowed` up to
/// `max`, else `max` evenly spaced plus one pair of each class there is.
fn sample(allowed: &[usize], max: usize) -> (Vec<usize>, String) {
    let n = allowed.len();
    if n <= max.max(2) {
        return (allowed.to_vec(), format!("all {n} CPUs"));
    }
    let max = max.max(2);
    let mut cpus: Vec<usize> = (0..max).map(|i| allowed[i * (n - 1) / (max - 1)]).collect();
    let topo = Topology::here();
    for class in ALL_CLASSES {
        if let Ok((a, b)) = topo.pair(class, allowed) {
            cpus.extend([a, b]);
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    let note = format!(
        "a sample of {} of {n} CPUs: {max} evenly spaced and one pair of each topology class",
        cpus.len()
    );
    (cpus, note)
}

/// One unordered pair's round trips, one per repetition.
pub(crate) struct Pair {
    pub(crate) cpus: (usize, usize),
    pub(crate) class: Option<Class>,
    pub(crate) reps: Vec<f64>,
}

impl Pair {
    fn median(&self) -> f64 {
        median(&mut self.reps.clone())
    }
}

/// The measured map: every unordered pair of `cpus`.
pub(crate) struct Map {
    pub(crate) cpus: Vec<usize>,
    pub(crate) pairs: Vec<Pair>,
}

/// Bounces a cache line `trips` times between every pair of `cpus`, `reps`
/// times over (the whole map once per repetition, after one short warm-up).
pub(crate) fn measure(cpus: &[usize], trips: u64, reps: usize) -> anyhow::Result<Map> {
    if cpus.len() < 2 {
        return Err(Unsupported(format!(
            "c2c needs two CPUs, this process may only use {cpus:?}"
        ))
        .into());
    }
    let topo = Topology::here();
    let mut pairs: Vec<Pair> = Vec::new();
    for (i, a) in cpus.iter().enumerate() {
        for b in &cpus[i + 1..] {
            let class = topo.class(*a, *b);
            pairs.push(Pair {
                cpus: (*a, *b),
                class,
                reps: Vec::new(),
            });
        }
    }
    let round_trip =
        |p: &Pair, trips| super::cacheline_rtt(trips, [Some(p.cpus.0), Some(p.cpus.1)]);
    round_trip(&pairs[0], trips / 10 + 1);
    for _ in 0..reps.max(1) {
        for pair in &mut pairs {
            anyhow::ensure!(!crate::exec::cleanup::cancelled(), "interrupted");
            let ns = round_trip(pair, trips);
            pair.reps.push(ns);
        }
    }
    Ok(Map {
        cpus: cpus.to_vec(),
        pairs,
    })
}

impl Map {
    /// Per repetition, `fold` over the pairs that `keep` selects (None when
    /// it selects none).
    fn per_rep(&self, keep: impl Fn(&Pair) -> bool, fold: fn(f64, f64) -> f64) -> Vec<f64> {
        let kept: Vec<&Pair> = self.pairs.iter().filter(|p| keep(p)).collect();
        if kept.is_empty() {
            return Vec::new();
        }
        (0..kept[0].reps.len())
            .map(|r| kept.iter().map(|p| p.reps[r]).fold(f64::INFINITY, fold))
            .collect()
    }

    /// Each class's floor per repetition, for the classes among the pairs.
    pub(crate) fn class_floors(&self) -> Vec<(Class, Vec<f64>)> {
        ALL_CLASSES
            .into_iter()
            .map(|c| (c, self.per_rep(|p| p.class == Some(c), f64::min)))
            .filter(|(_, reps)| !reps.is_empty())
            .collect()
    }

    /// The symmetric matrix of each pair's median, the diagonal empty.
    fn matrix(&self, note: String) -> Matrix {
        let at = |cpu: usize| self.cpus.iter().position(|c| *c == cpu).unwrap_or(0);
        let n = self.cpus.len();
        let mut values = vec![vec![None; n]; n];
        for pair in &self.pairs {
            let (i, j) = (at(pair.cpus.0), at(pair.cpus.1));
            let ns = pair.median();
            values[i][j] = Some(ns);
            values[j][i] = Some(ns);
        }
        Matrix {
            cpus: self.cpus.clone(),
            unit: "ns".into(),
            values,
            note,
        }
    }
}

/// Records each class's floor in `out`.
fn set_class_floors(map: &Map, out: &mut CaseResult) {
    for (class, reps) in map.class_floors() {
        class_floor(class).set(out, reps);
    }
}

/// `limits`' `c2c` probe: the map over the default sample, `trips` round
/// trips a pair, keeping only each class's floor; the nearest class is
/// the headline. A machine whose sysfs names no class is unsupported.
pub(crate) fn class_floors(trips: u64, reps: usize, out: &mut CaseResult) -> anyhow::Result<()> {
    let max = MAX_CPUS.default.parse().unwrap_or(16);
    let (cpus, _) = sample(&allowed_cpus(), max);
    let map = measure(&cpus, trips.max(1), reps)?;
    let Some((nearest, _)) = map.class_floors().into_iter().next() else {
        let why = "sysfs names no topology class for any pair of the allowed CPUs";
        return Err(Unsupported(why.to_string()).into());
    };
    set_class_floors(&map, out);
    class_floor(nearest).set_headline(out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(cpus: (usize, usize), class: Option<Class>, reps: &[f64]) -> Pair {
        Pair {
            cpus,
            class,
            reps: reps.to_vec(),
        }
    }

    fn map() -> Map {
        Map {
            cpus: vec![0, 1, 2],
            pairs: vec![
                pair((0, 1), Some(Class::SmtSibling), &[10.0, 12.0, 11.0]),
                pair((0, 2), Some(Class::CrossNode), &[100.0, 90.0, 95.0]),
                pair((1, 2), Some(Class::CrossNode), &[80.0, 120.0, 85.0]),
            ],
        }
    }

    #[test]
    fn the_matrix_is_symmetric_with_an_empty_diagonal() {
        let m = map().matrix("all 3 CPUs".into());
        assert_eq!(m.cpus, vec![0, 1, 2]);
        assert_eq!(m.values[0], vec![None, Some(11.0), Some(95.0)]);
        assert_eq!(m.values[1], vec![Some(11.0), None, Some(85.0)]);
        assert_eq!(m.values[2], vec![Some(95.0), Some(85.0), None]);
    }

    #[test]
    fn each_class_present_gets_its_floor_per_repetition() {
        let floors = map().class_floors();
        let classes: Vec<Class> = floors.iter().map(|(c, _)| *c).collect();
        assert_eq!(classes, vec![Class::SmtSibling, Class::CrossNode]);
        assert_eq!(floors[1].1, vec![80.0, 90.0, 85.0]);
        let mut out = CaseResult::new("c2c", "c2c", Default::default());
        set_class_floors(&map(), &mut out);
        let names: Vec<&String> = out.metrics.keys().collect();
        assert_eq!(names, ["c2c_cross_node_ns", "c2c_smt_sibling_ns"]);
        assert_eq!(
            floors_line(&out).unwrap().text,
            "cache-line round trip floor per class: smt-sibling 11.0 ns, cross-node 85.0 ns"
        );
    }

    #[test]
    fn a_big_machine_is_sampled_and_a_small_one_is_whole() {
        let (cpus, note) = sample(&[0, 1], 16);
        assert_eq!((cpus, note.as_str()), (vec![0, 1], "all 2 CPUs"));
        let many: Vec<usize> = (0..64).collect();
        let (cpus, note) = sample(&many, 4);
        for cpu in [0, 21, 42, 63] {
            assert!(cpus.contains(&cpu), "{cpus:?}");
        }
        assert!(
            note.starts_with(&format!("a sample of {} of 64 CPUs", cpus.len())),
            "{note}"
        );
    }

    #[test]
    fn one_cpu_is_unsupported_with_the_reason() {
        let err = measure(&[3], 10, 1).err().unwrap();
        let why = err.downcast_ref::<Unsupported>().unwrap();
        assert_eq!(why.0, "c2c needs two CPUs, this process may only use [3]");
    }
}
