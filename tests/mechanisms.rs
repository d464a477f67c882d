//! The mechanisms beyond the first eight, each through the binary:
//! `pingpong`, `stream` (where it carries data) and `contention` (where it
//! has non-blocking calls), verified in both placements and both modes,
//! and a damaged message failing a case. A mechanism this machine lacks is
//! skipped with its `iolab list` reason.

mod common;
use common::mech::{contention, corrupted, here, interrupted, pingpong, stream};
use common::mech::{unsupported_in, BOTH_MODES};

/// A mechanism with non-blocking calls: verified in pingpong, stream
/// and contention at these sizes, failed by a damaged message in
/// pingpong and, if `stream_fails`, in stream.
fn mechanism(mech: &str, pingpong_sizes: &str, stream_sizes: &str, stream_fails: bool) {
    if !here(mech) {
        return;
    }
    pingpong(mech, BOTH_MODES, pingpong_sizes);
    stream(mech, BOTH_MODES, stream_sizes);
    contention(mech, BOTH_MODES);
    corrupted(mech, "processes", stream_fails);
}

/// A data mechanism: small and large messages.
fn data_mechanism(mech: &str) {
    mechanism(mech, "size=1,8k", "size=64,4k", true);
}

#[test]
fn unix_seqpacket_runs_verified_and_a_damaged_record_fails_it() {
    data_mechanism("unix-seqpacket");
}

#[test]
fn sysv_msg_runs_verified_and_a_damaged_message_fails_it() {
    data_mechanism("sysv-msg");
}

#[test]
fn vmsplice_runs_verified_at_large_sizes_and_a_damaged_message_fails_it() {
    mechanism("vmsplice", "size=1,8k,64k", "size=64k,256k", true);
}

/// A notification mechanism: its message is always the 8-byte counter.
/// The damaged count fails pingpong; stream checks only the sum of the
/// counts, which the receiver stops reading once it reaches the expected
/// one, so a count too large shows there only if it was read last
/// (always for signals, which queue; by timing for counters that add up).
fn notification_mechanism(mech: &str) {
    mechanism(mech, "size=8", "size=8", false);
}

#[test]
fn futex_runs_verified_and_a_damaged_count_fails_pingpong() {
    notification_mechanism("futex");
}

#[test]
fn futex_sides_asleep_in_futex_wait_stop_on_ctrl_c() {
    if here("futex") {
        interrupted("futex", "threads");
        interrupted("futex", "processes");
    }
}

#[test]
fn signal_runs_verified_and_a_damaged_value_fails_pingpong() {
    notification_mechanism("signal");
}

#[test]
fn signal_sides_asleep_in_sigwaitinfo_stop_on_ctrl_c() {
    if here("signal") {
        interrupted("signal", "threads");
        interrupted("signal", "processes");
    }
}

/// An in-process baseline: verified as threads in pingpong, stream and
/// contention, failed by a damaged message, unsupported as processes
/// with the reason, and stopped by Ctrl-C.
fn in_process_baseline(mech: &str) {
    let threads = &["threads"];
    pingpong(mech, threads, "size=1,8k");
    stream(mech, threads, "size=64,4k");
    contention(mech, threads);
    corrupted(mech, "threads", true);
    let why = "an in-process baseline: its two ends are threads of one process";
    unsupported_in(mech, "processes", why);
    interrupted(mech, "threads");
}

#[test]
fn channel_runs_verified_as_threads_only_and_a_damaged_message_fails_it() {
    in_process_baseline("channel");
}

#[test]
fn condvar_runs_verified_as_threads_only_and_a_damaged_message_fails_it() {
    in_process_baseline("condvar");
}

#[test]
fn io_uring_msg_runs_verified_and_a_damaged_value_fails_pingpong() {
    notification_mechanism("io-uring-msg");
}

#[test]
fn io_uring_msg_sides_asleep_in_io_uring_enter_stop_on_ctrl_c() {
    if here("io-uring-msg") {
        interrupted("io-uring-msg", "threads");
        interrupted("io-uring-msg", "processes");
    }
}

/// `iolab list` has io-uring-msg's line: a notification of 8 bytes for
/// processes and threads, or why it cannot run here.
#[test]
fn io_uring_msg_has_its_line_in_list() {
    let text = common::Sandbox::new().stdout(&["list"]);
    let line = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|l| l.starts_with("io-uring-msg "))
        .expect("a line for io-uring-msg");
    let supported = "io-uring-msg yes notification counts (may add up) 8 B processes, threads a ring per end, IORING_OP_MSG_RING";
    match iolab::mechanism::find("io-uring-msg").unwrap().support() {
        iolab::mechanism::Support::Yes => assert!(line.starts_with(supported), "{line}"),
        iolab::mechanism::Support::No(why) => assert!(line.contains(&why), "{line}"),
    }
}
