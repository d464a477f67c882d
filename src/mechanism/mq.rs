//! `mq`: POSIX message queues, one per direction. A queue is named after
//! iolab's PID (`/iolab-<pid>-<n>`), opened by both of its ends and
//! unlinked at once, all inside `connect` (before any fork): an unlinked
//! queue lives on for its open descriptors, which forked sides inherit, and
//! vanishes with the last one, so no queue outlives iolab, even killed.
//! Queue depth and the largest message come from /proc/sys/fs/mqueue
//! (msg_max, msgsize_max), probed rather than assumed.
//!
//! A queue cannot tell that its peer went away, so an end that has carried
//! traffic sends an empty message when dropped, and the other end reads it
//! as a closed channel (real messages are never empty: sizes are positive).
//! A sender blocked on a full queue is not woken by its reader leaving: the
//! runner stops it after its grace period, as it does any stuck side.

use super::{BoxEndpoint, Caps, Endpoint, Mechanism, Support, Values, SIZE};
use crate::sys::mq::{self, Access, Attr, Queue};
use crate::sys::owner::{is_gone, own_prefix, owner_pid};
use rustix::io::Errno;
use std::ffi::CString;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

const LIMITS_DIR: &str = "/proc/sys/fs/mqueue";
/// Where the mqueue filesystem is usually mounted: the only way to list queues.
const MOUNT: &str = "/dev/mqueue";

pub(crate) struct Mq;

impl Mechanism for Mq {
    fn name(&self) -> &'static str {
        "mq"
    }
    fn about(&self) -> &'static str {
        "POSIX message queues, one per direction (mq_open, unlinked once both ends are open)"
    }
    fn caps(&self) -> Caps {
        Caps::RECORDS
    }
    fn max_message(&self) -> usize {
        probed().as_ref().map_or(0, |l| l.msgsize)
    }
    fn support(&self) -> Support {
        Support::of(probed())
    }
    fn connect(&self, _dir: &Path, values: &Values) -> io::Result<(BoxEndpoint, BoxEndpoint)> {
        let limits = probed()
            .as_ref()
            .map_err(|why| io::Error::new(io::ErrorKind::Unsupported, why.clone()))?;
        // A queue sized to the case's messages receives straight into the
        // caller's buffer; without a size, any message up to the limit fits.
        let msgsize = match SIZE.int(values) {
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
            None => limits.msgsize,
        };
        let attr = Attr {
            depth: limits.depth,
            msgsize: msgsize.clamp(1, limits.msgsize),
        };
        let (b_rx, a_tx) = channel(attr, limits)?;
        let (a_rx, b_tx) = channel(attr, limits)?;
        Ok((
            Box::new(MqEndpoint::new(a_rx, a_tx, attr.msgsize)),
            Box::new(MqEndpoint::new(b_rx, b_tx, attr.msgsize)),
        ))
    }
}

/// The kernel's limits for one queue, and how many queues may exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    depth: usize,
    msgsize: usize,
    queues: usize,
}

/// The limits, once a pair of queues of the largest shape was created.
fn probed() -> &'static Result<Limits, String> {
    static PROBED: OnceLock<Result<Limits, String>> = OnceLock::new();
    PROBED.get_or_init(|| {
        let limits = read_limits(Path::new(LIMITS_DIR))?;
        let attr = Attr {
            depth: limits.depth,
            msgsize: limits.msgsize,
        };
        let both = channel(attr, &limits).and_then(|a| Ok((a, channel(attr, &limits)?)));
        both.map(|_| limits).map_err(|e| e.to_string())
    })
}

fn read_limits(dir: &Path) -> Result<Limits, String> {
    if !dir.is_dir() {
        return Err(format!(
            "no {}: this kernel has no POSIX message queues",
            dir.display()
        ));
    }
    let read = |file: &str| read_positive(&dir.join(file));
    Ok(Limits {
        depth: read("msg_max")?,
        msgsize: read("msgsize_max")?,
        queues: read("queues_max")?,
    })
}

