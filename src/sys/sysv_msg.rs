//! System V message queues (svipc(7), msgget(2)), which rustix does not
//! cover: a private queue, send and receive (blocking or IPC_NOWAIT), and
//! removal with IPC_RMID. A private queue has no name and outlives every
//! process until removed, so the ids this process creates are kept in a
//! list and whatever is still on it is removed when the process exits
//! (`exit`, also after an error or a second Ctrl-C). Only SIGKILL escapes
//! that, so each id is also noted as a file in the run's private temp dir
//! (`note_in`): the next run, sweeping the dir of a run that is gone,
//! removes the queues it noted (`remove_stale`).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The folder of a run's temp dir where its queues are noted, one empty
/// file per id.
pub(crate) const NOTES_DIR: &str = "sysv-msg";
/// The temp dir this process notes its queues in, while it has one.
static NOTES: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Notes every queue created from now on in `run_dir` (None: no more).
pub(crate) fn note_in(run_dir: Option<&Path>) {
    *NOTES.lock().unwrap_or_else(|e| e.into_inner()) = run_dir.map(|d| d.join(NOTES_DIR));
}

/// Adds (`live`) or removes the note of queue `id`; a note that cannot be
/// written only costs the sweep after a SIGKILL.
fn note(id: i32, live: bool) {
    let notes = NOTES.lock().unwrap_or_else(|e| e.into_inner());
    let Some(dir) = notes.as_ref() else { return };
    let file = dir.join(id.to_string());
    let _ = match live {
        true => std::fs::create_dir_all(dir).and_then(|()| std::fs::write(file, b"")),
        false => std::fs::remove_file(file),
    };
}

/// Removes queue `id`, noted by a run that is gone, if it still exists and
/// was created by this user; whether it did.
pub(crate) fn remove_stale(id: i32) -> io::Result<bool> {
    // SAFETY: msqid_ds is a plain C struct of integers; all zeros is valid.
    let mut ds: libc::msqid_ds = unsafe { std::mem::zeroed() };
    // SAFETY: IPC_STAT writes one msqid_ds into `ds`, which outlives the call.
    super::cvt(unsafe { libc::msgctl(id, libc::IPC_STAT, &mut ds) })?;
    if ds.msg_perm.cuid != rustix::process::geteuid().as_raw() {
        return Ok(false);
    }
    rmid(id).map(|()| true)
}

/// The ids of the queues this process created and has not removed.
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());
/// The process that created them (a forked child must not remove them).
static CREATOR: OnceLock<u32> = OnceLock::new();

fn live() -> std::sync::MutexGuard<'static, Vec<i32>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

extern "C" fn remove_live_at_exit() {
    if CREATOR.get() == Some(&std::process::id()) {
        for id in live().drain(..) {
            let _ = rmid(id);
        }
    }
}

fn rmid(id: i32) -> io::Result<()> {
    // SAFETY: IPC_RMID reads no buffer; a null pointer is allowed.
    super::cvt(unsafe { libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()) }).map(drop)
}

/// A new private queue (mode 0600), removed at the latest when this
/// process exits.
pub(crate) fn create() -> io::Result<i32> {
    CREATOR.get_or_init(|| {
        // SAFETY: the handler is an extern "C" fn that never unwinds.
        unsafe { libc::atexit(remove_live_at_exit) };
        std::process::id()
    });
    let mut live = live();
    // SAFETY: msgget takes plain integer arguments.
    let id = super::cvt(unsafe { libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600) })?;
    live.push(id);
    note(id, true);
    Ok(id)
}

/// Removes the queues `ids` (of this process) now; queued messages are
/// lost and a waiting caller fails with EIDRM.
pub(crate) fn remove(ids: &[i32]) -> io::Result<()> {
    let mut live = live();
    let mut first_err = Ok(());
    for id in ids {
        if let Some(at) = live.iter().position(|l| l == id) {
            live.swap_remove(at);
            first_err = first_err.and(rmid(*id));
            note(*id, false);
        }
    }
    first_err
}

/// The message type every message carries (msgrcv takes the oldest).
const MTYPE: libc::c_long = 1;
const HEAD: usize = std::mem::size_of::<libc::c_long>();

fn flags(wait: bool) -> libc::c_int {
    if wait {
        0
    } else {
        libc::IPC_NOWAIT
    }
}

/// Queues `msg`, through `scratch` (a `struct msgbuf` is the type, then
/// the text). Without `wait`, a full queue fails with EAGAIN.
pub(crate) fn send(id: i32, msg: &[u8], scratch: &mut Vec<u8>, wait: bool) -> io::Result<()> {
    scratch.clear();
    scratch.extend_from_slice(&MTYPE.to_ne_bytes());
    scratch.extend_from_slice(msg);
    // SAFETY: `scratch` holds a c_long type followed by `msg.len()` bytes.
    let ret = unsafe { libc::msgsnd(id, scratch.as_ptr().cast(), msg.len(), flags(wait)) };
    super::cvt(ret).map(drop)
}

/// Takes the oldest message into `buf` through `scratch` and returns its
/// length; one longer than `buf` fails with E2BIG. Without `wait`, an
/// empty queue fails with ENOMSG.
pub(crate) fn receive(
    id: i32,
    buf: &mut [u8],
    scratch: &mut Vec<u8>,
    wait: bool,
) -> io::Result<usize> {
    scratch.resize(HEAD + buf.len(), 0);
    // SAFETY: `scratch` has room for the c_long type and `buf.len()` bytes.
    let n = unsafe { libc::msgrcv(id, scratch.as_mut_ptr().cast(), buf.len(), 0, flags(wait)) };
    let n = usize::try_from(n).map_err(|_| io::Error::last_os_error())?;
    buf[..n].copy_from_slice(&scratch[HEAD..HEAD + n]);
    Ok(n)
}
