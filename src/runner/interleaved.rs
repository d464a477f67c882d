//! A seeds run's comparisons: the cases each claim compares
//! (`claims::interleave`) run as one group of randomized interleaved
//! rounds (`rounds.rs`), one repetition of every case per round, until
//! the rounds decide every claim that reads them or the group's time cap.
//! Each result keeps its case's planned parameters (the claims find it by
//! them) and gains its rounds; with `--explain` or `--profile`, one extra
//! batch of each case brings its breakdown.

use super::harness::{run_batch, CASE_TIMEOUT};
use super::rounds::{self, Schedule, Watch};
use crate::claims::interleave::Group;
use crate::model::{CaseResult, Status};
use crate::plan::{Interleave, Plan};
use crate::scenario::{CaseCtx, CaseSpec};
use std::path::Path;

/// Rounds before a group may stop because its claims are decided (its
/// first look, the fewest a claim's paired interval needs, which run on a
/// slow host past the time cap), and at most.
const MIN_ROUNDS: usize = crate::stats::looks::FIRST_LOOK;
const MAX_ROUNDS: usize = 500;

/// The round groups: `plan`'s cases that run as rounds together, with
/// the claims that compare them (the claims' comparison groups less the
/// cases known to be unsupported, each group of two cases or more).
pub(crate) fn round_groups(plan: &Plan) -> Vec<Group> {
    if plan.interleave.is_none() {
        return Vec::new();
    }
    let mut groups = crate::claims::interleave::comparison_groups(&plan.cases);
    for g in &mut groups {
        g.cases.retain(|&i| plan.cases[i].unsupported.is_none());
    }
    groups.retain(|g| g.cases.len() > 1);
    groups
}

/// The case of `plan` at which `group`'s rounds run: its last case of the
/// scenario its first case belongs to, so that what that scenario plans
/// between them (a sweep's middle points, which its claims read beside the
/// rounds' two ends) has run before the rounds ask the claims.
pub(crate) fn runs_at(plan: &Plan, group: &Group) -> usize {
    let scenario = plan.cases[group.cases[0]].scenario.name();
    let of_scenario = group
        .cases
        .iter()
        .copied()
        .filter(|&i| plan.cases[i].scenario.name() == scenario);
    of_scenario.max().unwrap_or(group.cases[0])
}

/// Runs the cases of `group` as rounds in `tmp`, `known` the run's
/// results so far; the results in the order of its cases.
pub(crate) fn run_group(
    plan: &Plan,
    how: &Interleave,
    group: &Group,
    known: &[CaseResult],
    tmp: &Path,
) -> Vec<CaseResult> {
    let short: Vec<CaseSpec> = group
        .cases
        .iter()
        .map(|&i| CaseSpec {
            repeat: 1,
            ..plan.cases[i].clone()
        })
        .collect();
    let cases: Vec<&CaseSpec> = short.iter().collect();
    let schedule = Schedule {
        seed: how.seed,
        min: MIN_ROUNDS,
        max: MAX_ROUNDS,
        time_cap: how.time_cap,
        interleaved: true,
        sizing: Some(super::sizing::DEFAULT),
        floor: MIN_ROUNDS,
    };
    let watch = Claims { plan, group, known };
    let mut results = rounds::run_in(plan, &cases, &schedule, &watch, tmp);
    for (out, &i) in results.iter_mut().zip(&group.cases) {
        out.case = plan.cases[i].name();
        out.params = plan.cases[i].params_json();
        if plan.explain || plan.profile {
            explain_once(plan, &plan.cases[i], out, &tmp.join(format!("explain-{i}")));
        }
    }
    results
}

/// Asks the group's claims after each round.
struct Claims<'a> {
    plan: &'a Plan,
    group: &'a Group,
    known: &'a [CaseResult],
}