/// A positive number from a /proc/sys file, or what is wrong with it.
pub(super) fn read_positive(path: &Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "{} holds {:?}, not a positive number",
            path.display(),
            text.trim()
        )),
    }
}

/// A new queue opened for reading and for writing, its name already gone.
fn channel(attr: Attr, limits: &Limits) -> io::Result<(Queue, Queue)> {
    let name = unique_name();
    let rx = mq::create(&name, Access::Read, attr).map_err(|e| explain(e, limits))?;
    let tx = mq::open(&name, Access::Write);
    let unlinked = mq::unlink(&name);
    let tx = tx?;
    unlinked?;
    Ok((rx, tx))
}

/// `/iolab-<pid>-<n>`: unique in this process, and a later run can tell
/// whether the process that made it still exists.
fn unique_name() -> CString {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    CString::new(format!("/{}{n}", own_prefix())).expect("no NUL in the name")
}

fn explain(err: io::Error, limits: &Limits) -> io::Error {
    let why = match Errno::from_io_error(&err) {
        Some(Errno::NOSYS) => "this kernel has no POSIX message queues".to_string(),
        Some(Errno::NOSPC) => format!(
            "{} queues exist already (fs.mqueue.queues_max)",
            limits.queues
        ),
        Some(Errno::MFILE) => "RLIMIT_MSGQUEUE or the descriptor limit is reached".to_string(),
        _ => return io::Error::new(err.kind(), format!("mq_open: {err}")),
    };
    io::Error::new(err.kind(), format!("mq_open: {why} ({err})"))
}

/// One end: it receives from one queue and sends to the other.
struct MqEndpoint {
    rx: Queue,
    tx: Queue,
    /// The queues' message size; a receive needs a buffer at least as large.
    msgsize: usize,
    scratch: Vec<u8>,
    /// Whether this end has moved a message (only such an end says goodbye:
    /// the copies a forked side does not use are dropped silently).
    used: bool,
}

impl MqEndpoint {
    fn new(rx: Queue, tx: Queue, msgsize: usize) -> MqEndpoint {
        MqEndpoint {
            rx,
            tx,
            msgsize,
            scratch: Vec::new(),
            used: false,
        }
    }

    /// Receives one message into `buf`, through `scratch` when `buf` is
    /// shorter than the queue's message size; returns the message length.
    fn take(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.len() >= self.msgsize {
            return self.rx.receive(buf);
        }
        self.scratch.resize(self.msgsize, 0);
        let n = self.rx.receive(&mut self.scratch)?;
        let fits = n.min(buf.len());
        buf[..fits].copy_from_slice(&self.scratch[..fits]);
        Ok(n)
    }

    /// A message of `n` bytes arrived where `want` were expected.
    fn arrived(&mut self, n: usize, want: usize) -> io::Result<()> {
        if n == 0 && want > 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the other side closed the channel (empty message)",
            ));
        }
        if n != want {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("message of {n} bytes, expected {want}"),
            ));
        }
        self.used = true;
        Ok(())
    }
}

fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

impl Endpoint for MqEndpoint {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.tx.send(msg)?;
        self.used = true;
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<()> {
        let n = self.take(buf)?;
        self.arrived(n, buf.len())
    }

    fn set_nonblocking(&mut self) -> io::Result<()> {
        self.rx.set_nonblocking()?;
        self.tx.set_nonblocking()
    }

