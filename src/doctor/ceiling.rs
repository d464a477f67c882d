//! The most any transport could save on one channel (Amdahl's law): for
//! each thread that called on it, the share of that thread's traced time
//! spent in those calls that a transport could remove; the largest share
//! `s` bounds the program's gain at 1/(1-s). In a stream, time blocked in
//! a call is the other end's own work (a producer still producing, a
//! consumer still consuming), so only time on CPU or preempted inside the
//! calls counts; in round trips the whole call counts (the answer's
//! transport is inside the wait). One connection of many (a server's
//! accepted connections, one after another) is a small share alone, so a
//! ceiling spans the channels of one flow: a process's connections to or
//! from one service endpoint, its reads of one file. An alternative
//! measured r times faster in a micro-benchmark makes the program at most
//! 1/((1-s)+s/r) faster.

use super::calls::Call;
use super::pattern::Shape;
use std::collections::{BTreeMap, HashMap};

/// Shares are kept under this: a thread never spends all its time in one
/// channel's calls with nothing else at all.
const MAX_SHARE: f64 = 0.99;

#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Ceiling {
    /// The thread whose share bounds it (command and tid).
    pub(crate) thread: String,
    /// Of that thread's traced time, the share a transport could remove.
    pub(crate) share: f64,
    /// 1/(1-share): no transport could make the program faster than this.
    pub(crate) at_most: f64,
    /// The channels of the flow it spans (1: the channel alone).
    pub(crate) channels: usize,
}

/// The ceiling of a flow whose calls are `calls` (each with the shape of
/// its channel), over `channels` channels, each thread's traced time in
/// `traced`; None without calls.
pub(crate) fn ceiling(
    calls: &[(&Call, Shape)],
    channels: usize,
    traced: &HashMap<i32, u64>,
    name: &dyn Fn(i32) -> String,
) -> Option<Ceiling> {
    let mut removable: BTreeMap<i32, u64> = BTreeMap::new();
    for (c, shape) in calls {
        let ns = match shape {
            Shape::RequestResponse => c.total_ns,
            _ => c.total_ns.saturating_sub(c.blocked_ns),
        };
        *removable.entry(c.tid).or_default() += ns;
    }
    let (tid, share) = removable
        .into_iter()
        .filter_map(|(tid, ns)| {
            let of = *traced.get(&tid)?;
            (of > 0).then(|| (tid, (ns as f64 / of as f64).min(MAX_SHARE)))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(Ceiling {
        thread: name(tid),
        share,
        at_most: 1.0 / (1.0 - share),
        channels,
    })
}

/// The program's gain when a share `share` of a thread's time becomes
/// `speedup` times faster (Amdahl), so never above the ceiling.
pub(crate) fn projected(share: f64, speedup: f64) -> f64 {
    if !(speedup.is_finite() && speedup > 0.0) {
        return 1.0;
    }
    1.0 / ((1.0 - share) + share / speedup)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::syscalls::Direction;

    fn call(tid: i32, total_ns: u64, blocked_ns: u64) -> Call {
        Call {
            tid,
            nr: 0,
            start: 0,
            fd: Some(3),
            object: Some(1),
            bytes: Some(64),
            error: None,
            opened: None,
            direction: Direction::In,
            total_ns,
            blocked_ns,
            preempted_ns: 0,
        }
    }

    #[test]
    fn a_stream_counts_time_on_cpu_and_round_trips_the_whole_call() {
        let calls = [call(1, 600, 500), call(2, 300, 0)];
        let with = |shape| -> Vec<(&Call, Shape)> { calls.iter().map(|c| (c, shape)).collect() };
        let traced = HashMap::from([(1, 1000), (2, 1000)]);
        let name = |tid: i32| format!("t{tid}");
        let stream = ceiling(&with(Shape::OneWay), 1, &traced, &name).unwrap();
        assert_eq!(stream.thread, "t2");
        assert!((stream.share - 0.3).abs() < 1e-9);
        assert!((stream.at_most - 1.0 / 0.7).abs() < 1e-9);
        let rr = ceiling(&with(Shape::RequestResponse), 1, &traced, &name).unwrap();
        assert_eq!(rr.thread, "t1");
        assert!((rr.at_most - 2.5).abs() < 1e-9);
    }

    #[test]
    fn a_projection_never_passes_the_ceiling() {
        let share = 0.2;
        for speedup in [0.5, 1.0, 2.0, 10.0, 1e9] {
            assert!(projected(share, speedup) <= 1.0 / (1.0 - share) + 1e-9);
        }
        assert!(projected(share, 0.5) < 1.0, "a slower transport slows it");
        assert_eq!(projected(share, f64::NAN), 1.0);
    }
}