impl Watch for Claims<'_> {
    fn round_done(&self, _done: usize, _max: usize) {}

    /// The results so far carry their planned parameters, by which the
    /// claims find them.
    fn decided(&self, mut planned: Vec<CaseResult>, spent: f64) -> bool {
        for (out, &i) in planned.iter_mut().zip(&self.group.cases) {
            out.params = self.plan.cases[i].params_json();
        }
        let claims = &self.group.claims;
        crate::claims::interleave::decided(claims, self.known, planned, spent)
    }
}

/// One more batch of `case` with `--explain`/`--profile`, its breakdown
/// and profile attached to `out` (its figures stay the rounds').
fn explain_once(plan: &Plan, case: &CaseSpec, out: &mut CaseResult, dir: &Path) {
    if out.status != Status::Ok || std::fs::create_dir(dir).is_err() {
        return;
    }
    let ctx = CaseCtx {
        dir,
        fault: plan.fault,
        timeout: CASE_TIMEOUT,
        explain: plan.explain,
        offcpu_stacks: plan.explain && plan.profile,
    };
    let extra = run_batch(case, &ctx, plan.profile);
    let _ = std::fs::remove_dir_all(dir);
    if extra.status == Status::Ok {
        out.explain = extra.explain;
        out.profile = extra.profile;
    }
}

#[cfg(test)]
mod tests {
    use super::{round_groups, Group};
    use crate::plan::Plan;

    fn planned(args: &[&str]) -> Plan {
        crate::plan::of_args(args).unwrap()
    }

    fn names(plan: &Plan, group: &[usize]) -> Vec<String> {
        group
            .iter()
            .map(|&i| format!("{} {}", plan.cases[i].scenario.name(), plan.cases[i].name()))
            .collect()
    }

    /// The group holding the case named `name` (scenario and case) with
    /// `repeat` planned repetitions, as names.
    fn group_of(plan: &Plan, groups: &[Group], name: &str, repeat: u64) -> Vec<String> {
        let found = groups.iter().find(|g| {
            g.cases.iter().any(|&i| {
                let c = &plan.cases[i];
                format!("{} {}", c.scenario.name(), c.name()) == name && c.repeat == repeat
            })
        });
        found.map(|g| names(plan, &g.cases)).unwrap_or_default()
    }

