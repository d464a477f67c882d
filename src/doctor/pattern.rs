//! The pattern of one channel read from what moved on it: bytes each way,
//! the calls that moved them, and the sequence of their directions. A
//! request answered by a response moves bytes both ways (a message larger
//! than the socket's buffer in several calls); a bulk transfer answers a
//! small request with many calls, or megabytes, the other way; a one-way
//! stream moves bytes one way only. A channel that moved nothing
//! (every call failed, EAGAIN from a poll) has no pattern, and so nothing
//! to measure alternatives for.

use super::calls::Call;
use super::syscalls::Direction;

/// What the bytes on a channel looked like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Shape {
    /// No call moved a byte.
    Nothing,
    /// Bytes one way only.
    OneWay,
    /// Requests and responses: both ways carry messages (the lighter at
    /// least 1/`BULK_RATIO` of the heavier's bytes), or small requests
    /// each answered by a short response.
    RequestResponse,
    /// Small requests each answered by a long run of calls the other way.
    Bulk,
}

/// What moved on a channel while traced.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Moved {
    pub(crate) bytes_in: u64,
    pub(crate) bytes_out: u64,
    /// Calls that moved at least a byte, each way.
    pub(crate) calls_in: u64,
    pub(crate) calls_out: u64,
    /// Calls that failed (EAGAIN, EINTR, errors): they moved nothing.
    pub(crate) failed: u64,
    /// Changes of direction between successive calls that moved bytes.
    pub(crate) turns: u64,
    /// The heavier way's bytes over the lighter's (1 with one way only).
    pub(crate) ratio: f64,
    pub(crate) shape: Shape,
    /// The message size the pattern is measured with: the median bytes
    /// per call the heavier way (round trips: the larger way's).
    pub(crate) size: Option<u64>,
}

/// The heavier way moves this many times the bytes of the lighter, in
/// runs of at least `BULK_RUN` calls between turns, or at least
/// `BULK_BYTES` per exchange however few calls carried them (sendfile
/// moves megabytes a call): a bulk transfer. A local socket moves 1 MiB
/// in hundreds of microseconds, longer than a wake-up: its time is the
/// bandwidth's, not the round trip's.
const BULK_RATIO: f64 = 16.0;
const BULK_RUN: f64 = 4.0;
const BULK_BYTES: f64 = (1 << 20) as f64;

pub(crate) fn moved(calls: &[&Call]) -> Moved {
    let mut moving: Vec<&Call> = calls
        .iter()
        .copied()
        .filter(|c| c.bytes.is_some_and(|b| b > 0))
        .filter(|c| matches!(c.direction, Direction::In | Direction::Out))
        .collect();
    moving.sort_by_key(|c| c.start);
    let way = |d: Direction| -> (u64, u64, Vec<u64>) {
        let sizes: Vec<u64> = moving
            .iter()
            .filter(|c| c.direction == d)
            .filter_map(|c| c.bytes)
            .collect();
        (sizes.iter().sum(), sizes.len() as u64, sizes)
    };
    let (bytes_in, calls_in, sizes_in) = way(Direction::In);
    let (bytes_out, calls_out, sizes_out) = way(Direction::Out);
    let turns = moving
        .windows(2)
        .filter(|w| w[0].direction != w[1].direction)
        .count() as u64;
    let (heavy, light) = (bytes_in.max(bytes_out), bytes_in.min(bytes_out));
    let ratio = if light == 0 {
        1.0
    } else {
        heavy as f64 / light as f64
    };
    let heavy_calls = if bytes_in >= bytes_out {
        calls_in
    } else {
        calls_out
    };
    let shape = shape(heavy, light, ratio, heavy_calls, turns);
    let median = |sizes: &[u64]| -> Option<u64> {
        let mut s = sizes.to_vec();
        s.sort_unstable();
        s.get(s.len() / 2).copied()
    };
    let size = match shape {
        Shape::Nothing => None,
        Shape::RequestResponse => median(&sizes_in).max(median(&sizes_out)),
        _ if bytes_in >= bytes_out => median(&sizes_in),
        _ => median(&sizes_out),
    };
    Moved {
        bytes_in,
        bytes_out,
        calls_in,
        calls_out,
        failed: calls.iter().filter(|c| c.error.is_some()).count() as u64,
        turns,
        ratio,
        shape,
        size,
    }
}

