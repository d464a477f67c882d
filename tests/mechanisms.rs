//! The mechanisms beyond the first eight, each through the binary:
//! `pingpong`, `stream` (where it carries data) and `contention` (where it
//! has non-blocking calls), verified in both placements and both modes,
//! and a damaged message failing a case. A mechanism this machine lacks is
//! skipped with its `iolab list` reason.

mod common;
use common::mech::{contention, corrupted, here, pingpong, stream};

#[test]
fn unix_seqpacket_runs_verified_and_a_damaged_record_fails_it() {
    let mech = "unix-seqpacket";
    if !here(mech) {
        return;
    }
    pingpong(mech, "size=1,8k");
    stream(mech, "size=64,4k");
    contention(mech);
    corrupted(mech, true);
}
