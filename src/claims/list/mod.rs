//! The claims as data: each one's sentence as the original stated it, the
//! original's figure, the results it reads and the rule that decides it. A
//! new claim is one more entry in the file of its kind; `CLAIMS` lists them
//! all, the classic 15 first.

mod classic;
mod compare;
mod probe;
mod probe_new;

pub(crate) use classic::RESTATED;

use super::pick::Select;
use super::Claim;
use std::sync::LazyLock;

/// Every claim, in the order a run reports them.
pub static CLAIMS: LazyLock<Vec<&'static Claim>> = LazyLock::new(|| {
    let kinds: [&'static [Claim]; 4] = [
        classic::CLASSIC,
        compare::COMPARE,
        probe::PROBE,
        probe_new::PROBE_NEW,
    ];
    kinds.into_iter().flatten().collect()
});

pub(super) const fn sel(
    label: &'static str,
    scenario: &'static str,
    params: &'static [(&'static str, &'static str)],
) -> Select {
    Select {
        label,
        scenario,
        params,
        nearest: None,
    }
}

/// The matching result whose `key` is nearest to `target`.
pub(super) const fn near(select: Select, key: &'static str, target: f64) -> Select {
    Select {
        nearest: Some((key, target)),
        ..select
    }
}
