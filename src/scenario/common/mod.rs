//! What the scenarios share: a case and its context, message payloads,
//! side reports and repetitions, messages tagged with their sender, the
//! two-sided run, verdict helpers, the readiness and copier parameters,
//! descriptor budgets and test files, many pairs at once and the open-loop
//! sender.
//! A scenario lives in its own file or folder next to this one.

pub(crate) mod case;
pub(crate) mod copier_params;
pub(crate) mod copier_verdict;
pub(crate) mod explain;
pub(crate) mod fd_budget;
pub(crate) mod open_loop;
pub(crate) mod pairs;
pub(crate) mod payload;
pub(crate) mod readiness;
pub(crate) mod side;
pub(crate) mod tagged;
pub(crate) mod testfile;
pub(crate) mod two_sided;
pub(crate) mod verdict;