    fn try_send(&mut self, msg: &[u8]) -> io::Result<bool> {
        match self.tx.send(msg) {
            Ok(()) => {
                self.used = true;
                Ok(true)
            }
            Err(e) if would_block(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn try_recv(&mut self, buf: &mut [u8]) -> io::Result<bool> {
        match self.take(buf) {
            Ok(n) => self.arrived(n, buf.len()).map(|()| true),
            Err(e) if would_block(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

impl Drop for MqEndpoint {
    fn drop(&mut self) {
        if self.used {
            // Best effort and never waiting: a full queue's reader is
            // stopped by the runner instead.
            let _ = self.tx.send_now(&[]);
        }
    }
}

/// Unlinks the queues of iolab processes that no longer exist (killed
/// between creating a queue and unlinking it) where the mqueue filesystem
/// is mounted at /dev/mqueue; elsewhere queues cannot be listed and nothing
/// is done. Returns how many were removed.
pub(crate) fn sweep_stale_queues() -> io::Result<usize> {
    let mount = Path::new(MOUNT);
    if !mount.is_dir() {
        return Ok(0);
    }
    sweep_stale_in(mount)
}

/// `sweep_stale_queues` over an mqueue filesystem mounted at `mount`.
pub fn sweep_stale_in(mount: &Path) -> io::Result<usize> {
    let mut removed = 0;
    for entry in std::fs::read_dir(mount)? {
        let file = entry?.file_name();
        let Some(name) = file.to_str() else { continue };
        if !owner_pid(name).is_some_and(is_gone) {
            continue;
        }
        let path = CString::new(format!("/{name}")).expect("no NUL in a file name");
        match mq::unlink(&path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    const GOOD: [(&str, &str); 3] = [
        ("msg_max", "10\n"),
        ("msgsize_max", "8192\n"),
        ("queues_max", "256\n"),
    ];

    #[test]
    fn limits_are_read_from_the_proc_files() {
        let dir = limits_dir(&GOOD);
        let want = Limits {
            depth: 10,
            msgsize: 8192,
            queues: 256,
        };
        assert_eq!(read_limits(dir.path()), Ok(want));
    }

    #[test]
    fn a_missing_proc_directory_means_no_message_queues() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("mqueue");
        let why = read_limits(&gone).unwrap_err();
        assert_eq!(
            why,
            format!(
                "no {}: this kernel has no POSIX message queues",
                gone.display()
            )
        );
    }

    #[test]
    fn a_bad_limit_names_its_file_and_value() {
        for bad in ["abc", "0", ""] {
            let dir = limits_dir(&[GOOD[0], ("msgsize_max", bad), GOOD[2]]);
            let path = dir.path().join("msgsize_max");
            let why = read_limits(dir.path()).unwrap_err();
            let want = format!("{} holds {bad:?}, not a positive number", path.display());
            assert_eq!(why, want);
        }
        let dir = limits_dir(&GOOD[..2]);
        let why = read_limits(dir.path()).unwrap_err();
        assert!(
            why.starts_with("cannot read ") && why.contains("queues_max"),
            "{why}"
        );
    }

    #[test]
    fn a_failed_mq_open_says_which_limit() {
        let limits = read_limits(limits_dir(&GOOD).path()).unwrap();
        let why = |errno: i32| explain(io::Error::from_raw_os_error(errno), &limits).to_string();
        assert!(why(libc::ENOSPC).starts_with("mq_open: 256 queues exist already"));
        assert!(why(libc::ENOSYS).starts_with("mq_open: this kernel has no POSIX"));
        assert!(why(libc::EMFILE).starts_with("mq_open: RLIMIT_MSGQUEUE"));
        assert!(why(libc::EACCES).starts_with("mq_open: Permission denied"));
    }

    #[test]
    fn names_carry_the_pid_and_parse_back() {
        let (a, b) = (unique_name(), unique_name());
        assert_ne!(a, b);
        let a = a.to_str().unwrap().strip_prefix('/').unwrap().to_string();
        assert_eq!(owner_pid(&a), Some(std::process::id() as i32));
        assert_eq!(owner_pid("iolab-123-4"), Some(123));
        for other in [
            "iolab-x-1",
            "iolab-12",
            "iolab-12-",
            "other-1-2",
            "iolab-0-1",
        ] {
            assert_eq!(owner_pid(other), None, "{other}");
        }
    }
}