fn shape(heavy: u64, light: u64, ratio: f64, heavy_calls: u64, turns: u64) -> Shape {
    if heavy == 0 {
        return Shape::Nothing;
    }
    if light == 0 {
        return Shape::OneWay;
    }
    if ratio < BULK_RATIO {
        // Both ways carry messages of a like size: each answers the other,
        // however many calls a message larger than the socket's buffer
        // takes.
        return Shape::RequestResponse;
    }
    // Each exchange is two turns; the heavier way's calls per exchange.
    let exchanges = (turns as f64 / 2.0).max(1.0);
    let run = heavy_calls as f64 / exchanges;
    let per_exchange = heavy as f64 / exchanges;
    if run >= BULK_RUN || per_exchange >= BULK_BYTES {
        Shape::Bulk
    } else {
        Shape::RequestResponse
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(start: u64, direction: Direction, bytes: Option<u64>, error: Option<i32>) -> Call {
        Call {
            tid: 1,
            nr: 0,
            start,
            fd: Some(3),
            object: Some(9),
            bytes,
            error,
            opened: None,
            direction,
            total_ns: 100,
            blocked_ns: 0,
            preempted_ns: 0,
        }
    }

    fn of(calls: &[Call]) -> Moved {
        moved(&calls.iter().collect::<Vec<_>>())
    }

    #[test]
    fn only_failed_calls_moved_nothing() {
        let calls: Vec<Call> = (0..50)
            .map(|i| call(i, Direction::In, None, Some(11)))
            .collect();
        let m = of(&calls);
        assert_eq!((m.shape, m.failed, m.size), (Shape::Nothing, 50, None));
    }

    #[test]
    fn small_requests_answered_by_long_runs_are_bulk() {
        let mut calls = Vec::new();
        for r in 0..4u64 {
            calls.push(call(r * 100, Direction::In, Some(85), None));
            for i in 1..40 {
                calls.push(call(r * 100 + i, Direction::Out, Some(2 << 20), None));
            }
            calls.push(call(r * 100 + 50, Direction::Out, None, Some(11)));
        }
        let m = of(&calls);
        assert_eq!(m.shape, Shape::Bulk, "{m:?}");
        assert_eq!((m.size, m.failed, m.turns), (Some(2 << 20), 4, 7));
        assert!(m.ratio > 1e5);
    }

    #[test]
    fn a_request_answered_by_megabytes_in_few_calls_is_bulk() {
        // What a 10 ms window caught of nginx's sendfile: an 82-byte
        // request, then three calls of about 1.3 MB.
        let mut calls = vec![call(0, Direction::In, Some(82), None)];
        for (i, bytes) in [1_896_960, 1_896_960, 200_440].into_iter().enumerate() {
            calls.push(call(1 + i as u64, Direction::Out, Some(bytes), None));
        }
        let m = of(&calls);
        assert_eq!(
            (m.shape, m.turns, m.calls_out),
            (Shape::Bulk, 1, 3),
            "{m:?}"
        );
        assert_eq!(m.size, Some(1_896_960));
        // The same few calls carrying a small response are a round trip.
        let small = [
            call(0, Direction::In, Some(82), None),
            call(1, Direction::Out, Some(4096), None),
            call(2, Direction::Out, Some(4096), None),
        ];
        assert_eq!(of(&small).shape, Shape::RequestResponse);
    }

    #[test]
    fn messages_of_megabytes_both_ways_in_many_calls_are_request_response() {
        // A 2 MiB message each way, read in ten calls of 210 KiB (what
        // the socket's buffer held), written in one.
        let mut calls = Vec::new();
        for r in 0..3u64 {
            for i in 0..10 {
                calls.push(call(r * 100 + i, Direction::In, Some(219_264), None));
            }
            calls.push(call(r * 100 + 50, Direction::Out, Some(2 << 20), None));
        }
        let m = of(&calls);
        assert_eq!(
            (m.shape, m.turns, m.size),
            (Shape::RequestResponse, 5, Some(2 << 20)),
            "{m:?}"
        );
    }

    #[test]
    fn alternating_messages_are_request_response_and_one_way_never_turns() {
        let rr: Vec<Call> = (0..20)
            .map(|i| {
                let d = [Direction::Out, Direction::In][i as usize % 2];
                call(i, d, Some(100 + i % 2), None)
            })
            .collect();
        let m = of(&rr);
        assert_eq!(
            (m.shape, m.size, m.turns),
            (Shape::RequestResponse, Some(101), 19)
        );
        let stream: Vec<Call> = (0..20)
            .map(|i| call(i, Direction::Out, Some(64), None))
            .collect();
        assert_eq!(of(&stream).shape, Shape::OneWay);
        assert_eq!(of(&stream).size, Some(64));
    }
}
