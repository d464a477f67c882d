//! The claims engine: everything that turns results into a conclusion and
//! names no experiment. A claim (`claim.rs`) is data with a rule
//! (`rule.rs`); a rule kind reads values (`select.rs`, `value.rs`) and
//! weighs one figure with its 95% interval (`estimate.rs`) against its
//! boundaries (`margin.rs`), from this run alone: two cases that ran in
//! the same interleaved rounds are weighed by their paired ratio, and the
//! drift over earlier runs (`drift.rs`) is context. The kinds:
//! two values compared or one within a band (`compare.rs`), a figure
//! relative to this machine (`relative.rs`), the shape of a sweep
//! (`sweep.rs`), every one of several (`each.rs`), a probe check's
//! observations (`observed.rs`), and a seed's own judge (`Rule::Judged`).
//! `conclusion.rs` runs claims and findings alike; `scope.rs` says which
//! claims a run's cases answer. The seeds (`../seeds/`) hold the claims,
//! their judges and their findings; this folder imports none of them.

pub(crate) mod change;
pub mod claim;
pub(crate) mod compare;
pub(crate) mod conclusion;
pub(crate) mod drift;
pub(crate) mod each;
pub(crate) mod estimate;
pub(crate) mod form;
pub(crate) mod margin;
pub(crate) mod noise;
pub(crate) mod numbers;
pub mod observed;
pub(crate) mod outcome;
pub(crate) mod profile;
pub mod relative;
pub(crate) mod restated;
pub mod rule;
pub(crate) mod scope;
pub mod select;
pub(crate) mod sweep;
pub mod value;
