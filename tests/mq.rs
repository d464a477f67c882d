//! The `mq` mechanism (POSIX message queues): its endpoints (sizes from
//! /proc/sys/fs/mqueue, lengths checked, non-blocking calls, goodbye on
//! drop), its runs in pingpong, stream and contention, verified in both
//! placements and both modes, a damaged message failing a case, and no
//! queue left after a run, an error or Ctrl-C, listed on an mqueue
//! filesystem (/dev/mqueue, or mounted on a temp dir as root).

mod common;
use common::{alive, Sandbox};
use iolab::mechanism::{find, BoxEndpoint, Values};
use iolab::scenario::Value;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

fn proc_limit(file: &str) -> usize {
    let path = format!("/proc/sys/fs/mqueue/{file}");
    std::fs::read_to_string(&path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn mq_here() -> bool {
    common::mech::here("mq")
}

fn pair(size: Option<u64>) -> (BoxEndpoint, BoxEndpoint) {
    let values: Values = size.map(|n| ("size", Value::Int(n))).into_iter().collect();
    let mq = find("mq").unwrap();
    mq.connect(Path::new("/nonexistent"), &values).unwrap()
}

#[test]
fn the_largest_message_is_the_probed_msgsize_max() {
    if !mq_here() {
        return;
    }
    let max = proc_limit("msgsize_max");
    assert_eq!(find("mq").unwrap().max_message(), max);
    let (mut a, mut b) = pair(None);
    let msg: Vec<u8> = (0..max).map(|i| i as u8).collect();
    a.send(&msg).unwrap();
    let mut got = vec![0u8; max];
    b.recv(&mut got).unwrap();
    assert_eq!(got, msg);
    assert!(a.send(&vec![0u8; max + 1]).is_err(), "{} bytes", max + 1);
}

#[test]
fn a_queue_takes_the_case_size_and_checks_lengths() {
    if !mq_here() {
        return;
    }
    let (mut a, mut b) = pair(Some(64));
    assert!(a.send(&[1u8; 65]).is_err(), "a 64-byte queue took 65 bytes");
    a.send(&[2u8; 63]).unwrap();
    let err = b.recv(&mut [0u8; 64]).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert_eq!(err.to_string(), "message of 63 bytes, expected 64");
}

#[test]
fn non_blocking_one_byte_calls_fill_the_queue_to_its_depth() {
    if !mq_here() {
        return;
    }
    let (mut a, mut b) = pair(None);
    a.set_nonblocking().unwrap();
    b.set_nonblocking().unwrap();
    let mut one = [0u8; 1];
    assert!(
        !b.try_recv(&mut one).unwrap(),
        "an empty queue gave a message"
    );
    let mut sent = 0u8;
    while a.try_send(&[sent]).unwrap() {
        sent += 1;
    }
    assert_eq!(usize::from(sent), proc_limit("msg_max"));
    for want in 0..sent {
        assert!(b.try_recv(&mut one).unwrap());
        assert_eq!(one[0], want);
    }
    assert!(!b.try_recv(&mut one).unwrap());
}

#[test]
fn an_end_that_moved_messages_says_goodbye_and_an_idle_one_does_not() {
    if !mq_here() {
        return;
    }
    let (a, mut b) = pair(Some(8));
    drop(a);
    b.set_nonblocking().unwrap();
    assert!(
        !b.try_recv(&mut [0u8; 8]).unwrap(),
        "an unused end said goodbye"
    );
    let (mut a, mut b) = pair(Some(8));
    a.send(&[3u8; 8]).unwrap();
    drop(a);
    b.recv(&mut [0u8; 8]).unwrap();
    let err = b.recv(&mut [0u8; 8]).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
}

fn verified_run(sb: &Sandbox, scenario: &str, mode: &str, params: &[&str]) {
    common::mech::verified_run(sb, "mq", scenario, mode, params);
}

#[test]
fn pingpong_runs_verified_in_both_placements_and_modes() {
    if !mq_here() {
        return;
    }
    let sb = Sandbox::new();
    for mode in ["threads", "processes"] {
        verified_run(&sb, "pingpong", mode, &["count=300", "size=1,8k"]);
    }
}

#[test]
fn stream_runs_verified_in_both_placements_and_modes() {
    if !mq_here() {
        return;
    }
    let sb = Sandbox::new();
    for mode in ["threads", "processes"] {
        verified_run(&sb, "stream", mode, &["size=64,4k", "bytes=256k"]);
    }
}

#[test]
fn contention_runs_verified_in_both_placements_and_modes() {
    if !mq_here() {
        return;
    }
    let sb = Sandbox::new();
    for mode in ["threads", "processes"] {
        let params = ["test=both", "duration=60ms", "interval=20ms"];
        verified_run(&sb, "contention", mode, &params);
    }
}

fn corrupted_run(sb: &Sandbox, scenario: &str, params: &[&str]) {
    common::mech::corrupted_run(sb, "mq", scenario, params);
}

#[test]
fn a_corrupted_message_fails_pingpong_and_stream() {
    if !mq_here() {
        return;
    }
    let sb = Sandbox::new();
    corrupted_run(&sb, "pingpong", &["count=200"]);
    corrupted_run(&sb, "stream", &["size=64", "bytes=64k"]);
}

/// The queues of this IPC namespace, listed on /dev/mqueue or on an
/// mqueue filesystem mounted on a temp dir (unmounted on drop). Listing
/// tests take LISTING so that one's test queues do not show in another's.
struct Listing {
    dir: PathBuf,
    mounted: Option<tempfile::TempDir>,
}

static LISTING: Mutex<()> = Mutex::new(());

impl Listing {
    fn new() -> Option<Listing> {
        let dev = Path::new("/dev/mqueue");
        if dev.is_dir() {
            let dir = dev.to_path_buf();
            return Some(Listing { dir, mounted: None });
        }
        let what = "listing queues needs /dev/mqueue or root (to mount mqueue)";
        if !common::require(mq_here() && common::is_root(), what) {
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        let mount = Command::new("mount")
            .args(["-t", "mqueue", "none"])
            .arg(tmp.path())
            .status()
            .unwrap();
        assert!(mount.success(), "mount -t mqueue failed");
        let dir = tmp.path().to_path_buf();
        Some(Listing {
            dir,
            mounted: Some(tmp),
        })
    }

    fn names(&self) -> Vec<String> {
        let entries = std::fs::read_dir(&self.dir).unwrap();
        entries
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    }

    /// Queues named by iolab (`iolab-<pid>-<n>`) whose process is gone.
    fn left_behind(&self) -> Vec<String> {
        let pid = |n: &str| n.strip_prefix("iolab-")?.split('-').next()?.parse().ok();
        let names = self.names().into_iter();
        names
            .filter(|n| pid(n).is_some_and(|p| !alive(p)))
            .collect()
    }

    fn assert_clean(&self, after: &str) {
        assert_eq!(self.left_behind(), Vec::<String>::new(), "after {after}");
    }
}

impl Drop for Listing {
    fn drop(&mut self) {
        if self.mounted.is_some() {
            let _ = Command::new("umount").arg(&self.dir).status();
        }
    }
}

fn listing_lock() -> std::sync::MutexGuard<'static, ()> {
    LISTING.lock().unwrap_or_else(|e| e.into_inner())
}

fn queue_name(name: &str) -> std::ffi::CString {
    std::ffi::CString::new(format!("/{name}")).unwrap()
}

fn make_queue(name: &str) -> iolab::sys::mq::Queue {
    use iolab::sys::mq::{create, Access, Attr};
    let attr = Attr {
        depth: 1,
        msgsize: 8,
    };
    create(&queue_name(name), Access::Read, attr).unwrap()
}

#[test]
fn the_listing_sees_a_queue_until_it_is_unlinked() {
    let _lock = listing_lock();
    let Some(listing) = Listing::new() else {
        return;
    };
    let name = format!("iolab-listing-{}", std::process::id());
    let _queue = make_queue(&name);
    assert!(listing.names().contains(&name), "{:?}", listing.names());
    iolab::sys::mq::unlink(&queue_name(&name)).unwrap();
    assert!(!listing.names().contains(&name));
}

#[test]
fn no_queue_remains_after_runs_and_errors() {
    let _lock = listing_lock();
    let Some(listing) = Listing::new() else {
        return;
    };
    listing.assert_clean("nothing");
    let sb = Sandbox::new();
    for mode in ["threads", "processes"] {
        let params = ["count=200"];
        verified_run(&sb, "pingpong", mode, &params);
        listing.assert_clean(&format!("pingpong in {mode}"));
    }
    verified_run(&sb, "stream", "processes", &["size=4k", "bytes=64k"]);
    let params = ["test=both", "duration=40ms", "interval=20ms"];
    verified_run(&sb, "contention", "processes", &params);
    listing.assert_clean("stream and contention");
    corrupted_run(&sb, "pingpong", &["count=200"]);
    listing.assert_clean("a failed case");
    let err = sb.usage_error(&["run", "stream", "--mech", "mq", "--param", "size=64k"]);
    let max = proc_limit("msgsize_max");
    let want = format!("size 65536 is above what mq carries: at most {max} bytes per message");
    assert!(err.contains(&want), "{err}");
    listing.assert_clean("a usage error");
}

/// A PID that no process has any more.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    child.id()
}

#[test]
fn the_sweep_removes_queues_of_dead_processes_only() {
    let _lock = listing_lock();
    let Some(listing) = Listing::new() else {
        return;
    };
    let stale = format!("iolab-{}-0", dead_pid());
    let live = format!("iolab-{}-999999", std::process::id());
    drop(make_queue(&stale));
    drop(make_queue(&live));
    assert_eq!(listing.left_behind(), vec![stale.clone()]);
    let removed = iolab::mechanism::mq::sweep_stale_in(&listing.dir).unwrap();
    assert_eq!(removed, 1);
    let names = listing.names();
    assert!(
        !names.contains(&stale) && names.contains(&live),
        "{names:?}"
    );
    iolab::sys::mq::unlink(&queue_name(&live)).unwrap();
}

/// `iolab run pingpong --mech mq` interrupted mid-run leaves no queue.
fn interrupted(listing: &Listing, mode: &str) {
    common::mech::interrupted("mq", mode);
    listing.assert_clean(&format!("Ctrl-C in {mode}"));
}

#[test]
fn ctrl_c_leaves_no_queue() {
    let _lock = listing_lock();
    let Some(listing) = Listing::new() else {
        return;
    };
    interrupted(&listing, "processes");
    interrupted(&listing, "threads");
}
