//! The mechanisms beyond the first eight, each through the binary:
//! `pingpong`, `stream` (where it carries data) and `contention` (where it
//! has non-blocking calls), verified in both placements and both modes,
//! and a damaged message failing a case. A mechanism this machine lacks is
//! skipped with its `iolab list` reason.

mod common;
use common::mech::{contention, corrupted, here, pingpong, stream};

/// A data mechanism with non-blocking calls: verified in pingpong,
/// stream and contention, failed by a damaged message.
fn data_mechanism(mech: &str) {
    if !here(mech) {
        return;
    }
    pingpong(mech, "size=1,8k");
    stream(mech, "size=64,4k");
    contention(mech);
    corrupted(mech, true);
}

#[test]
fn unix_seqpacket_runs_verified_and_a_damaged_record_fails_it() {
    data_mechanism("unix-seqpacket");
}

#[test]
fn sysv_msg_runs_verified_and_a_damaged_message_fails_it() {
    data_mechanism("sysv-msg");
}
