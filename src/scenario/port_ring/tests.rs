//! How a repetition's time is derived: from the clock stamps the relays
//! leave at their ring's first send and last receive, never from the
//! watcher that waits for them.

use super::rings::{self, span, Shape};
use crate::measure::clock::now_ns;
use std::time::Duration;

#[test]
fn run_time_spans_the_earliest_first_send_to_the_latest_last_receive() {
    assert_eq!(span(&[(100, 250), (120, 400), (90, 300)]), Some(310));
    assert_eq!(span(&[(5, 5)]), Some(0));
    assert_eq!(span(&[(100, 250), (0, 0)]), None, "a ring never started");
    assert_eq!(span(&[(100, 250), (120, 0)]), None, "a ring never ended");
    assert_eq!(span(&[]), None);
}

#[test]
fn a_repetition_is_timed_by_its_relays_stamps_inside_the_watched_window() {
    for processes in [false, true] {
        let shape = Shape {
            relays: 3,
            messages: 200,
            rings: 2,
            processes,
        };
        let mut marks = Vec::new();
        let run = rings::run(shape, None, Duration::from_secs(60), &mut |_| {
            marks.push(now_ns())
        })
        .unwrap();
        let [watch_from, watch_to] = marks[..] else {
            panic!("around called {} times", marks.len());
        };
        let echoed: u64 = run
            .outcomes
            .iter()
            .map(|o| o.as_ref().unwrap().echoed)
            .sum();
        assert_eq!(echoed, 400, "processes={processes}");
        assert_eq!(run.stamps.len(), 2);
        for &(first, last) in &run.stamps {
            assert!(watch_from < first && first < last && last < watch_to);
        }
        let first = run.stamps.iter().map(|s| s.0).min().unwrap();
        let last = run.stamps.iter().map(|s| s.1).max().unwrap();
        assert_eq!(run.run_ns(), Some(last - first));
        assert!(run.run_ns().unwrap() < watch_to - watch_from);
    }
}
