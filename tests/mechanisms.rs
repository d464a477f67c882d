//! The mechanisms beyond the first eight, each through the binary:
//! `pingpong`, `stream` (where it carries data) and `contention` (where it
//! has non-blocking calls), verified in both placements and both modes,
//! and a damaged message failing a case. A mechanism this machine lacks is
//! skipped with its `iolab list` reason.

mod common;
use common::mech::{contention, corrupted, here, interrupted, pingpong, stream};

/// A mechanism with non-blocking calls: verified in pingpong, stream
/// and contention at these sizes, failed by a damaged message.
fn mechanism(mech: &str, pingpong_sizes: &str, stream_sizes: &str) {
    if !here(mech) {
        return;
    }
    pingpong(mech, pingpong_sizes);
    stream(mech, stream_sizes);
    contention(mech);
    corrupted(mech, true);
}

/// A data mechanism: small and large messages.
fn data_mechanism(mech: &str) {
    mechanism(mech, "size=1,8k", "size=64,4k");
}

#[test]
fn unix_seqpacket_runs_verified_and_a_damaged_record_fails_it() {
    data_mechanism("unix-seqpacket");
}

#[test]
fn sysv_msg_runs_verified_and_a_damaged_message_fails_it() {
    data_mechanism("sysv-msg");
}

/// A notification mechanism: its message is always the 8-byte counter.
fn notification_mechanism(mech: &str) {
    mechanism(mech, "size=8", "size=8");
}

#[test]
fn futex_runs_verified_and_a_damaged_count_fails_it() {
    notification_mechanism("futex");
}

#[test]
fn futex_sides_asleep_in_futex_wait_stop_on_ctrl_c() {
    if here("futex") {
        interrupted("futex", "threads");
        interrupted("futex", "processes");
    }
}
