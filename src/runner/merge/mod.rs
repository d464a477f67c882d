//! One result from a case's batches (`--precision`): each further batch's
//! repetitions join the first's, so the figures read as if the case had run
//! them all at once. Metrics with per-repetition values concatenate them and
//! recompute median, min and max; metrics measured once per batch (per-op
//! ratios over equal batches) become the mean over batches; latency
//! histograms add up; verified counts, CPU and context switches sum; each
//! side keeps every CPU it was seen on. Series keep the first batch's time
//! axis, and flags are kept once by name.

use crate::measure::metric;
use crate::model::{CaseResult, CpuUsage, Metric, Side};
use crate::stats::histogram::Latencies;

/// Adds `batch` to `into`, which holds `merged` batches so far.
pub(crate) fn merge(into: &mut CaseResult, batch: CaseResult, merged: u64) -> anyhow::Result<()> {
    for (name, m) in batch.metrics {
        match into.metrics.get_mut(&name) {
            Some(have) => merge_metric(have, m, merged),
            None => {
                into.metrics.insert(name, m);
            }
        }
    }
    merge_latency(into, batch.histogram)?;
    if let (Some(v), Some(add)) = (into.verified.as_mut(), batch.verified) {
        v.ok &= add.ok;
        v.messages += add.messages;
        v.bytes += add.bytes;
    }
    into.cpu = match (into.cpu.take(), batch.cpu) {
        (Some(a), Some(b)) => Some(add_cpu(&a, &b)),
        (a, b) => a.or(b),
    };
    for side in batch.sides {
        match into.sides.iter_mut().find(|s| s.role == side.role) {
            Some(have) => merge_side(have, side),
            None => into.sides.push(side),
        }
    }
    for flag in batch.flags {
        if !into.flags.iter().any(|f| f.name == flag.name) {
            into.flags.push(flag);
        }
    }
    Ok(())
}

fn merge_metric(have: &mut Metric, add: Metric, merged: u64) {
    if !have.reps.is_empty() && !add.reps.is_empty() {
        let mut reps = std::mem::take(&mut have.reps);
        reps.extend(add.reps);
        *have = metric::metric(reps, &have.unit);
        return;
    }
    let n = merged as f64;
    have.value = (have.value * n + add.value) / (n + 1.0);
    have.min = pick(have.min, add.min, f64::min);
    have.max = pick(have.max, add.max, f64::max);
}

fn pick(a: Option<f64>, b: Option<f64>, f: fn(f64, f64) -> f64) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, b) => a.or(b),
    }
}

/// Adds the batch's histogram and summarises the sum as the first batch did.
fn merge_latency(into: &mut CaseResult, add: Option<Vec<u8>>) -> anyhow::Result<()> {
    let (Some(have), Some(add), Some(kind)) = (
        into.histogram.as_deref(),
        add,
        into.latency.as_ref().map(|l| l.kind),
    ) else {
        return Ok(());
    };
    let mut sum = Latencies::from_v2(have)?;
    sum.merge(&Latencies::from_v2(&add)?);
    let unit = into.latency.as_ref().map(|l| l.unit.clone());
    let mut summary = sum.summary(kind);
    summary.unit = unit.unwrap_or(summary.unit);
    into.latency = Some(summary);
    into.histogram = Some(sum.to_v2());
    Ok(())
}

fn add_cpu(a: &CpuUsage, b: &CpuUsage) -> CpuUsage {
    CpuUsage {
        user_s: a.user_s + b.user_s,
        sys_s: a.sys_s + b.sys_s,
        voluntary_csw: a.voluntary_csw + b.voluntary_csw,
        involuntary_csw: a.involuntary_csw + b.involuntary_csw,
    }
}

fn merge_side(have: &mut Side, add: Side) {
    have.cpu = add_cpu(&have.cpu, &add.cpu);
    for cpu in add.cpus {
        if !have.cpus.contains(&cpu) {
            have.cpus.push(cpu);
        }
    }
}

#[cfg(test)]
mod tests;