    #[test]
    fn the_cases_each_claim_compares_share_rounds_and_nothing_else_does() {
        let plan = planned(&["seeds"]);
        let groups = round_groups(&plan);
        let mut seen: Vec<usize> = groups.iter().flat_map(|g| g.cases.clone()).collect();
        let all = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), all, "a case in two groups: {groups:?}");
        assert!(groups.iter().all(|g| g.cases.len() >= 2), "{groups:?}");
        // E5-poll-faster-at-0 and E5-et-faster: the 15-repetition entry.
        let at_0 = group_of(
            &plan,
            &groups,
            "poll-scale poll/tcp/idle=0/active=10/requests=10000",
            15,
        );
        assert_eq!(
            at_0,
            [
                "poll-scale poll/tcp/idle=0/active=10/requests=10000",
                "poll-scale epoll-lt/tcp/idle=0/active=10/requests=10000",
                "poll-scale epoll-et/tcp/idle=0/requests=10000"
            ]
        );
        // E2's port ring with its reference point, the wake-up round trip;
        // the port's setup is judged alone, in absolute terms.
        let e2 = group_of(&plan, &groups, "limits wake", 15);
        assert!(
            e2.iter().any(|n| n.starts_with("port-ring ")) && e2.len() == 2,
            "{e2:?}"
        );
        let setup = |g: &Group| {
            let named = |&i: &usize| {
                plan.cases[i].scenario.name() == "probe"
                    && plan.cases[i].name().contains("port-setup")
            };
            g.cases.iter().any(named)
        };
        assert!(!groups.iter().any(setup), "{groups:?}");
        assert!(plan.cases.iter().any(|c| c.name().contains("port-setup")));
        // A sweep's two ends, not its middle points.
        let sweep = group_of(&plan, &groups, "poll-scale poll/tcp/idle=10240", 1);
        assert_eq!(
            sweep,
            [
                "poll-scale poll/tcp/idle=0/active=10/requests=20000",
                "poll-scale poll/tcp/idle=10240"
            ]
        );
        assert!(group_of(&plan, &groups, "poll-scale poll/tcp/idle=640", 1).is_empty());
        // Observations compare nothing.
        assert!(group_of(&plan, &groups, "probe pipe-16-pages", 2).is_empty());
    }

    #[test]
    fn a_sweeps_rounds_run_after_its_middle_points() {
        let plan = planned(&["seeds"]);
        let groups = round_groups(&plan);
        let sweep = groups
            .iter()
            .find(|g| g.claims.iter().any(|c| c.id == "E5-epoll-flat"))
            .expect("E5-epoll-flat's group");
        let at = super::runs_at(&plan, sweep);
        assert_eq!(at, *sweep.cases.iter().max().unwrap());
        let middle: Vec<usize> = (0..plan.cases.len())
            .filter(|&i| {
                let c = &plan.cases[i];
                let idle = c.params_json().get("idle").and_then(|v| v.as_u64());
                let idle = idle.unwrap_or(0);
                c.scenario.name() == "poll-scale"
                    && c.name().starts_with("epoll-lt/")
                    && c.repeat == 1
                    && (1..10240).contains(&idle)
            })
            .collect();
        assert_eq!(middle.len(), 10, "{middle:?}");
        assert!(middle.iter().all(|&i| i < at), "{middle:?} after {at}");
        // A group within one scenario runs at its last case; one across
        // scenarios at its first scenario's last.
        let e2 = groups
            .iter()
            .find(|g| g.claims.iter().any(|c| c.id == "E2-port-tens-of-us"))
            .expect("E2-port-tens-of-us's group");
        assert_eq!(super::runs_at(&plan, e2), e2.cases[0]);
    }

    #[test]
    fn a_run_that_decides_no_claims_runs_no_rounds() {
        assert!(round_groups(&planned(&["quick"])).is_empty());
        assert!(round_groups(&planned(&["pingpong", "--quick"])).is_empty());
    }

    #[test]
    fn a_group_runs_seeded_rounds_keeps_its_planned_params_and_explains_once() {
        let plan = planned(&[
            "pingpong",
            "--mech=pipe,eventfd",
            "--placement=same-cpu",
            "--mode=threads",
            "-p",
            "count=200",
            "--repeat=4",
            "--explain",
        ]);
        let how = crate::plan::Interleave {
            seed: 42,
            time_cap: std::time::Duration::from_secs(30),
        };
        let tmp = tempfile::tempdir().unwrap();
        let group = Group {
            cases: vec![0, 1],
            claims: Vec::new(),
        };
        let results = super::run_group(&plan, &how, &group, &[], tmp.path());
        assert_eq!(results.len(), 2);
        for (r, case) in results.iter().zip(&plan.cases) {
            assert_eq!(r.status, crate::model::Status::Ok, "{:?}", r.reason);
            let rounds = r.rounds.as_ref().unwrap();
            // No claim reads pingpong: decided from the first allowed stop.
            assert_eq!((rounds.seed, rounds.values.len()), (42, super::MIN_ROUNDS));
            assert!(rounds.interleaved);
            // Each round's batch: the sized repetitions, count sized by time.
            let reps = crate::runner::sizing::DEFAULT.reps as usize;
            let (_, headline) = r.headline_metric().unwrap();
            assert_eq!(headline.reps.len(), super::MIN_ROUNDS * reps);
            assert!(rounds.batch.starts_with("count="), "{}", rounds.batch);
            assert_eq!(r.case, case.name());
            assert_eq!(r.params, case.params_json());
            assert_eq!(r.params["repeat"], 4);
            assert!(r.explain.is_some(), "no breakdown on {}", r.case);
        }
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
