//! The six seeds, one folder each: the seed's claims as data (`eN/mod.rs`),
//! the judges of the tests that belong to its experiment alone, and the
//! findings it draws from the scenarios it owns. A new claim is one entry
//! in its seed's list (and its row in docs/claims.md). The engine
//! (`../engine/`) runs them all alike.

mod e1;
mod e2;
mod e3;
mod e4;
mod e5;
mod e6;

use super::engine::change::{KernelChange, ReadsMachine};
use super::engine::claim::{Claim, StatedBy};
use super::engine::conclusion::Findings;
use super::engine::observed::CheckJudge;
use super::engine::restated::Restated;
use super::engine::rule::Rule;
use super::engine::select::Select;
use super::engine::value::Quantity;

/// Every claim, in the order a run reports them: the experiments' own
/// claims first, then the write-ups' further claims iolab measures, then
/// those the kernel's answers settle (`probe`), each group by seed.
pub(crate) fn claims() -> Vec<&'static Claim> {
    let seeds: [&'static [Claim]; 6] = [
        e1::CLAIMS,
        e2::CLAIMS,
        e3::CLAIMS,
        e4::CLAIMS,
        e5::CLAIMS,
        e6::CLAIMS,
    ];
    let mut all: Vec<&'static Claim> = seeds.into_iter().flatten().collect();
    all.sort_by_key(|c| (c.stated_by, c.scenario == "probe", c.source));
    all
}

/// The kernel changes known to turn a claim's verdict, every seed's.
pub(crate) fn kernel_changes() -> Vec<&'static KernelChange> {
    e1::CHANGES.iter().chain(e4::CHANGES).collect()
}

/// The claims whose verdicts read a fact of the machine besides the kernel.
pub(crate) fn reads_machine() -> Vec<&'static ReadsMachine> {
    e2::READS_MACHINE.iter().chain(e5::READS_MACHINE).collect()
}

/// The findings that restate a claim's comparison.
pub(crate) fn restated() -> Vec<&'static Restated> {
    e1::RESTATED.iter().collect()
}

/// The findings the seeds draw from the scenarios they own.
pub(crate) const FINDINGS: &[Findings] = &[e3::FINDINGS];

/// The smallest effect of a claim a probe check settles: a kernel's answer
/// is a yes or a no, and a figure weighed (E5-epoll-ctl-constant) is judged
/// as E5-epoll-flat is.
const ANSWER: f64 = 0.2;

/// A further claim of a seed's write-up, with no kernel evidence.
const fn write_up(
    (id, source): (&'static str, &'static str),
    (sentence, original): (&'static str, &'static str),
    scenario: &'static str,
    rule: Rule,
    resolve: f64,
) -> Claim {
    Claim {
        id,
        source,
        stated_by: StatedBy::WriteUp,
        myth: false,
        sentence,
        original,
        scenario,
        rule,
        resolve,
        kernel: None,
    }
}

/// A claim a probe check's observations settle through `judge`.
const fn observed(
    id: &'static str,
    source: &'static str,
    check: &'static str,
    judge: CheckJudge,
    form: &'static str,
    sentence: &'static str,
    original: &'static str,
) -> Claim {
    let rule = Rule::Observed {
        check,
        judge,
        form,
        timed: false,
    };
    write_up((id, source), (sentence, original), "probe", rule, ANSWER)
}

/// `claim` (a probe check's) as one whose check times something.
const fn timed(claim: Claim) -> Claim {
    let rule = match claim.rule {
        Rule::Observed {
            check, judge, form, ..
        } => Rule::Observed {
            check,
            judge,
            form,
            timed: true,
        },
        other => other,
    };
    Claim { rule, ..claim }
}

/// The form of a claim decided by whether a timestamp moved.
const TIMESTAMP: &str =
    "whether fstat's timestamp moved across one call more than a timestamp tick apart: \
     the kernel's answer, machine-independent";
/// The form of a claim decided by the kernel's answer to a call.
const ANSWERED: &str = "the kernel's answer to one call: machine-independent";
/// The form of a claim decided by a count the kernel reports.
const COUNTED: &str = "a count the kernel reports: machine-independent";

/// An "about the same" claim on a ratio of two results of one run.
#[allow(clippy::too_many_arguments)]
const fn similar(
    id: &'static str,
    source: &'static str,
    sentence: &'static str,
    original: &'static str,
    scenario: &'static str,
    (q, a, b): (Quantity, Select, Select),
    tolerance: f64,
    resolve: f64,
) -> Claim {
    let rule = Rule::Similar { q, a, b, tolerance };
    write_up((id, source), (sentence, original), scenario, rule, resolve)
}
