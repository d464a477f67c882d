//! A check that times the same operation several times records the median
//! and the 95% interval of that median (`NAME`, `NAME_lo`, `NAME_hi`) over
//! `NAME_runs` runs, so a claim can weigh the figure with its uncertainty
//! rather than one sample.

use super::{ns, Probing};
use crate::stats::bootstrap::median_interval;
use crate::stats::estimators::median;

/// Records `samples` (ns each) of `call` as four figures: the median, the
/// bounds of its 95% interval (the median itself with one sample) and the
/// number of samples.
pub(super) fn record(p: &mut Probing, name: &str, call: &str, samples: &[f64]) {
    let mut sorted = samples.to_vec();
    let mid = median(&mut sorted);
    let (lo, hi) = median_interval(samples).unwrap_or((mid, mid));
    let answer = format!(
        "median {} over {} runs (min {}, max {})",
        ns(mid as u64),
        samples.len(),
        ns(sorted.first().copied().unwrap_or(mid) as u64),
        ns(sorted.last().copied().unwrap_or(mid) as u64),
    );
    p.measured(name, call, answer, mid, "ns");
    let bounds = format!("{}-{}", ns(lo as u64), ns(hi as u64));
    let what = format!("95% interval of the median of {name}");
    p.measured(&format!("{name}_lo"), &what, &bounds, lo, "ns");
    p.measured(&format!("{name}_hi"), &what, &bounds, hi, "ns");
    let runs = samples.len();
    let answer = crate::format::plural(runs, "run");
    p.measured(&format!("{name}_runs"), call, answer, runs as f64, "runs");
}
